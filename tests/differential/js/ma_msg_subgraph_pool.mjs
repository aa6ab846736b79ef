// (ma_msg_subgraph_pool: the same; superstep compiles the subgraph on the parent's one-worker executor)
// messages mode with a subgraph node: with subgraphs (namespaces and the subgraph's metadata)
// and without (what reaches the root stream), with updates beside.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const sub = new StateGraph(MessagesAnnotation)
  .addNode("inner", () => ({ messages: [new AIMessage({ content: "from inner", id: "s-1" })] }))
  .addEdge(START, "inner").compile();
const app = new StateGraph(MessagesAnnotation)
  .addNode("sub", sub)
  .addNode("after", () => ({ messages: [new AIMessage({ content: "after", id: "p-2" })] }))
  .addEdge(START, "sub").addEdge("sub", "after").compile();
const input = { messages: [{ type: "human", content: "hello", id: "h-1" }] };
await stream(app, input, {}, ["messages", "updates"], { subgraphs: true });
await stream(app, input, {}, ["messages", "updates"]);
