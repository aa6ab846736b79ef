// Commands and the schemas: a Command input's update is not limited to the input's keys (it
// may set a state key outside it and the output's own key); a node's Command may update the
// output's own key; the node routed to sees only the state's keys.
import { StateGraph, Annotation, START, MemorySaver, Command } from "@langchain/langgraph";
import { invokeOut, seen } from "./helpers_io.mjs";
import { state, stream, THREAD } from "./transcript.mjs";
const State = Annotation.Root({ a: Annotation(), n: Annotation({ reducer: (x, y) => x + y, default: () => 0 }) });
const In = Annotation.Root({ a: Annotation() });
const Out = Annotation.Root({ r: Annotation(), total: Annotation({ reducer: (x, y) => x + y, default: () => 100 }) });
const build = () => new StateGraph(State, { input: In, output: Out })
  .addNode("p", () => new Command({ update: { total: 3, r: "L" }, goto: "q" }), { ends: ["q"] })
  .addNode("q", (s) => ({ a: "q sees " + seen(s), n: 4 }))
  .addEdge(START, "p");
const plain = build().compile();
await stream(plain, { a: "a" }, {}, ["updates", "values"]);
await invokeOut(plain, new Command({ update: { n: 10, a: "ca", total: 1 }, goto: "q" }));
const saved = build().compile({ checkpointer: new MemorySaver() });
await invokeOut(saved, new Command({ update: { n: 10, a: "ca", r: "cr" }, goto: "q" }), THREAD);
await state(saved, THREAD);
