// The recursion limit with parallel branches of different lengths: which steps run before
// GraphRecursionError; then the same graph paused before a node and resumed under a small limit.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, thread } from "./transcript.mjs";
const g = new StateGraph(TraceState);
for (const n of ["a", "a2", "a3", "a4", "b", "b2"]) g.addNode(n, tracer(n));
g.addEdge(START, "a").addEdge(START, "b").addEdge("a", "a2").addEdge("a2", "a3").addEdge("a3", "a4").addEdge("b", "b2");
const plain = g.compile();
await stream(plain, { n: 1 }, { recursionLimit: 3 }, ["updates"]);
await stream(plain, { n: 1 }, { recursionLimit: 4 }, ["updates"]);
const app = g.compile({ checkpointer: new MemorySaver(), interruptBefore: ["a2"] });
await stream(app, { n: 1 }, thread("t1"), ["updates"]);
await stream(app, null, { ...thread("t1"), recursionLimit: 2 }, ["updates"]);
await state(app, thread("t1"));
await stream(app, { n: 1 }, thread("t2"), ["updates"]);
await stream(app, null, { ...thread("t2"), recursionLimit: 1 }, ["updates"]);
await state(app, thread("t2"));
