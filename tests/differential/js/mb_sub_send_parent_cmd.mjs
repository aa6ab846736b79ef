// Inside a subgraph, Send tasks return Command(graph=PARENT, update, goto): both updates reach
// the parent, which runs the goto target once.
import { StateGraph, START, MemorySaver, Command, Send, Annotation } from "@langchain/langgraph";
import { TraceState, append, tracer, stream, state, THREAD } from "./transcript.mjs";
const SubState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const sub = new StateGraph(SubState)
  .addNode("w", (s) => new Command({ graph: Command.PARENT, update: { trace: ["w" + s.item] }, goto: "target" }))
  .addNode("after", tracer("after"))
  .addConditionalEdges(START, () => [1, 2].map((item) => new Send("w", { item })))
  .addEdge("w", "after").compile();
const app = new StateGraph(TraceState)
  .addNode("sub", sub, { ends: ["target"] }).addNode("target", tracer("target")).addNode("z", tracer("z"))
  .addEdge(START, "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
