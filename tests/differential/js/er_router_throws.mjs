// A router (conditional edge of a) that throws on its first call, beside a parallel node b:
// the error, what the thread stored, and a resume with null input (the router then goes to c).
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
const calls = {};
const bump = (k) => (calls[k] = (calls[k] ?? 0) + 1);
const app = new StateGraph(TraceState)
  .addNode("a", () => { bump("a"); return { trace: ["a"] }; })
  .addNode("b", () => { bump("b"); return { trace: ["b"] }; })
  .addNode("c", tracer("c"))
  .addEdge(START, "a").addEdge(START, "b")
  .addConditionalEdges("a", () => { if (bump("router") === 1) throw new Error("router boom"); return "c"; })
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
emit({ calls });
await state(app, THREAD);
emit({ calls });
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ calls });
