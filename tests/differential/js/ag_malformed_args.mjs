// Arguments that are not JSON: an invalid tool call, no tool runs, the run ends.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_malformed_args", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  const out = await agent.invoke({ messages: [{ type: "human", content: "6 times 7", id: "h1" }] });
  emit({ result: out });
  emitDetails(out.messages);
});
