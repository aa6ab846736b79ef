// A deferred node after a Send fan-out, with a longer branch beside the workers: it runs once,
// after everything else.
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("fan", tracer("fan"))
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addNode("long1", tracer("long1")).addNode("long2", tracer("long2"))
  .addNode("final", tracer("final"), { defer: true })
  .addEdge(START, "fan")
  .addConditionalEdges("fan", () => [new Send("w", { n: 1 }), new Send("w", { n: 2 }), "long1"])
  .addEdge("long1", "long2").addEdge("long2", "final").addEdge("w", "final")
  .compile();
await stream(app, { n: 0 }, {}, ["updates", "values"]);
