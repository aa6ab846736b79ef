// tasks and debug modes with subgraphs for Send tasks inside a subgraph (ids, names, triggers,
// results, namespaces).
import { StateGraph, START, Send, Annotation } from "@langchain/langgraph";
import { TraceState, append, tracer, stream } from "./transcript.mjs";
const SubState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const sub = new StateGraph(SubState)
  .addNode("w", (s) => ({ trace: ["w" + s.item] }))
  .addConditionalEdges(START, () => [1, 2].map((item) => new Send("w", { item })))
  .compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile();
await stream(app, { n: 1 }, {}, ["tasks"], { subgraphs: true });
