// A node writes a custom chunk and then interrupts: the chunk is streamed, and written again
// when the node runs again on resume, followed by the chunk after the interrupt.
import { StateGraph, START, MemorySaver, interrupt, Command } from "@langchain/langgraph";
import { TraceState, stream, THREAD } from "./transcript.mjs";
const writer = (name, chunk) => (s, config) => { config.writer(chunk); return { trace: [name] }; };
const app = new StateGraph(TraceState)
  .addNode("a", writer("a", "a-chunk"))
  .addNode("ask", (s, config) => {
    config.writer("asking");
    const v = interrupt("q");
    config.writer("got " + v);
    return { trace: ["ask:" + v] };
  })
  .addNode("z", writer("z", "z-chunk"))
  .addEdge(START, "a").addEdge("a", "ask").addEdge("ask", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["custom", "updates"]);
await stream(app, new Command({ resume: "yes" }), THREAD, ["custom", "updates", "values"]);
