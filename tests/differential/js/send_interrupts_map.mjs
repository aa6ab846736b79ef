// Several Send tasks pause; one thread resumes them one at a time by id, another all at once.
import { StateGraph, START, MemorySaver, interrupt, Command, Send } from "@langchain/langgraph";
import { TraceState, stream, state, thread } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("w", (s) => ({ trace: [s.n === 2 ? "w2" : "w" + s.n + ":" + interrupt("need " + s.n)] }))
  .addNode("z", (s) => ({ trace: ["z"] }))
  .addConditionalEdges(START, () => [1, 2, 3].map((n) => new Send("w", { n })))
  .addEdge("w", "z")
  .compile({ checkpointer: new MemorySaver() });
const idsOf = async (cfg) => (await app.getState(cfg)).tasks.flatMap((t) => t.interrupts.map((i) => [i.value, i.id]));
const T1 = thread("t1"), T2 = thread("t2");
await stream(app, { n: 0 }, T1, ["updates"]);
let ids = Object.fromEntries(await idsOf(T1));
await stream(app, new Command({ resume: { [ids["need 3"]]: "C" } }), T1, ["updates", "values"]);
await state(app, T1);
await stream(app, new Command({ resume: { [ids["need 1"]]: "A" } }), T1, ["updates", "values"]);
await state(app, T1);
await stream(app, { n: 0 }, T2, ["updates"]);
ids = Object.fromEntries(await idsOf(T2));
await stream(app, new Command({ resume: { [ids["need 1"]]: "A", [ids["need 3"]]: "C" } }), T2, ["updates", "values"]);
await state(app, T2);
