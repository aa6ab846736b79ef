// update_state on a paused subgraph's own config with asNode naming a subgraph node (s1, then
// ask itself): what next, tasks and the resume do.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, THREAD, thread } from "./transcript.mjs";
const build = () => {
  const sub = new StateGraph(TraceState)
    .addNode("s1", tracer("s1"))
    .addNode("ask", (s) => ({ trace: ["ask:" + interrupt("q") + ":" + s.n] }))
    .addNode("s3", tracer("s3"))
    .addEdge(START, "s1").addEdge("s1", "ask").addEdge("ask", "s3").compile();
  return new StateGraph(TraceState)
    .addNode("sub", sub).addNode("z", tracer("z"))
    .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
};
for (const [tid, asNode] of [["t1", "s1"], ["t2", "ask"]]) {
  const app = build();
  await stream(app, { n: 1 }, thread(tid), ["updates"]);
  const subState = (await app.getState(thread(tid), { subgraphs: true })).tasks[0].state;
  await update(app, subState.config, { n: 5, trace: ["edit"] }, asNode);
  await state(app, thread(tid), true);
  await stream(app, new Command({ resume: "r" }), thread(tid), ["updates", "values"], { subgraphs: true });
  await state(app, thread(tid));
}
