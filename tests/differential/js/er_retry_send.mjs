// A retry policy on a Send target: each Send task retries on its own (w2 fails once, w3 always),
// the others run once.
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, emit } from "./transcript.mjs";
const calls = {};
const bump = (k) => (calls[k] = (calls[k] ?? 0) + 1);
const app = new StateGraph(TraceState)
  .addNode("w", (s) => {
    const k = bump("w" + s.n);
    if (s.n === 2 && k === 1) throw new Error("w2 once");
    if (s.n === 3) throw new Error("w3 always " + k);
    return { trace: ["w" + s.n + ":" + k] };
  }, { retryPolicy: quickRetry(3) })
  .addNode("z", tracer("z"))
  .addEdge("w", "z")
  .addConditionalEdges(START, (s) => Array.from({ length: s.n }, (_, i) => new Send("w", { n: i + 1 })))
  .compile();
await stream(app, { n: 2 }, {}, ["updates", "values"]);
emit({ calls });
await stream(app, { n: 3 }, {}, ["updates", "values"]);
emit({ calls });
