// invoke/stream with null input on a thread that has no checkpoint, with and without a
// checkpointer.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke, state, thread } from "./transcript.mjs";
const g = new StateGraph(TraceState).addNode("a", tracer("a")).addEdge(START, "a");
const app = g.compile({ checkpointer: new MemorySaver() });
await invoke(app, null, thread("fresh"));
await stream(app, null, thread("fresh2"), ["updates", "values"]);
await state(app, thread("fresh"));
await invoke(g.compile(), null);
