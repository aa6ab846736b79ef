// Node caching: a node with a cache policy in a graph compiled with a cache runs once per input;
// a hit streams its update marked cached (and its task start, no task result); a Send task is
// cached by its argument; clearCache makes it run again.
import { StateGraph, START, END, Send } from "@langchain/langgraph";
import { InMemoryCache } from "@langchain/langgraph-checkpoint";
import { stream, note, TraceState } from "./transcript.mjs";
let runs = [];
const app = new StateGraph(TraceState)
  .addNode("slow", (s) => { runs.push(`slow:${s.n}`); return { trace: [`slow${s.n}`] }; }, { cachePolicy: {} })
  .addNode("fan", (a) => { runs.push(`fan:${a.i}`); return { trace: [`fan${a.i}`] }; }, { cachePolicy: {} })
  .addNode("after", () => ({ trace: ["after"] }))
  .addEdge(START, "slow")
  .addConditionalEdges("slow", (s) => [new Send("fan", { i: s.n }), new Send("fan", { i: 9 })], ["fan"])
  .addEdge("fan", "after").addEdge("after", END)
  .compile({ cache: new InMemoryCache() });
for (const n of [1, 1, 2]) {
  await stream(app, { n }, {}, ["updates", "tasks", "values"]);
  note(runs.sort().join(",")); // sorted: the two Send tasks of one step may run in either order
  runs = [];
}
await app.clearCache();
await stream(app, { n: 1 }, {}, ["updates"]);
note(runs.sort().join(","));
