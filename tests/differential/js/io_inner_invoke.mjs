// A graph with input and output schemas invoked inside a node: it takes its input's keys of
// what it is given and returns its output's keys.
import { StateGraph, START } from "@langchain/langgraph";
import { seen, PState, CState, CIn, COut, invokeOut } from "./helpers_io.mjs";
import { stream } from "./transcript.mjs";
const child = new StateGraph(CState, { input: CIn, output: COut })
  .addNode("think", (s) => ({ ans: s.q + "!", trace: ["think sees " + seen(s)], extra: "E" }))
  .addEdge(START, "think").compile();
const app = new StateGraph(PState)
  .addNode("call", async (s, config) => {
    const out = await child.invoke({ q: s.q, secret: "ignored", ans: "ignored" }, config);
    return { ans: JSON.stringify(out), trace: ["call"] };
  })
  .addEdge(START, "call").compile();
await invokeOut(app, { q: "hi" });
await stream(app, { q: "hi" }, {}, ["updates", "values"], { subgraphs: true });
