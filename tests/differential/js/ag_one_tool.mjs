// createReactAgent: one tool call, then an answer (invoke; the messages' details; the requests).
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_one_tool", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  const out = await agent.invoke({ messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] });
  emit({ result: out });
  emitDetails(out.messages);
});
