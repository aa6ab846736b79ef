// A node with a retry policy fails on its first attempt and interrupts on the second; the
// resume runs it again (a third call) and it finishes. get_state while paused.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, state, emit, THREAD } from "./transcript.mjs";
let calls = 0;
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("flaky", () => {
    const k = ++calls;
    if (k === 1) throw new Error("first attempt fails");
    return { trace: ["flaky:" + interrupt("q" ) + ":" + k] };
  }, { retryPolicy: quickRetry(3) })
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "flaky").addEdge("flaky", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
emit({ calls });
await state(app, THREAD);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
emit({ calls });
await state(app, THREAD);
