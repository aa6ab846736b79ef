// A node with two interrupts answered one at a time, with getState between (the second
// interrupt shown once the first is answered) and the history at the end.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("form", () => {
    const name = interrupt("name?");
    const age = JSON.stringify(interrupt("age?"));
    return { trace: [name + "/" + age] };
  })
  .addNode("after", tracer("after"))
  .addEdge(START, "form").addEdge("form", "after").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "ada" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: 36 }), THREAD, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
