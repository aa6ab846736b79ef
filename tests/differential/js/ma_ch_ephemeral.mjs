// An EphemeralValue key: written by a node (and by the input), read in the next step, gone the
// step after; values/updates streams, the result, get_state and history.
import { StateGraph, START, Annotation, MemorySaver } from "@langchain/langgraph";
import { EphemeralValue } from "@langchain/langgraph/channels";
import { stream, invoke, state, history, thread, append } from "./transcript.mjs";
const S = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  tmp: new EphemeralValue(),
});
const seen = (name) => (s) => ({ trace: [`${name}:tmp=${s.tmp ?? "none"}`] });
const app = new StateGraph(S)
  .addNode("a", (s) => ({ trace: [`a:tmp=${s.tmp ?? "none"}`], tmp: "from-a" }))
  .addNode("b", seen("b"))
  .addNode("c", seen("c"))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { tmp: "in" }, thread("t1"), ["values", "updates"]);
await state(app, thread("t1"));
await history(app, thread("t1"));
await invoke(app, { trace: ["again"] }, thread("t1"));
