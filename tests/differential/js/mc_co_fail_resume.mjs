// A checkpointed failure of an async node, then a resume that succeeds.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
import { sleep } from "./co_helpers.mjs";
const calls = { n: 0 };
const flaky = async () => {
  const k = ++calls.n;
  await sleep(3);
  if (k <= 1) throw new Error("co fail " + k);
  return { trace: ["flaky" + k] };
};
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("flaky", flaky).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "flaky").addEdge("flaky", "c").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
emit({ calls: calls.n });
await state(app, THREAD);
