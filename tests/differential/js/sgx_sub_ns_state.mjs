// get_state and get_state_history on a paused subgraph's namespace (its state config).
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, invoke, state, history, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1")).addNode("s2", tracer("s2"))
  .addNode("ask", () => ({ trace: ["sub:" + interrupt("q")] }))
  .addEdge(START, "s1").addEdge("s1", "s2").addEdge("s2", "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub)
  .addEdge(START, "a").addEdge("a", "sub").compile({ checkpointer: new MemorySaver() });
await invoke(app, { n: 1 }, THREAD);
const t = (await app.getState(THREAD)).tasks[0];
const nsConfig = { configurable: { thread_id: "t1", checkpoint_ns: t.state.configurable.checkpoint_ns } };
await state(app, nsConfig);
await history(app, nsConfig);
await invoke(app, new Command({ resume: "r" }), THREAD);
await state(app, THREAD, true);
