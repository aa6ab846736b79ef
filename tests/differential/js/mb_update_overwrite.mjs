// update_state with an Overwrite of a reducer key (as a node and with no as_node), then a run.
import { StateGraph, START, MemorySaver, Overwrite } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, invoke, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
await invoke(app, { n: 1, trace: ["in"] }, THREAD);
await update(app, THREAD, { trace: new Overwrite(["fresh"]) }, "a");
await state(app, THREAD);
await update(app, THREAD, { trace: new Overwrite([]), n: 2 });
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
