// Inside a subgraph, Send tasks fan out and two of them interrupt; the parent resumes them by
// id one at a time (get_state with subgraphs between), then the subgraph's join runs.
import { StateGraph, START, MemorySaver, interrupt, Command, Send, Annotation } from "@langchain/langgraph";
import { TraceState, append, tracer, stream, state, THREAD } from "./transcript.mjs";
const SubState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const sub = new StateGraph(SubState)
  .addNode("w", (s) => (s.item >= 2 ? { trace: [`w${s.item}:` + interrupt(`need ${s.item}`)] } : { trace: ["w" + s.item] }))
  .addNode("collect", tracer("collect"))
  .addConditionalEdges(START, () => [1, 2, 3].map((item) => new Send("w", { item })))
  .addEdge("w", "collect").compile();
const app = new StateGraph(TraceState)
  .addNode("a", tracer("a")).addNode("sub", sub).addNode("z", tracer("z"))
  .addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "z").compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
const ids = {};
for (const t of (await app.getState(THREAD)).tasks) for (const i of t.interrupts) ids[i.value] = i.id;
await stream(app, new Command({ resume: { [ids["need 3"]]: "C" } }), THREAD, ["updates"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: { [ids["need 2"]]: "B" } }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
