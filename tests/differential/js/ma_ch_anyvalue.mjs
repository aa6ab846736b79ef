// An AnyValue key: two parallel writers (no error, one value kept), read next step, cleared
// when a step writes none; plus an UntrackedValue key: in values and results, not in
// checkpoints (get_state, history, a later run on the thread).
import { StateGraph, START, Annotation, MemorySaver } from "@langchain/langgraph";
import { AnyValue, UntrackedValueChannel } from "@langchain/langgraph/channels";
import { stream, state, history, invoke, thread, append } from "./transcript.mjs";
const S = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  any: new AnyValue(),
  u: new UntrackedValueChannel(),
});
const seen = (name, extra = {}) => (s) => ({ trace: [`${name}:any=${s.any ?? "none"}:u=${s.u ?? "none"}`], ...extra });
const app = new StateGraph(S)
  .addNode("a", seen("a", { any: "xa", u: "ua" }))
  .addNode("b", seen("b", { any: "xb" }))
  .addNode("c", seen("c"))
  .addNode("d", seen("d"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(["a", "b"], "c").addEdge("c", "d")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, {}, thread("t1"), ["values", "updates"]);
await state(app, thread("t1"));
await history(app, thread("t1"));
await invoke(app, { trace: ["again"] }, thread("t1"));
