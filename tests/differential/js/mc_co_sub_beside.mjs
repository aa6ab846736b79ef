// An async node beside a subgraph holding an async node beside a plain one, streamed with
// subgraphs in updates/values/custom, checkpointed (state, history) and not.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
import { coTrace } from "./co_helpers.mjs";
const build = (checkpointer) => {
  const sub = new StateGraph(TraceState)
    .addNode("sc", coTrace("sc", 80)).addNode("sp", tracer("sp")).addNode("sj", tracer("sj"))
    .addEdge(START, "sc").addEdge(START, "sp").addEdge("sc", "sj").addEdge("sp", "sj").compile();
  return new StateGraph(TraceState)
    .addNode("pc", coTrace("pc", 30)).addNode("sub", sub).addNode("z", tracer("z"))
    .addEdge(START, "pc").addEdge(START, "sub").addEdge("pc", "z").addEdge("sub", "z").compile({ checkpointer });
};
const app = build(new MemorySaver());
await stream(app, { n: 1 }, THREAD, ["updates", "values", "custom"], { subgraphs: true });
await state(app, THREAD, true);
await history(app, THREAD);
const plain = build(undefined);
await stream(plain, { n: 1 }, {}, ["updates", "custom"], { subgraphs: true });
await stream(plain, { n: 1 }, {}, ["updates", "values"]);
