// The recursion limit inside a subgraph (a loop of 5 steps with its __start__ step): the
// parent's limit applies to the subgraph's own steps; 5 passes, 4 fails (invoke and stream).
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("loop", (s) => ({ n: s.n + 1, trace: ["loop" + s.n] }))
  .addEdge(START, "loop")
  .addConditionalEdges("loop", (s) => (s.n >= 4 ? END : "loop"))
  .compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile();
await invoke(app, { n: 0 }, { recursionLimit: 5 });
await invoke(app, { n: 0 }, { recursionLimit: 4 });
await stream(app, { n: 1 }, { recursionLimit: 4 }, ["updates"]);
