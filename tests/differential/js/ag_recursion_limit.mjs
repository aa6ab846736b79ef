// A model that keeps calling tools: the recursion limit ends the run.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_recursion_limit", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  await stream(agent, { messages: [{ type: "human", content: "multiply forever", id: "h1" }] }, { recursionLimit: 5 }, ["updates"]);
});
