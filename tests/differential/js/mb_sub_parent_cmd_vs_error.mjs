// Inside a subgraph, one parallel node returns Command(graph=PARENT, goto) while its sibling
// throws (a_jump before b_fail in plan order): the run fails (no checkpointer), and with one;
// then with the jumping node after the failing one (c_jump).
import { StateGraph, START, MemorySaver, Command } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, THREAD } from "./transcript.mjs";
const build = (checkpointer, jump = "a_jump") => {
  const sub = new StateGraph(TraceState)
    .addNode(jump, () => new Command({ graph: Command.PARENT, update: { trace: ["jump"] }, goto: "target" }))
    .addNode("b_fail", () => { throw new Error("b_fail broke"); })
    .addEdge(START, jump).addEdge(START, "b_fail").compile();
  return new StateGraph(TraceState)
    .addNode("sub", sub, { ends: ["target"] }).addNode("target", tracer("target")).addNode("z", tracer("z"))
    .addEdge(START, "sub").addEdge("sub", "z").compile(checkpointer ? { checkpointer } : {});
};
await stream(build(null), { n: 1 }, {}, ["updates", "values"]);
const app = build(new MemorySaver());
await stream(app, { n: 1 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(build(null, "c_jump"), { n: 1 }, {}, ["updates", "values"]);
