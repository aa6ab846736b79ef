// The model server answers 400: the agent node fails with the model's error.
import { createReactAgent, ToolNode } from "@langchain/langgraph/prebuilt";
import { MemorySaver, Command } from "@langchain/langgraph";
import { invoke, stream, state, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, approve } from "./agent_helpers.mjs";
await withServer("ag_model_error", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  await stream(agent, { messages: [{ type: "human", content: "hi", id: "h1" }] }, {}, ["updates"]);
});
