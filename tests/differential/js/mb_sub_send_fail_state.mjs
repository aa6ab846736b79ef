// Sends to a subgraph node; one subgraph run fails inside: get_state with subgraphs (tasks,
// error, next), then a null resume after the cause is gone.
import { StateGraph, START, MemorySaver, Send, Annotation } from "@langchain/langgraph";
import { TraceState, append, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
let broken = true;
const runs = {};
const SubState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const sub = new StateGraph(SubState)
  .addNode("w", (s) => {
    runs["w" + s.item] = (runs["w" + s.item] ?? 0) + 1;
    if (s.item === 2 && broken) throw new Error("sub w2 broke");
    return { trace: ["w" + s.item] };
  })
  .addEdge(START, "w").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub).addNode("z", tracer("z"))
  .addConditionalEdges(START, () => [1, 2, 3].map((item) => new Send("sub", { item })))
  .addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, THREAD, ["updates"]);
await state(app, THREAD, true);
broken = false;
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ runs });
