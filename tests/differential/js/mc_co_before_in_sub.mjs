// interruptBefore an async node inside a subgraph (the subgraph's compile option), resumed.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
import { coTrace, coQuiet } from "./co_helpers.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", coQuiet("s1", 5)).addNode("s2", coTrace("s2", 5))
  .addEdge(START, "s1").addEdge("s1", "s2").compile({ interruptBefore: ["s2"] });
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("pc", coQuiet("pc", 100)).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge(START, "pc").addEdge(["sub", "pc"], "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values", "custom"], { subgraphs: true });
await state(app, THREAD);
