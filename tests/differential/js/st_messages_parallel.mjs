// add_messages written by two parallel nodes in one step, both replacing the input message by id
// (the later in path order wins, in place) and appending their own; a join lists the ids.
import { StateGraph, START, MessagesAnnotation } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("y", () => ({ messages: [new HumanMessage({ content: "replaced by y", id: "h1" }), new AIMessage({ content: "from y", id: "y1" })] }))
  .addNode("x", () => ({ messages: [new AIMessage({ content: "from x", id: "x1" }), new HumanMessage({ content: "replaced by x", id: "h1" })] }))
  .addNode("j", (s) => ({ messages: [new AIMessage({ content: "j:" + s.messages.map((m) => m.id + ",").join(""), id: "j1" })] }))
  .addEdge(START, "y").addEdge(START, "x").addEdge(["x", "y"], "j")
  .compile();
await stream(app, { messages: [new HumanMessage({ content: "q", id: "h1" })] }, {}, ["updates", "values"]);
