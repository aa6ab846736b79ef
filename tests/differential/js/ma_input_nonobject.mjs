// Inputs that are not objects (a string, a number, an array) and nodes returning a string, a
// number, an array of plain values.
import { StateGraph, START } from "@langchain/langgraph";
import { invoke, emit, TraceState, tracer } from "./transcript.mjs";
const app = new StateGraph(TraceState).addNode("a", tracer("a")).addEdge(START, "a").compile();
for (const input of ["hello", 42, [1, 2]]) {
  emit({ input });
  await invoke(app, input);
}
for (const out of ["str", 5, ["x"]]) {
  const bad = new StateGraph(TraceState).addNode("a", () => out).addEdge(START, "a").compile();
  emit({ returns: out });
  await invoke(bad, { n: 1 });
}
