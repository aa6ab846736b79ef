// a -> b -> c, streamed with updates and values, then invoked.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
await invoke(app, { n: 2 });
