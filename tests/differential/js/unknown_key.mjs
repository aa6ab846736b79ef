// A node writing a key the state does not have.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("plan", () => ({ totl: 1, trace: ["plan"] })).addEdge(START, "plan").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
