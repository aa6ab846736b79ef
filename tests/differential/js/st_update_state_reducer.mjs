// update_state on reducer keys (sum, merge): without as_node (folds in, as the last node), as an
// earlier node (its edge runs next), with Overwrite, and on a new thread.
import { StateGraph, START, Annotation, MemorySaver, Overwrite } from "@langchain/langgraph";
import { append, stream, invoke, state, update, THREAD, thread } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  tags: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
});
const app = new StateGraph(State)
  .addNode("a", () => ({ total: 1, trace: ["a"] }))
  .addNode("b", (s) => ({ total: 2, tags: { b: 1 }, trace: ["b:total=" + s.total] }))
  .addEdge(START, "a").addEdge("a", "b")
  .compile({ checkpointer: new MemorySaver() });
await invoke(app, { total: 10 }, THREAD);
await update(app, THREAD, { total: 100, tags: { u: 1 } });
await state(app, THREAD);
await update(app, THREAD, { total: 1000, trace: ["ua"] }, "a");
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await update(app, THREAD, { total: new Overwrite(0), tags: { b: 2 } });
await state(app, THREAD);
await update(app, thread("t2"), { total: 4, n: null });
await state(app, thread("t2"));
