// interruptBefore tools, then update_state replaces the AI message's call (same id) before the resume.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_interrupt_edit_call", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply], checkpointer: new MemorySaver(), interruptBefore: ["tools"] });
  await invoke(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, THREAD);
  await update(agent, THREAD, { messages: [{ type: "ai", content: "", id: "chatcmpl-1", tool_calls: [{ id: "call_1", name: "multiply", args: { a: 6, b: 8 } }] }] });
  await invoke(agent, null, THREAD);
  await state(agent, THREAD);
});
