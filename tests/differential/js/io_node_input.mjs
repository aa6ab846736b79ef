// A node's own input schema may name the graph input's own key (x), which other nodes do not
// see; the tasks parts show what each node was given.
import { StateGraph, Annotation, START } from "@langchain/langgraph";
import { invokeOut, seen, State, In, Out } from "./helpers_io.mjs";
import { stream, TraceState } from "./transcript.mjs";
const app = new StateGraph(State, { input: In, output: Out })
  .addNode("p", (s) => ({ c: "p sees " + seen(s) + " x=" + s.x }), { input: Annotation.Root({ x: Annotation(), trace: TraceState.spec.trace }) })
  .addNode("q", (s) => ({ trace: ["q sees " + seen(s)] }))
  .addEdge(START, "p").addEdge("p", "q").compile();
await invokeOut(app, { a: "a", x: "X" });
await stream(app, { a: "a", x: "X" }, {}, ["tasks"]);
