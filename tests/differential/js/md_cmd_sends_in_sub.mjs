// Inside a subgraph a node returns Command(update of a reducer key and n, goto two Sends);
// values and updates with subgraphs.
import { StateGraph, START, MemorySaver, Command, Send } from "@langchain/langgraph";
import { TraceState, stream, state, THREAD } from "./transcript.mjs";
const sub = new StateGraph(TraceState)
  .addNode("r", () => new Command({ update: { trace: ["r"], n: 2 }, goto: [new Send("w", { n: 5 }), new Send("w", { n: 6 })] }), { ends: ["w"] })
  .addNode("w", (s) => ({ trace: ["w" + s.n] }))
  .addEdge(START, "r").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub)
  .addNode("z", (s) => ({ trace: ["z" + s.n] }))
  .addEdge(START, "sub").addEdge("sub", "z")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
