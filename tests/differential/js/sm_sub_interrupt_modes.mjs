// values, updates, custom and tasks with subgraphs while a subgraph's node (beside a parallel
// sibling) writes a chunk and interrupts; the resume (values, updates, custom) writes it again
// and another. (Tasks not on the resume: docs/persistence.md, no task part for a finished task.)
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("p", tracer("p"))
  .addNode("ask", (s, config) => {
    config.writer("before ask");
    const v = interrupt("sub q");
    config.writer("after ask " + v);
    return { trace: ["ask:" + v] };
  })
  .addNode("r", tracer("r"))
  .addEdge(START, "p").addEdge(START, "ask").addEdge("p", "r").addEdge("ask", "r").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values", "updates", "custom", "tasks"], { subgraphs: true });
await stream(app, new Command({ resume: "yes" }), THREAD, ["values", "updates", "custom"], { subgraphs: true });
await state(app, THREAD);
