// Async nodes returning Commands: goto with update, and Command(PARENT) from inside a subgraph
// while a slower async sibling runs.
import { StateGraph, START, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
import { sleep, coQuiet } from "./co_helpers.mjs";
const sub = new StateGraph(TraceState)
  .addNode("slow", coQuiet("slow", 60))
  .addNode("jump", async () => { await sleep(10); return new Command({ update: { trace: ["jump"] }, goto: "p", graph: Command.PARENT }); })
  .addNode("after_slow", tracer("after_slow"))
  .addEdge(START, "slow").addEdge(START, "jump").addEdge("slow", "after_slow").compile();
const app = new StateGraph(TraceState)
  .addNode("r", async () => { await sleep(5); return new Command({ update: { trace: ["r"], n: 2 }, goto: "sub" }); }, { ends: ["sub"] })
  .addNode("sub", sub, { ends: ["p"] })
  .addNode("p", tracer("p")).addNode("after", tracer("after"))
  .addEdge(START, "r").addEdge("sub", "after").compile();
await stream(app, { n: 1 }, {}, ["updates", "values"], { subgraphs: true });
await invoke(app, { n: 1 });
