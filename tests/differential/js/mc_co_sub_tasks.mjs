// The graph of mc_co_sub_beside streamed in tasks/checkpoints with subgraphs.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, THREAD } from "./transcript.mjs";
import { coTrace } from "./co_helpers.mjs";
const build = (checkpointer) => {
  const sub = new StateGraph(TraceState)
    .addNode("sc", coTrace("sc", 80)).addNode("sp", tracer("sp")).addNode("sj", tracer("sj"))
    .addEdge(START, "sc").addEdge(START, "sp").addEdge("sc", "sj").addEdge("sp", "sj").compile();
  return new StateGraph(TraceState)
    .addNode("pc", coTrace("pc", 30)).addNode("sub", sub).addNode("z", tracer("z"))
    .addEdge(START, "pc").addEdge(START, "sub").addEdge("pc", "z").addEdge("sub", "z").compile({ checkpointer });
};
await stream(build(new MemorySaver()), { n: 1 }, THREAD, ["tasks", "checkpoints"], { subgraphs: true });
await stream(build(undefined), { n: 1 }, {}, ["tasks"], { subgraphs: true });
