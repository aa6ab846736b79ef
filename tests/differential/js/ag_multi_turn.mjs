// Two invokes on one checkpointed thread, then get_state and the history.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_multi_turn", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply], checkpointer: new MemorySaver() });
  await invoke(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, THREAD);
  await invoke(agent, { messages: [{ type: "human", content: "and 2 times 3?", id: "h2" }] }, THREAD);
  await state(agent, THREAD);
  await history(agent, THREAD);
});
