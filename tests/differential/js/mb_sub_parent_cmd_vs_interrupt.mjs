// Inside a subgraph, one parallel node returns Command(graph=PARENT, goto) while its sibling
// interrupts (a_jump before b_ask in plan order): which wins, then the resume.
import { StateGraph, START, MemorySaver, Command, interrupt } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, emit, THREAD } from "./transcript.mjs";
const runs = { jump: 0 };
const sub = new StateGraph(TraceState)
  .addNode("a_jump", () => { ++runs.jump; return new Command({ graph: Command.PARENT, update: { trace: ["jump"] }, goto: "target" }); })
  .addNode("b_ask", () => ({ trace: ["ask:" + interrupt("q")] }))
  .addEdge(START, "a_jump").addEdge(START, "b_ask").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub, { ends: ["target"] }).addNode("target", tracer("target")).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "r" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
emit({ runs });
