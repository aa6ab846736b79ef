// A subgraph with input and output schemas pauses inside: the parent returns its own state and
// __interrupt__; the subgraph's state holds its input; the resume streams the subgraph's output
// view ({} before it writes one) and hands back its output.
import { StateGraph, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { PState, CState, CIn, COut, invokeOut } from "./helpers_io.mjs";
import { stream, state, THREAD } from "./transcript.mjs";
const child = new StateGraph(CState, { input: CIn, output: COut })
  .addNode("ask", (s) => ({ ans: s.q + ":" + interrupt("q?"), scratch: "z" }))
  .addEdge(START, "ask").compile();
const app = new StateGraph(PState).addNode("sub", child).addEdge(START, "sub")
  .compile({ checkpointer: new MemorySaver() });
await invokeOut(app, { q: "x" }, THREAD);
await state(app, THREAD, true);
await stream(app, new Command({ resume: "R" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
