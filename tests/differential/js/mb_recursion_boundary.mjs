// Map-reduce with Sends: START -> fan (Sends to w) -> reduce -> fin takes 4 steps; recursion
// limits 3 (fails before fin) and 4 (completes), checkpointed, with the state after each.
import { StateGraph, START, MemorySaver, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("fan", tracer("fan"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("reduce", tracer("reduce"))
  .addNode("fin", tracer("fin"))
  .addEdge(START, "fan")
  .addConditionalEdges("fan", () => [1, 2].map((n) => new Send("w", { n })))
  .addEdge("w", "reduce").addEdge("reduce", "fin")
  .compile({ checkpointer: new MemorySaver() });
for (const limit of [3, 4]) {
  await stream(app, { n: 0 }, { ...thread("t" + limit), recursionLimit: limit }, ["updates"]);
  await state(app, thread("t" + limit));
}
await stream(app, null, { ...thread("t3"), recursionLimit: 1 }, ["updates"]);
await state(app, thread("t3"));
