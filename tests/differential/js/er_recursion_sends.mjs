// The recursion limit with Sends that Send again (w1 -> w2 -> w3, w2 -> w3: 4 steps) at limits
// 1, 3 and 4; and a one-node chain at recursion limit 1 and 2.
import { StateGraph, START, Command, Send } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s) => {
    const up = { trace: ["w" + s.n] };
    return s.n < 3 ? new Command({ update: up, goto: new Send("w", { n: s.n + 1 }) }) : up;
  })
  .addConditionalEdges(START, () => [new Send("w", { n: 1 }), new Send("w", { n: 2 })])
  .compile();
for (const limit of [1, 3, 4]) await stream(app, { n: 0 }, { recursionLimit: limit }, ["updates"]);
const one = new StateGraph(TraceState).addNode("a", tracer("a")).addEdge(START, "a").compile();
await invoke(one, { n: 0 }, { recursionLimit: 1 });
await invoke(one, { n: 0 }, { recursionLimit: 2 });
