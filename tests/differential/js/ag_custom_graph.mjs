// ToolNode and toolsCondition in a hand-written graph (a model node calling the bound model).
import { createReactAgent, ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { invoke, stream, state, history, update, emit, THREAD } from "./transcript.mjs";
import { withServer, chatModel, multiply, weather, explode, lookup, emitDetails } from "./agent_helpers.mjs";
await withServer("ag_custom_graph", async (server) => {
  const model = chatModel(server).bindTools([multiply, weather]);
  const app = new StateGraph(MessagesAnnotation)
    .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addNode("tools", new ToolNode([multiply, weather]))
    .addEdge(START, "model")
    .addConditionalEdges("model", toolsCondition)
    .addEdge("tools", "model")
    .compile();
  await stream(app, { messages: [{ type: "human", content: "6*7 then weather", id: "h1" }] }, {}, ["updates"]);
});
