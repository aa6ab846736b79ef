// Command(graph: PARENT) from the innermost of two nested subgraphs routes the middle graph;
// the middle graph's target then sends a Command to the top graph.
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const inner = new StateGraph(TraceState)
  .addNode("i1", tracer("i1"))
  .addNode("jump", () => new Command({ update: { trace: ["jump"], n: 2 }, goto: "mtarget", graph: Command.PARENT }))
  .addNode("i3", tracer("i3"))
  .addEdge(START, "i1").addEdge("i1", "jump").addEdge("jump", "i3").compile();
const mid = new StateGraph(TraceState)
  .addNode("inner", inner, { ends: ["mtarget"] })
  .addNode("mtarget", () => new Command({ update: { trace: ["mtarget"] }, goto: "target", graph: Command.PARENT }), { ends: [] })
  .addNode("m9", tracer("m9"))
  .addEdge(START, "inner").addEdge("mtarget", "m9").compile();
const app = new StateGraph(TraceState)
  .addNode("mid", mid, { ends: ["target"] }).addNode("target", tracer("target")).addNode("after", tracer("after"))
  .addEdge(START, "mid").addEdge("mid", "after").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
