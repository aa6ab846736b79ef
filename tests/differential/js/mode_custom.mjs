// custom mode: a node writes chunks through its stream writer; updates alongside.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", (s, config) => { config.writer({ progress: 1 }); config.writer("half"); return { trace: ["a"] }; })
  .addNode("b", (s, config) => { config.writer([1, 2]); return { trace: ["b"] }; })
  .addEdge(START, "a").addEdge("a", "b").compile();
await stream(app, { n: 1 }, {}, ["custom", "updates"]);
await stream(app, { n: 1 }, {}, ["custom"]);
