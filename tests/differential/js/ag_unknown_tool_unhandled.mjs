// The model calls a tool the agent does not have, with handleToolErrors false: the run fails.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_unknown_tool_unhandled", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: new ToolNode([multiply], { handleToolErrors: false }) });
  await invoke(agent, { messages: [{ type: "human", content: "divide 6 by 3", id: "h1" }] });
});
