// An interrupting tool beside a plain one in one reply: both run again on resume.
import { createReactAgent, ToolNode } from "@langchain/langgraph/prebuilt";
import { MemorySaver, Command } from "@langchain/langgraph";
import { invoke, stream, state, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, approve } from "./agent_helpers.mjs";
await withServer("ag_tool_interrupt_parallel", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply, approve], checkpointer: new MemorySaver() });
  await stream(agent, { messages: [{ type: "human", content: "2*3 and deploy", id: "h1" }] }, THREAD, ["updates"]);
  await state(agent, THREAD);
  await stream(agent, new Command({ resume: "yes" }), THREAD, ["updates"]);
  await state(agent, THREAD);
});
