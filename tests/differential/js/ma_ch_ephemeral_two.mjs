// Two parallel writes to an EphemeralValue key (guarded): an InvalidUpdateError.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { EphemeralValue } from "@langchain/langgraph/channels";
import { stream, append } from "./transcript.mjs";
const S = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  tmp: new EphemeralValue(),
});
const app = new StateGraph(S)
  .addNode("a", () => ({ tmp: "a" }))
  .addNode("b", () => ({ tmp: "b" }))
  .addEdge(START, "a").addEdge(START, "b")
  .compile();
await stream(app, { trace: [] }, {}, ["values", "updates"]);
