// The messages mode with updates, two parallel tool calls streamed.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_stream_messages_parallel", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply, weather] });
  await stream(agent, { messages: [{ type: "human", content: "6*7 and the weather in Rome?", id: "h1" }] }, {}, ["messages", "updates"]);
});
