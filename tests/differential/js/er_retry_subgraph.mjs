// A retry policy on a subgraph node whose inner node fails on its first two calls: each attempt
// runs the whole subgraph again (s1 too); the third succeeds. A second graph with the same
// subgraph then succeeds at once (the counters go on).
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, emit } from "./transcript.mjs";
const calls = {};
const bump = (k) => (calls[k] = (calls[k] ?? 0) + 1);
const sub = new StateGraph(TraceState)
  .addNode("flaky", () => { const k = bump("flaky"); if (k < 3) throw new Error("inner down " + k); return { trace: ["flaky" + k] }; })
  .addNode("s1", () => { bump("s1"); return { trace: ["s1"] }; })
  .addEdge(START, "s1").addEdge("s1", "flaky").compile();
const g = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub, { retryPolicy: quickRetry(3) }).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile();
await stream(g, { n: 1 }, {}, ["updates", "values"]);
emit({ calls });
const g2 = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub, { retryPolicy: quickRetry(2) }).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile();
await stream(g2, { n: 1 }, {}, ["updates", "values"]);
emit({ calls });
