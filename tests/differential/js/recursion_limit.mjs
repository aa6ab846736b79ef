// A loop of 5 supersteps (the __start__ step and 4 of a): limit 5 succeeds, limit 4 fails.
import { StateGraph, START, END } from "@langchain/langgraph";
import { TraceState, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", (s) => ({ n: s.n + 1 }))
  .addEdge(START, "a")
  .addConditionalEdges("a", (s) => (s.n >= 4 ? END : "a"))
  .compile();
await invoke(app, { n: 0 }, { recursionLimit: 5 });
await stream(app, { n: 0 }, { recursionLimit: 4 }, ["updates"]);
