// ToolNode alone: only the calls no tool message answers yet run (the newest AI message's).
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_tool_node_pending", async (server) => {
  const app = new StateGraph(MessagesAnnotation)
    .addNode("tools", new ToolNode([multiply, weather]))
    .addEdge(START, "tools").addEdge("tools", END)
    .compile();
  await invoke(app, { messages: [
    { type: "human", content: "two things", id: "h1" },
    { type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "multiply", args: { a: 2, b: 3 } }, { id: "c2", name: "weather", args: { city: "Oslo" } }] },
    { type: "tool", content: "6", id: "t1", tool_call_id: "c1", name: "multiply" },
    { type: "human", content: "go on", id: "h2" },
  ] });
});
