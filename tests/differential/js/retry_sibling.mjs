// Retries: a node failing in parallel with a sibling exhausts its attempts (the sibling runs
// once); a retryOn predicate that refuses an error stops retrying at once.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, quickRetry, stream, emit } from "./transcript.mjs";
let calls = { flaky: 0, ok: 0, picky: 0 };
const app = new StateGraph(TraceState)
  .addNode("ok", () => { ++calls.ok; return { trace: ["ok"] }; })
  .addNode("flaky", () => { ++calls.flaky; throw new Error("down " + calls.flaky); }, { retryPolicy: quickRetry(3) })
  .addNode("after", tracer("after"))
  .addEdge(START, "ok").addEdge(START, "flaky").addEdge("ok", "after").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"]);
emit(calls);
const app2 = new StateGraph(TraceState)
  .addNode("picky", (s) => { ++calls.picky; if (calls.picky < 3) throw new Error(calls.picky === 1 ? "transient" : "fatal"); return { trace: ["picky"] }; },
    { retryPolicy: { ...quickRetry(5), retryOn: (e) => e.message === "transient" } })
  .addEdge(START, "picky").compile();
await stream(app2, { n: 1 }, {}, ["updates", "values"]);
emit(calls);
