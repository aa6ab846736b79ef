// invoke returns nothing when the run never wrote an output key (defaults do not count), and
// the output's keys as the last step that wrote one left them.
import { StateGraph, Annotation, START } from "@langchain/langgraph";
import { invokeOut } from "./helpers_io.mjs";
const State = Annotation.Root({ a: Annotation(), n: Annotation({ reducer: (x, y) => x + y, default: () => 0 }) });
const Out = Annotation.Root({ r: Annotation(), total: Annotation({ reducer: (x, y) => x + y, default: () => 100 }) });
const never = new StateGraph(State, { output: Out }).addNode("p", () => ({ a: "A", n: 1 })).addEdge(START, "p").compile();
await invokeOut(never, { a: "x" });
const early = new StateGraph(State, { output: Out })
  .addNode("p", () => ({ r: "R" })).addNode("q", () => ({ a: "Q", n: 2 }))
  .addEdge(START, "p").addEdge("p", "q").compile();
await invokeOut(early, { a: "x" });
const fromInput = new StateGraph(State, { output: Annotation.Root({ a: Annotation() }) })
  .addNode("p", () => ({ n: 1 })).addEdge(START, "p").compile();
await invokeOut(fromInput, { a: "x" });
await invokeOut(fromInput, { n: 5 });
