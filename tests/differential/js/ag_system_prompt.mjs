// The values mode and a system prompt (the requests show where it goes).
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_system_prompt", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply], prompt: "You multiply." });
  await stream(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, {}, ["values"]);
});
