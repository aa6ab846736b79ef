// A subgraph that writes none of its output's keys hands its parent nothing: the parent's
// update is empty.
import { StateGraph, Annotation, START } from "@langchain/langgraph";
import { PState, CState, invokeOut } from "./helpers_io.mjs";
import { stream } from "./transcript.mjs";
const child = new StateGraph(CState, { output: Annotation.Root({ extra: Annotation() }) })
  .addNode("think", () => ({ scratch: "S", ans: "unseen" })).addEdge(START, "think").compile();
const app = new StateGraph(PState).addNode("sub", child).addNode("z", () => ({ trace: ["z"] }))
  .addEdge(START, "sub").addEdge("sub", "z").compile();
await stream(app, { q: "hi" }, {}, ["updates", "values"], { subgraphs: true });
await invokeOut(app, { q: "hi" });
await invokeOut(child, { q: "direct" });
