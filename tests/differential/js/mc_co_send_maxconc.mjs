// maxConcurrency 2 over four Sends to an async node: a third starts when one of the first two
// ends. (maxConcurrency 1 is left out: LangGraph.js 1.7.3 then runs only the first task of the
// step, its runner's loop ending once no task is executing.)
import { StateGraph, START, Send, Annotation } from "@langchain/langgraph";
import { append, stream } from "./transcript.mjs";
import { coTrace } from "./co_helpers.mjs";
const ItemState = Annotation.Root({ trace: Annotation({ reducer: append, default: () => [] }), item: Annotation() });
const SLEEP = { 1: 150, 2: 40, 3: 40, 4: 20 };
const app = new StateGraph(ItemState)
  .addNode("w", (s, config) => coTrace("w" + s.item, SLEEP[s.item])(s, config))
  .addConditionalEdges(START, () => [1, 2, 3, 4].map((item) => new Send("w", { item })))
  .compile();
await stream(app, { item: 0 }, { maxConcurrency: 2 }, ["custom", "updates", "values"]);
