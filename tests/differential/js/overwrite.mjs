// Overwrite replaces a reducer key's value instead of folding into it (class and wire form).
import { StateGraph, START, Overwrite } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", () => ({ trace: new Overwrite(["reset"]) }))
  .addNode("c", () => ({ trace: { __overwrite__: ["again"] } })).addNode("d", tracer("d"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").addEdge("c", "d").compile();
await stream(app, { n: 1, trace: ["in"] }, {}, ["values"]);
