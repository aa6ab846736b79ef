// custom chunks from parallel Send tasks (two from the first: one writer per step, as parallel
// writers' chunks and results interleave differently) and from the node after them, with
// updates and tasks parts.
import { StateGraph, START, Send } from "@langchain/langgraph";
import { TraceState, stream } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s, config) => {
    if (s.n === 1) {
      config.writer({ n: 1, at: "start" });
      config.writer({ n: 1, at: "end" });
    }
    return { trace: ["w" + s.n] };
  })
  .addNode("z", (s, config) => { config.writer("z-chunk"); return { trace: ["z"] }; })
  .addConditionalEdges(START, () => [1, 2, 3].map((n) => new Send("w", { n })))
  .addEdge("w", "z").compile();
await stream(app, { n: 0 }, {}, ["custom", "updates", "tasks"]);
