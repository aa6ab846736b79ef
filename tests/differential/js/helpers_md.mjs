// Graphs shared by the md_* scenarios (twins of the helpers in ../more_areas4.cpp).
import { StateGraph, START, Send, interrupt } from "@langchain/langgraph";
import { TraceState, tracer } from "./transcript.mjs";

// s1<tag> -> ask<tag> (interrupts with "q<tag>", records the answer and n) -> s3<tag>. Without
// showN the nodes do not record n (sibling subgraphs leave n unset: both would write it back).
export const askSub = (tag, showN = true) => new StateGraph(TraceState)
  .addNode("s1", tracer("s1" + tag))
  .addNode("ask", (s) => ({ trace: ["ask" + tag + ":" + interrupt("q" + tag) + (showN ? ":" + s.n : "")] }))
  .addNode("s3", (s) => ({ trace: ["s3" + tag + (showN ? ":" + s.n : "")] }))
  .addEdge(START, "s1").addEdge("s1", "ask").addEdge("ask", "s3").compile();

export const twoSubs = () => new StateGraph(TraceState)
  .addNode("sa", askSub("A", false)).addNode("sb", askSub("B", false)).addNode("z", tracer("z"))
  .addEdge(START, "sa").addEdge(START, "sb").addEdge("sa", "z").addEdge("sb", "z");

// root: a -> mid -> z; mid: m1 -> inner -> m3; inner = askSub("I").
export const nested2 = (opts) => {
  const mid = new StateGraph(TraceState)
    .addNode("m1", tracer("m1")).addNode("inner", askSub("I")).addNode("m3", tracer("m3"))
    .addEdge(START, "m1").addEdge("m1", "inner").addEdge("inner", "m3").compile();
  return new StateGraph(TraceState)
    .addNode("a", tracer("a")).addNode("mid", mid).addNode("z", tracer("z"))
    .addEdge(START, "a").addEdge("a", "mid").addEdge("mid", "z").compile(opts);
};

export const sendGraph = () => new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("w", "z")
  .addConditionalEdges("a", () => [new Send("w", { n: 1 }), new Send("w", { n: 2 })]);

export async function idsByValue(app, config) {
  const ids = {};
  for (const t of (await app.getState(config)).tasks) for (const i of t.interrupts) ids[i.value] = i.id;
  return ids;
}
