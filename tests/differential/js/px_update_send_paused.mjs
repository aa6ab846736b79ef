// updateState as node "w" while one of two Send tasks to w is paused, then null input.
import { StateGraph, START, MemorySaver, interrupt, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s) => ({ trace: [s.n === 2 ? "w2:" + interrupt("need 2") : "w" + s.n] }))
  .addNode("z", tracer("z"))
  .addConditionalEdges(START, () => [new Send("w", { n: 1 }), new Send("w", { n: 2 })])
  .addEdge("w", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, THREAD, ["updates"]);
await update(app, THREAD, { trace: ["manual"] }, "w");
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
