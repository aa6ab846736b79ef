// Overwrite beside plain writes to the same reducer key in one step (a before it, c after it in
// path order), and two Overwrites of one key in one step. b uses the wire form, as superstep's
// Overwrite serialises: the transcript would print the class's lg_name field in `updates`.
import { StateGraph, START, Overwrite } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("b", () => ({ trace: { __overwrite__: ["reset"] } }))
  .addNode("c", tracer("c"))
  .addNode("d", (s) => ({ trace: ["d:" + s.trace.length] }))
  .addEdge(START, "a").addEdge(START, "b").addEdge(START, "c")
  .addEdge(["a", "b", "c"], "d")
  .compile();
await stream(app, { trace: ["in"] }, {}, ["updates", "values"]);
const two = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: new Overwrite(["x"]) }))
  .addNode("y", () => ({ trace: new Overwrite(["y"]) }))
  .addEdge(START, "x").addEdge(START, "y")
  .compile();
await stream(two, { n: 1 }, {}, ["values"]);
