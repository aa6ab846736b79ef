// A tool that calls interrupt(): the run pauses inside the tools node; a resume answers it.
import { createReactAgent, ToolNode } from "@langchain/langgraph/prebuilt";
import { MemorySaver, Command } from "@langchain/langgraph";
import { invoke, stream, state, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, approve } from "./agent_helpers.mjs";
await withServer("ag_tool_interrupt", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [approve], checkpointer: new MemorySaver() });
  await stream(agent, { messages: [{ type: "human", content: "deploy it", id: "h1" }] }, THREAD, ["updates"]);
  await state(agent, THREAD);
  await stream(agent, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
});
