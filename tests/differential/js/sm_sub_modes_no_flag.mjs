// Every mode but messages on a graph holding a subgraph (two parallel nodes, then one more),
// without the subgraphs flag: none of the subgraph's parts reach the stream.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("p", tracer("p")).addNode("q", tracer("q")).addNode("r", tracer("r"))
  .addEdge(START, "p").addEdge(START, "q").addEdge("p", "r").addEdge("q", "r").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values", "updates", "custom", "tasks", "checkpoints", "debug"]);
