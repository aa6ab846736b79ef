// Two Sends writing the LastValue key n in one step; a Send and a pulled node both writing it;
// a Send writing it beside a pulled node that does not (no conflict).
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const writer = (s) => ({ n: s.n * 10, trace: ["w" + s.n] });
const g = new StateGraph(TraceState)
  .addNode("w", writer)
  .addConditionalEdges(START, () => [new Send("w", { n: 1 }), new Send("w", { n: 2 })])
  .compile();
await stream(g, { n: 0 }, {}, ["updates", "values"]);
const m = new StateGraph(TraceState)
  .addNode("p", () => ({ n: 7, trace: ["p"] })).addNode("w", writer)
  .addConditionalEdges(START, () => [new Send("w", { n: 1 }), "p"])
  .compile();
await stream(m, { n: 0 }, {}, ["updates", "values"]);
const k = new StateGraph(TraceState)
  .addNode("p", tracer("p")).addNode("w", writer)
  .addConditionalEdges(START, () => [new Send("w", { n: 1 }), "p"])
  .compile();
await stream(k, { n: 0 }, {}, ["updates", "values"]);
