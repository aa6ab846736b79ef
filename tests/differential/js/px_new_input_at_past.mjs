// A new input at a past checkpoint (before b): a fork that applies the input and runs from START.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, stream, history, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b"))
  .addEdge(START, "a").addEdge("a", "b").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
let beforeB = THREAD;
for await (const s of app.getStateHistory(THREAD)) if (s.next.length === 1 && s.next[0] === "b") { beforeB = s.config; break; }
await stream(app, { n: 7, trace: ["in"] }, beforeB, ["updates", "values"]);
await history(app, THREAD);
await state(app, THREAD);
