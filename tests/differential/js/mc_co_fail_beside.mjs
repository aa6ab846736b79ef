// An async node still sleeping when a sibling fails: what is streamed, without and with a
// checkpointer.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
import { sleep, coTrace } from "./co_helpers.mjs";
const build = (checkpointer) => new StateGraph(TraceState)
  .addNode("slow", coTrace("slow", 60))
  .addNode("boom", async () => { await sleep(5); throw new Error("boom after await"); })
  .addNode("z", tracer("z"))
  .addEdge(START, "slow").addEdge(START, "boom").addEdge(["slow", "boom"], "z").compile({ checkpointer });
await stream(build(undefined), { n: 1 }, {}, ["updates", "custom"]);
const app = build(new MemorySaver());
await stream(app, { n: 1 }, THREAD, ["updates"]);
await state(app, THREAD);
