// updateState(null, "__copy__") at a past checkpoint: a fork with the same values and next,
// continued with null input; the newest history entries.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, invoke, stream, history, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("b", tracer("b")).addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
let beforeB = THREAD;
for await (const s of app.getStateHistory(THREAD)) if (s.next.length === 1 && s.next[0] === "b") { beforeB = s.config; break; }
const copied = await update(app, beforeB, null, "__copy__");
if (copied) await state(app, copied);
if (copied) await stream(app, null, copied, ["updates"]);
await history(app, THREAD, { limit: 4 });
