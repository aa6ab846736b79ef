// The model gives two rounds of tool calls the same id (as some local servers do).
import { createReactAgent, ToolNode } from "@langchain/langgraph/prebuilt";
import { MemorySaver, Command } from "@langchain/langgraph";
import { invoke, stream, state, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, approve } from "./agent_helpers.mjs";
await withServer("ag_reused_call_ids", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  await stream(agent, { messages: [{ type: "human", content: "2*3 then 4*5", id: "h1" }] }, {}, ["updates"]);
});
