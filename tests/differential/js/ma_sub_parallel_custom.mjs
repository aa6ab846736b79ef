// Two subgraph nodes in one step, streamed in `custom` mode with subgraphs (nothing is written to it): the
// run finishes (superstep: on the default shared executor).
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream, note } from "./transcript.mjs";
const sub = new StateGraph(MessagesAnnotation)
  .addNode("inner", () => ({ messages: [new AIMessage({ content: "from inner" })] }))
  .addEdge(START, "inner").compile();
let g = new StateGraph(MessagesAnnotation);
for (const n of ["s1", "s2"]) g = g.addNode(n, sub).addEdge(START, n);
const app = g.compile();
await stream(app, { messages: [{ type: "human", content: "hello", id: "h-1" }] }, {}, ["custom"], { subgraphs: true });
note("done");
