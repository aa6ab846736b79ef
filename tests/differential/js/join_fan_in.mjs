// START -> a, b, c; join [a, b, c] -> j: j runs once, after all three.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c")).addNode("j", tracer("j"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(START, "c").addEdge(["a", "b", "c"], "j").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
