// add_messages: ids assigned, replace by id, remove by id, strings and [role, content] pairs.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("a", () => ({ messages: [new AIMessage({ content: "hello", id: "m2" })] }))
  .addNode("b", () => ({ messages: [new AIMessage({ content: "hello again", id: "m2" }), ["human", "pair"]] }))
  .addNode("c", () => ({ messages: [new RemoveMessage({ id: "m1" })] }))
  .addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").compile();
await stream(app, { messages: [new HumanMessage({ content: "hi", id: "m1" })] }, {}, ["updates", "values"]);
const echo = new StateGraph(MessagesAnnotation)
  .addNode("echo", () => ({ messages: "reply" })).addEdge(START, "echo").compile();
await stream(echo, { messages: "just text" }, {}, ["updates", "values"]);
