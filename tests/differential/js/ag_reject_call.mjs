// interruptBefore tools, then the human rejects the call: a tool message added as the tools node.
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, update, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, progress } from "./agent_helpers.mjs";
await withServer("ag_reject_call", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply], checkpointer: new MemorySaver(), interruptBefore: ["tools"] });
  await invoke(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, THREAD);
  await update(agent, THREAD, { messages: [{ type: "tool", content: "The user rejected this call.", id: "t1", tool_call_id: "call_1", name: "multiply" }] }, "tools");
  await state(agent, THREAD);
  await stream(agent, null, THREAD, ["updates"]);
  await state(agent, THREAD);
});
