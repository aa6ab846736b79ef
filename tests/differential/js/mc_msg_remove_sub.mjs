// messages mode with add_messages: a subgraph removes a parent's message and adds its own; the
// parent then removes the subgraph's.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const sub = new StateGraph(MessagesAnnotation)
  .addNode("inner", () => ({ messages: [new RemoveMessage({ id: "a-1" }), new AIMessage({ content: "from inner", id: "s-1" })] }))
  .addEdge(START, "inner").compile();
const app = new StateGraph(MessagesAnnotation)
  .addNode("bot", () => ({ messages: [new AIMessage({ content: "one", id: "a-1" }), new AIMessage({ content: "two", id: "a-2" })] }))
  .addNode("sub", sub)
  .addNode("after", () => ({ messages: [new RemoveMessage({ id: "s-1" })] }))
  .addEdge(START, "bot").addEdge("bot", "sub").addEdge("sub", "after").compile();
const input = { messages: [new HumanMessage({ content: "hi", id: "h-1" })] };
await stream(app, input, {}, ["messages", "updates", "values"], { subgraphs: true });
await stream(app, input, {}, ["messages"]);
