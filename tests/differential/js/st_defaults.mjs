// Reducer keys' defaults (append, sum, merge, a custom join) on an empty input and an input
// folded into them; a LastValue key without default stays absent until written.
import { StateGraph, START, Annotation } from "@langchain/langgraph";
import { append, stream, invoke } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => ["seed"] }),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 5 }),
  tags: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({ k: "v" }) }),
  log: Annotation({ reducer: (a, b) => a + "|" + b, default: () => "start" }),
  n: Annotation(),
});
const keys = (s) => Object.keys(s).sort().join(",");
const app = new StateGraph(State)
  .addNode("a", (s) => ({ trace: ["a:" + keys(s) + ":" + s.total + ":" + s.log], total: 1 }))
  .addEdge(START, "a")
  .compile();
await stream(app, {}, {}, ["updates", "values"]);
await invoke(app, { total: 1, tags: { x: 1 }, log: "in", trace: ["t"], n: 0 });
