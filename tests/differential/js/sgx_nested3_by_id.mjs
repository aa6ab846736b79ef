// Three levels; the innermost has two parallel interrupting nodes, both answered at once by id.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, invoke, THREAD } from "./transcript.mjs";
const inner = new StateGraph(TraceState)
  .addNode("x", () => ({ trace: ["x:" + interrupt("for x")] }))
  .addNode("y", () => ({ trace: ["y:" + interrupt("for y")] }))
  .addEdge(START, "x").addEdge(START, "y").compile();
const mid = new StateGraph(TraceState).addNode("inner", inner).addEdge(START, "inner").compile();
const app = new StateGraph(TraceState)
  .addNode("mid", mid).addNode("z", tracer("z"))
  .addEdge(START, "mid").addEdge("mid", "z").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
await state(app, THREAD, true);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) for (const i of t.interrupts) ids[i.value] = i.id;
await stream(app, new Command({ resume: { [ids["for x"]]: "X", [ids["for y"]]: "Y" } }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
