// update_state on the paused subgraph's own config (from get_state with subgraphs), then resume.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, history, emit, THREAD } from "./transcript.mjs";
let s1Runs = 0;
const sub = new StateGraph(TraceState)
  .addNode("s1", () => { ++s1Runs; return { trace: ["s1"] }; })
  .addNode("ask", (s) => ({ trace: ["sub:" + interrupt("q") + ":" + s.n] }))
  .addEdge(START, "s1").addEdge("s1", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const subState = (await app.getState(THREAD, { subgraphs: true })).tasks[0].state;
await state(app, subState.config);
await update(app, subState.config, { n: 7, trace: ["edited"] });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "r" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
emit({ s1Runs });
