// An output schema and interrupt(): a pause before any output key was written returns only
// __interrupt__; the resume returns the output's keys (with its defaults) even when it writes
// none of them; its `values` parts show every channel.
import { StateGraph, Annotation, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { invokeOut } from "./helpers_io.mjs";
import { state, stream, thread } from "./transcript.mjs";
const State = Annotation.Root({ a: Annotation(), n: Annotation({ reducer: (x, y) => x + y, default: () => 0 }) });
const Out = Annotation.Root({ r: Annotation(), total: Annotation({ reducer: (x, y) => x + y, default: () => 100 }) });
const ask = (s) => ({ a: s.a + ":" + interrupt("ask") });
const twoStep = new StateGraph(State, { output: Out })
  .addNode("p", ask).addNode("q", (s) => ({ r: "R" + s.a, total: 5 }))
  .addEdge(START, "p").addEdge("p", "q").compile({ checkpointer: new MemorySaver() });
await invokeOut(twoStep, { a: "a" }, thread("t1"));
await invokeOut(twoStep, new Command({ resume: "v" }), thread("t1"));
await invokeOut(twoStep, { a: "b" }, thread("t2"));
await stream(twoStep, new Command({ resume: "w" }), thread("t2"), ["values", "updates"]);
await state(twoStep, thread("t2"));
const oneStep = new StateGraph(State, { output: Out })
  .addNode("p", ask).addEdge(START, "p").compile({ checkpointer: new MemorySaver() });
await invokeOut(oneStep, { a: "c" }, thread("t3"));
await invokeOut(oneStep, new Command({ resume: "u" }), thread("t3"));
await invokeOut(oneStep, null, thread("t3"));
