// A node failing twice, then succeeding under a retry policy of 3 attempts.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, quickRetry, stream } from "./transcript.mjs";
let calls = 0;
const app = new StateGraph(TraceState)
  .addNode("flaky", () => { if (++calls < 3) throw new Error("temporary outage"); return { trace: ["ok" + calls] }; },
    { retryPolicy: quickRetry(3) })
  .addEdge(START, "flaky").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
