// messages mode: a node returning AI messages without ids (two of them), then what the state
// holds.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream, invoke } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("bot", () => ({ messages: [new AIMessage({ content: "one" }), new AIMessage({ content: "two" })] }))
  .addEdge(START, "bot").compile();
await stream(app, { messages: [{ type: "human", content: "hello", id: "h-1" }] }, {}, ["messages", "values"]);
