// Two parallel nodes pause and are resumed at once with a map id -> value.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: ["x:" + interrupt("for x")] }))
  .addNode("y", () => ({ trace: ["y:" + interrupt("for y")] }))
  .addNode("z", tracer("z"))
  .addNode("j", tracer("j"))
  .addEdge(START, "x").addEdge(START, "y").addEdge(START, "z").addEdge(["x", "y"], "j")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) if (t.interrupts.length) ids[t.name] = t.interrupts[0].id;
await stream(app, new Command({ resume: { [ids.x]: "X", [ids.y]: "Y" } }), THREAD, ["updates", "values"]);
await state(app, THREAD);
