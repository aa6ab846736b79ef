// Node caching with a checkpointer: a second thread's run takes the first's cached writes; its
// history shows the cached task's result like any other's.
import { StateGraph, START, END, MemorySaver } from "@langchain/langgraph";
import { InMemoryCache } from "@langchain/langgraph-checkpoint";
import { stream, history, note, thread, TraceState } from "./transcript.mjs";
let runs = 0;
const app = new StateGraph(TraceState)
  .addNode("slow", (s) => { runs += 1; return { trace: [`slow${s.n}`] }; }, { cachePolicy: { ttl: 60 } })
  .addNode("after", () => ({ trace: ["after"] }))
  .addEdge(START, "slow").addEdge("slow", "after").addEdge("after", END)
  .compile({ checkpointer: new MemorySaver(), cache: new InMemoryCache() });
await stream(app, { n: 1 }, thread("t1"), ["updates"]);
await stream(app, { n: 1 }, thread("t2"), ["updates", "values"]);
note(`runs ${runs}`);
await history(app, thread("t2"));
