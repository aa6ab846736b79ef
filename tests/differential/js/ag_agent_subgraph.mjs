// The agent as a subgraph node of a parent graph, streamed with subgraphs (updates, messages).
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, update, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, progress } from "./agent_helpers.mjs";
await withServer("ag_agent_subgraph", async (server) => {
  const agent = createReactAgent({ llm: chatModel(server), tools: [multiply] });
  const app = new StateGraph(MessagesAnnotation)
    .addNode("assistant", agent)
    .addEdge(START, "assistant").addEdge("assistant", END)
    .compile();
  await stream(app, { messages: [{ type: "human", content: "what is 6 times 7?", id: "h1" }] }, {}, ["updates", "messages"], { subgraphs: true });
});
