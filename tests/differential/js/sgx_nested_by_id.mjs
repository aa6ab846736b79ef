// Two levels (app > sub), two parallel nodes of the subgraph interrupt; resumed by id one at a
// time, then the other.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, invoke, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: ["x:" + interrupt("for x")] }))
  .addNode("y", () => ({ trace: ["y:" + interrupt("for y")] }))
  .addEdge(START, "x").addEdge(START, "y").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) for (const i of t.interrupts) ids[i.value] = i.id;
await stream(app, new Command({ resume: { [ids["for y"]]: "Y" } }), THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await invoke(app, new Command({ resume: { [ids["for x"]]: "X" } }), THREAD);
await state(app, THREAD);
