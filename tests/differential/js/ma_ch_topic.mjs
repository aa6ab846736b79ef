// A Topic key (not accumulating): the values written in one step (parallel writers, lists
// flattened), cleared when a step writes none; values stream, get_state and history.
import { StateGraph, START, Annotation, MemorySaver } from "@langchain/langgraph";
import { Topic } from "@langchain/langgraph/channels";
import { stream, state, history, thread, append } from "./transcript.mjs";
const S = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  ev: new Topic(),
});
const seen = (name, extra = {}) => (s) => ({ trace: [`${name}:ev=${JSON.stringify(s.ev ?? null)}`], ...extra });
const app = new StateGraph(S)
  .addNode("a", seen("a", { ev: "a1" }))
  .addNode("b", seen("b", { ev: ["b1", ["b2"]] }))
  .addNode("c", seen("c", { ev: "c1" }))
  .addNode("d", seen("d"))
  .addNode("e", seen("e"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(["a", "b"], "c").addEdge("c", "d").addEdge("d", "e")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { ev: "in" }, thread("t1"), ["values", "updates"]);
await state(app, thread("t1"));
await history(app, thread("t1"));
