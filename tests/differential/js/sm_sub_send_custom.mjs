// A subgraph fanning out with Sends, the first Send task writing a custom chunk: updates,
// custom, values and tasks parts with subgraphs (namespaces of Send tasks inside a subgraph).
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("fan", tracer("fan"))
  .addNode("w", (s, config) => { if (s.n === 1) config.writer({ w: 1 }); return { trace: ["w" + s.n] }; })
  .addNode("done", tracer("done"))
  .addEdge(START, "fan")
  .addConditionalEdges("fan", () => [1, 2, 3].map((n) => new Send("w", { n })))
  .addEdge("w", "done").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile();
await stream(app, { n: 0 }, {}, ["updates", "custom", "values"], { subgraphs: true });
await stream(app, { n: 0 }, {}, ["tasks"], { subgraphs: true });
