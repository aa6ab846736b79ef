// Two parallel nodes pause; they are resumed by interrupt id, one at a time.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, stream, state, invoke, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: ["x:" + interrupt("for x")] }))
  .addNode("y", () => ({ trace: ["y:" + interrupt("for y")] }))
  .addEdge(START, "x").addEdge(START, "y").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await state(app, THREAD);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) ids[t.name] = t.interrupts[0].id;
await stream(app, new Command({ resume: { [ids.y]: "Y" } }), THREAD, ["updates"]);
await state(app, THREAD);
await invoke(app, new Command({ resume: { [ids.x]: "X" } }), THREAD);
