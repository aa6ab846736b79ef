// messages mode: every kind of message a node returns (human, system, tool, ai with tool
// calls), a message held by a plain key, and messages in a Command's update.
import { StateGraph, START, Annotation, Command, messagesStateReducer } from "@langchain/langgraph";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { stream } from "./transcript.mjs";
const S = Annotation.Root({
  messages: Annotation({ reducer: messagesStateReducer, default: () => [] }),
  reply: Annotation(),
});
const app = new StateGraph(S)
  .addNode("kinds", () => ({ messages: [
    new SystemMessage({ content: "sys", id: "s-1" }),
    new HumanMessage({ content: "hum", id: "h-2" }),
    new AIMessage({ content: "", id: "ai-1", tool_calls: [{ id: "call-1", name: "calc", args: { x: 1 } }] }),
    new ToolMessage({ content: "42", id: "t-1", tool_call_id: "call-1" }),
  ] }))
  .addNode("plain", () => ({ reply: new AIMessage({ content: "held", id: "r-1" }) }))
  .addNode("cmd", () => new Command({ update: { messages: [new AIMessage({ content: "via command", id: "c-1" })] }, goto: "last" }), { ends: ["last"] })
  .addNode("last", () => ({}))
  .addEdge(START, "kinds").addEdge("kinds", "plain").addEdge("plain", "cmd")
  .compile();
await stream(app, { messages: [] }, {}, ["messages"]);
