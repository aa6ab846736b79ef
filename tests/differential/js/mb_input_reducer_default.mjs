// A schema of reducer keys (a list append, a sum with default 10) and a plain key with a
// default: inputs with only reducer keys, with none, and an empty object; values parts.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream, invoke } from "./transcript.mjs";
const S = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 10 }),
  mode: Annotation({ value: (_a, b) => b, default: () => "dflt" }),
});
const app = new StateGraph(S)
  .addNode("a", (s) => ({ trace: ["a:" + s.mode + ":" + s.total], total: 1 }))
  .addEdge(START, "a").compile();
await stream(app, { trace: ["in"], total: 5 }, {}, ["values", "updates"]);
await stream(app, { trace: ["in"] }, {}, ["values"]);
await stream(app, {}, {}, ["values", "updates"]);
await invoke(app, { total: 0, mode: "given" });
