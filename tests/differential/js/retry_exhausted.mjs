// A node that always fails, with 2 attempts: the run fails with the node's own error.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, quickRetry, stream, emit } from "./transcript.mjs";
let calls = 0;
const app = new StateGraph(TraceState)
  .addNode("a", () => ({ trace: ["a"] }))
  .addNode("flaky", () => { ++calls; throw new Error("still down"); }, { retryPolicy: quickRetry(2) })
  .addEdge(START, "a").addEdge("a", "flaky").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
emit({ calls });
