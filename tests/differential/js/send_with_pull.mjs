// A router mixing Sends and node names: pull tasks apply before push tasks.
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("z", tracer("z"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addEdge(START, "a")
  .addConditionalEdges("a", () => [new Send("w", { n: 1 }), new Send("w", { n: 2 }), "z", "b"])
  .compile();
await stream(app, { n: 0 }, {}, ["updates", "values"]);
