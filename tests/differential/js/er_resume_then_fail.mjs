// A node that fails after its interrupt was answered: the resume fails (state after it), then
// a second Command resume with another value (which answer does the interrupt get?).
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
const calls = {};
const bump = (k) => (calls[k] = (calls[k] ?? 0) + 1);
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a"))
  .addNode("ask", () => {
    bump("ask");
    const v = interrupt("q");
    if (bump("answered") === 1) throw new Error("failed after " + v);
    return { trace: ["ask:" + v] };
  })
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ calls });
await stream(app, new Command({ resume: "again" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ calls });
