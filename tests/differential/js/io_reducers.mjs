// Reducers declared only in the input schema (log, default ["in"]) or only in the output
// schema (total, default 100): channels like the state's, written by the input and by two
// parallel nodes; a second input on the thread folds into them.
import { StateGraph, Annotation, START, MemorySaver } from "@langchain/langgraph";
import { invokeOut } from "./helpers_io.mjs";
import { state, stream, THREAD } from "./transcript.mjs";
const cat = (a, b) => a.concat(b);
const State = Annotation.Root({ a: Annotation(), n: Annotation({ reducer: (x, y) => x + y, default: () => 0 }) });
const In = Annotation.Root({ a: Annotation(), log: Annotation({ reducer: cat, default: () => ["in"] }) });
const Out = Annotation.Root({ n: Annotation(), log: Annotation(), total: Annotation({ reducer: (x, y) => x + y, default: () => 100 }) });
const app = new StateGraph(State, { input: In, output: Out })
  .addNode("p", () => ({ log: ["p"], total: 1, n: 1 }))
  .addNode("q", () => ({ log: ["q"], total: 2, n: 2 }))
  .addEdge(START, "p").addEdge(START, "q").compile({ checkpointer: new MemorySaver() });
await invokeOut(app, { a: "a0", log: ["x"] }, THREAD);
await state(app, THREAD);
await stream(app, { a: "a1" }, THREAD, ["updates", "values"]);
await state(app, THREAD);
