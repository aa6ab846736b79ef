// add_messages corner cases: the id the reducer gives a node's message shows in the node's
// `updates` part too; a held value that is a single message (here the key's default) is a list
// of one; held messages without ids get ids.
import { StateGraph, START, Annotation, messagesStateReducer } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const State = Annotation.Root({
  messages: Annotation({ reducer: messagesStateReducer, default: () => new HumanMessage("single") }),
});
const app = new StateGraph(State)
  .addNode("a", () => ({ messages: [new AIMessage("no id yet")] }))
  .addNode("b", () => ({ messages: new AIMessage("one, not a list") }))
  .addEdge(START, "a").addEdge("a", "b").compile();
await stream(app, {}, {}, ["updates", "values"]);
