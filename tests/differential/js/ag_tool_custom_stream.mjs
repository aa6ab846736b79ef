// A tool writing custom stream chunks (getWriter in the tool), with updates.
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, update, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, progress } from "./agent_helpers.mjs";
await withServer("ag_tool_custom_stream", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [progress] });
  await stream(agent, { messages: [{ type: "human", content: "work", id: "h1" }] }, {}, ["custom", "updates"]);
});
