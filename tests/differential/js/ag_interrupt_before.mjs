// interruptBefore tools: the run pauses before the tools; get_state; a resume with null.
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_interrupt_before", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply], checkpointer: new MemorySaver(), interruptBefore: ["tools"] });
  await stream(agent, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, THREAD, ["updates"]);
  await state(agent, THREAD);
  await stream(agent, null, THREAD, ["updates", "values"]);
  await state(agent, THREAD);
});
