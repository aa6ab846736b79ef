// A subgraph with its own input and output schemas as a node: it is given the parent's state
// and keeps its input's keys (q); it hands back its output's keys the parent has (ans; not its
// own extra, nor secret, which it wrote but does not output); with subgraphs, its `values`
// parts show its output's keys only, and none for its input step.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { seen, PState, CState, CIn, COut } from "./helpers_io.mjs";
import { stream, state, history, THREAD } from "./transcript.mjs";
const child = new StateGraph(CState, { input: CIn, output: COut })
  .addNode("think", (s) => ({ scratch: "S", ans: s.q + "!", secret: "leak", trace: ["think sees " + seen(s)], extra: "E" }))
  .addEdge(START, "think").compile();
const app = new StateGraph(PState)
  .addNode("pre", () => ({ secret: "top", trace: ["pre"] }))
  .addNode("sub", child)
  .addNode("post", (s) => ({ trace: ["post sees " + seen(s)] }))
  .addEdge(START, "pre").addEdge("pre", "sub").addEdge("sub", "post")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { q: "hi" }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await history(app, THREAD);
