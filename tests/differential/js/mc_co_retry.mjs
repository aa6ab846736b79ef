// An async node failing after its await, retried until it succeeds; another running out.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, emit, quickRetry } from "./transcript.mjs";
import { sleep, coQuiet } from "./co_helpers.mjs";
for (const attempts of [3, 2]) {
  const calls = { n: 0 };
  const flaky = async () => {
    const k = ++calls.n;
    await sleep(3);
    if (k <= 2) throw new Error("co fail " + k);
    return { trace: ["flaky" + k] };
  };
  const app = new StateGraph(TraceState)
    .addNode("a", tracer("a")).addNode("flaky", flaky, { retryPolicy: quickRetry(attempts) })
    .addNode("side", coQuiet("side", 1)).addNode("c", tracer("c"))
    .addEdge(START, "a").addEdge("a", "flaky").addEdge("a", "side").addEdge(["flaky", "side"], "c").compile();
  await stream(app, { n: 1 }, {}, ["updates", "values"]);
  emit({ calls: calls.n });
}
