// updateState on a new thread without asNode: the values seed it (as START); then continue it.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addEdge(START, "a").compile({ checkpointer: new MemorySaver() });
await update(app, THREAD, { n: 7 });
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await history(app, THREAD);
