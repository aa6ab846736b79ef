// A subgraph node returns Command(graph=PARENT, goto=[Send, node]) with an update: the parent
// runs the Send and the node next; the subgraph's own later nodes do not run.
import { StateGraph, START, MemorySaver, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("s1", tracer("s1"))
  .addNode("jump", () => new Command({ graph: Command.PARENT, update: { trace: ["jump"] }, goto: [new Send("w", { n: 7 }), "p"] }))
  .addNode("s3", tracer("s3"))
  .addEdge(START, "s1").addEdge("s1", "jump").addEdge("jump", "s3").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub, { ends: ["w", "p"] })
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("p", tracer("p"))
  .addNode("after", tracer("after"))
  .addEdge(START, "sub").addEdge("sub", "after").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
