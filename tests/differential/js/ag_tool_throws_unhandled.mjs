// A tool that throws with handleToolErrors false: the run fails with the tool's error.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_tool_throws_unhandled", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: new ToolNode([explode], { handleToolErrors: false }) });
  await stream(agent, { messages: [{ type: "human", content: "break it", id: "h1" }] }, {}, ["updates"]);
});
