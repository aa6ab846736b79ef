// Nodes reached by Send return a Command (update + goto): each goes to a node of its choice.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s) => new Command({ update: { trace: ["w" + s.n] }, goto: s.n === 1 ? "odd" : ["even", new Send("w2", { n: s.n * 10 })] }), { ends: ["odd", "even", "w2"] })
  .addNode("odd", tracer("odd"))
  .addNode("even", tracer("even"))
  .addNode("w2", (s) => ({ trace: ["w2:" + s.n] }))
  .addConditionalEdges(START, () => [1, 2].map((n) => new Send("w", { n })))
  .compile();
await stream(app, { n: 0 }, {}, ["updates", "values"]);
