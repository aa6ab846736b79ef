// An interrupt in one of several parallel Send tasks; resumed by value.
// The paused task's `updates` part and the `values` part repeating its interrupts come together
// (no sibling's part between them), as LangGraph.js. A Send's path: expected/send_interrupt.diff.
import { StateGraph, START, MemorySaver, interrupt, Command, Send } from "@langchain/langgraph";
import { TraceState, stream, state, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s) => ({ trace: [s.n === 2 ? "w2:" + interrupt("need input for 2") : "w" + s.n] }))
  .addConditionalEdges(START, () => [1, 2, 3].map((n) => new Send("w", { n })))
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values"]);
