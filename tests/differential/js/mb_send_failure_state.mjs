// One of three Send tasks fails (w2): get_state shows the step's tasks, the error and next;
// then a null resume after the cause is gone runs only w2, and reduce.
import { StateGraph, START, MemorySaver, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
let broken = true;
const runs = {};
const app = new StateGraph(TraceState)
  .addNode("w", (s) => {
    runs["w" + s.n] = (runs["w" + s.n] ?? 0) + 1;
    if (s.n === 2 && broken) throw new Error("w2 broke");
    return { trace: ["w" + s.n] };
  })
  .addNode("reduce", tracer("reduce"))
  .addConditionalEdges(START, () => [1, 2, 3].map((n) => new Send("w", { n })))
  .addEdge("w", "reduce")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 0 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
broken = false;
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ runs });
