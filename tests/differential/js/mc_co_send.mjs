// Send fan-out to an async node whose sleeps make them finish in reverse order; one interrupts.
import { StateGraph, START, MemorySaver, Command, Send, Annotation, interrupt } from "@langchain/langgraph";
import { append, tracer, stream, state, THREAD } from "./transcript.mjs";
import { sleep } from "./co_helpers.mjs";
const ItemState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const build = (ask, checkpointer) => new StateGraph(ItemState)
  .addNode("w", async (s) => {
    await sleep((4 - s.item) * 25);
    if (ask && s.item === 2) return { trace: ["w2:" + interrupt("item 2")] };
    return { trace: ["w" + s.item] };
  })
  .addNode("collect", tracer("collect"))
  .addConditionalEdges(START, () => [1, 2, 3].map((item) => new Send("w", { item })))
  .addEdge("w", "collect").compile({ checkpointer });
await stream(build(false), { item: 0 }, {}, ["updates", "values"]);
const app = build(true, new MemorySaver());
await stream(app, { item: 0 }, THREAD, ["updates", "values"]);
await stream(app, new Command({ resume: "B" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
