// A node writes a custom chunk and then throws, beside a sibling writing one: the chunks
// already written are streamed before the error (custom with updates); then alone in its step
// after a node (custom, values). (With a sibling, LangGraph.js aborts it: timing; with tasks,
// LangGraph.js drops the parts still queued when the run fails.)
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const writer = (name, chunk) => (s, config) => { config.writer(chunk); return { trace: [name] }; };
const app = new StateGraph(TraceState)
  .addNode("ok", writer("ok", "ok-chunk"))
  .addNode("bad", (s, config) => { config.writer({ bad: "before failing" }); throw new Error("bad failed"); })
  .addNode("after", tracer("after"))
  .addEdge(START, "ok").addEdge(START, "bad").addEdge("ok", "after").compile();
await stream(app, { n: 1 }, {}, ["custom", "updates"]);
const app2 = new StateGraph(TraceState)
  .addNode("a", writer("a", "a-chunk"))
  .addNode("bad", (s, config) => { config.writer("bad chunk"); throw new Error("bad failed"); })
  .addEdge(START, "a").addEdge("a", "bad").compile();
await stream(app2, { n: 1 }, {}, ["custom", "values"]);
