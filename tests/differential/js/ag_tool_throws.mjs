// A tool that throws: the default ToolNode turns it into an error tool message.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_tool_throws", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [explode] });
  const out = await agent.invoke({ messages: [{ type: "human", content: "break it", id: "h1" }] });
  emit({ result: out });
  emitDetails(out.messages);
});
