// Map-reduce with Send: START's router sends each item to worker, then reduce (once).
import { StateGraph, START, Send, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const S = Annotation.Root({
  items: Annotation(), i: Annotation(),
  results: Annotation({ reducer: append, default: () => [] }),
});
const app = new StateGraph(S)
  .addNode("worker", (s) => ({ results: [s.i * 10] }))
  .addNode("reduce", (s) => ({ results: [s.results.reduce((a, b) => a + b, 0)] }))
  .addConditionalEdges(START, (s) => s.items.map((i) => new Send("worker", { i })))
  .addEdge("worker", "reduce").compile();
await stream(app, { items: [1, 2, 3] }, {}, ["updates", "values"]);
