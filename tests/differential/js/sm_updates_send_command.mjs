// updates and values parts of a node whose Command goes to two Sends to one node and a plain
// node, the Send tasks returning Commands with a further Send to themselves.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("a", () => new Command({ update: { trace: ["a"] }, goto: [new Send("w", { n: 1 }), new Send("w", { n: 2 }), "b"] }),
    { ends: ["w", "b"] })
  .addNode("w", (s) => {
    if (s.n < 10) return new Command({ update: { trace: ["w" + s.n] }, goto: new Send("w", { n: s.n * 10 }) });
    return { trace: ["w" + s.n] };
  }, { ends: ["w"] })
  .addNode("b", tracer("b"))
  .addEdge(START, "a").compile();
await stream(app, { n: 0 }, {}, ["updates", "values"]);
