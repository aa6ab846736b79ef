// The messages, updates and values modes together (the C++ twin reads them through astream).
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, update, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, progress } from "./agent_helpers.mjs";
await withServer("ag_astream_messages", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  await stream(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, {}, ["messages", "updates", "values"]);
});
