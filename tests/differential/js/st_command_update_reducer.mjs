// A reducer key written by a node's Command.update beside a plain parallel writer, then by the
// node its goto leads to; and by a Command input's update.
import { StateGraph, START, Annotation, Command } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
});
const app = new StateGraph(State)
  .addNode("a", () => new Command({ update: { total: 5, trace: ["a"] }, goto: "c" }), { ends: ["c"] })
  .addNode("b", () => ({ total: 7, trace: ["b"] }))
  .addNode("c", (s) => ({ trace: ["c:total=" + s.total], total: 100 }))
  .addEdge(START, "a").addEdge(START, "b")
  .compile();
await stream(app, { total: 1 }, {}, ["updates", "values"]);
await stream(app, new Command({ update: { total: 3, trace: ["cmd"] }, goto: "c" }), {}, ["updates", "values"]);
