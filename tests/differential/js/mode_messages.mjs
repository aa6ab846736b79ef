// messages mode without a chat model: a node returning an AI message (LangGraph streams the
// messages a node returns that were not streamed already), with updates alongside.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("bot", () => ({ messages: [new AIMessage({ content: "hi there", id: "ai-1" })] }))
  .addEdge(START, "bot").compile();
await stream(app, { messages: [{ type: "human", content: "hello", id: "h-1" }] }, {}, ["messages", "updates"]);
