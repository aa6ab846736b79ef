// messages mode: a node returning a message it received (same id, edited: add_messages
// replaces it) beside a new one; LangGraph marks the node's input messages as seen.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("bot", () => ({ messages: [new HumanMessage({ content: "hello (edited)", id: "h-1" }), new AIMessage({ content: "hi", id: "ai-1" })] }))
  .addNode("echo", (s) => ({ messages: [s.messages[s.messages.length - 1]] }))
  .addEdge(START, "bot").addEdge("bot", "echo").compile();
await stream(app, { messages: [{ type: "human", content: "hello", id: "h-1" }] }, {}, ["messages", "updates"]);
