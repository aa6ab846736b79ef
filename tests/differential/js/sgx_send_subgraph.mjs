// Sends to a subgraph node whose input key (item) the parent lacks; one of the subgraph runs
// interrupts; resume.
import { StateGraph, START, MemorySaver, interrupt, Command, Send, Annotation } from "@langchain/langgraph";
import { TraceState, append, stream, state, THREAD } from "./transcript.mjs";
const SubState = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  item: Annotation(),
});
const sub = new StateGraph(SubState)
  .addNode("w", (s) => {
    if (s.item === 2) return { trace: ["w2:" + interrupt("need 2")] };
    return { trace: ["w" + s.item] };
  })
  .addEdge(START, "w").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub)
  .addConditionalEdges(START, () => [1, 2, 3].map((item) => new Send("sub", { item })))
  .compile({ checkpointer: new MemorySaver() });
// (Parallel subgraph runs interleave their parts differently: only the parent's are streamed.)
await stream(app, { n: 0 }, THREAD, ["updates"]);
await state(app, THREAD, true);
await stream(app, new Command({ resume: "ok" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
