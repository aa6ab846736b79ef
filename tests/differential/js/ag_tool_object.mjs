// A tool returning an object: the tool message holds it as JSON text.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_tool_object", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [lookup] });
  const out = await agent.invoke({ messages: [{ type: "human", content: "look up k1", id: "h1" }] });
  emit({ result: out });
});
