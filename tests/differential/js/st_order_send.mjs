// The order a non-commutative reducer folds a step's writes when Send tasks (sent 3, 1, 2) run
// beside pulled nodes (added q before p), then a join reading the result.
import { StateGraph, START, Annotation, Send } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
const State = Annotation.Root({
  trace: Annotation({ reducer: append, default: () => [] }),
  n: Annotation(),
  log: Annotation({ reducer: (a, b) => a + "|" + b, default: () => "" }),
});
const app = new StateGraph(State)
  .addNode("w", (s) => ({ log: "w" + s.n }))
  .addNode("p", () => ({ log: "p" }))
  .addNode("q", () => ({ log: "q" }))
  .addNode("z", (s) => ({ trace: ["z:" + s.log] }))
  .addConditionalEdges(START, () => [3, 1, 2].map((n) => new Send("w", { n })))
  .addEdge(START, "q").addEdge(START, "p")
  .addEdge(["p", "q"], "z")
  .compile();
await stream(app, { n: 0 }, {}, ["updates", "values"]);
