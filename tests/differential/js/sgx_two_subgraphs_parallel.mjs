// The same compiled subgraph as two nodes in one step, both interrupting; get_state with
// subgraphs; resumed by id (both at once).
import { StateGraph, START, MemorySaver, interrupt, Command, Annotation } from "@langchain/langgraph";
import { TraceState, append, tracer, stream, state, THREAD } from "./transcript.mjs";
// The subgraph has only `trace`: the two do not both write the parent's LastValue `n`.
const OnlyTrace = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }) });
const sub = new StateGraph(OnlyTrace)
  .addNode("ask", () => ({ trace: ["ans:" + interrupt("q")] }))
  .addEdge(START, "ask").compile();
const app = new StateGraph(TraceState)
  .addNode("left", sub).addNode("right", sub).addNode("z", tracer("z"))
  .addEdge(START, "left").addEdge(START, "right").addEdge(["left", "right"], "z")
  .compile({ checkpointer: new MemorySaver() });
// (The two pause in either order: the first run prints nothing, get_state lists them in order.)
await app.invoke({ n: 1 }, THREAD);
await state(app, THREAD, true);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) for (const i of t.interrupts) ids[t.name] = i.id;
await stream(app, new Command({ resume: { [ids.left]: "L", [ids.right]: "R" } }), THREAD, ["updates", "values"]);
await state(app, THREAD);
