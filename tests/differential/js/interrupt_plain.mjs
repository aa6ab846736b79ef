// interrupt() in a graph without a checkpointer.
import { StateGraph, START, interrupt } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("ask", () => ({ trace: [interrupt("why?")] })).addEdge(START, "ask").compile();
await stream(app, { n: 1 }, {}, ["updates"]);
