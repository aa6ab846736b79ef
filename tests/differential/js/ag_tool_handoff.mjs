// A handoff: ToolNode inside a subgraph, a tool returning Command(graph=PARENT) with a goto and
// its tool message; the subgraph's other tool messages of that step are not applied (stream
// updates with subgraphs, then the state).
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { Command, MemorySaver, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { stream, state, THREAD } from "./transcript.mjs";
import { withServer, multiply } from "./agent_helpers.mjs";
const transfer = tool((_, config) => new Command({
  graph: Command.PARENT, goto: "other",
  update: { messages: [new ToolMessage({ content: "transferred", tool_call_id: config.toolCall.id, id: `tm-${config.toolCall.id}` })] },
}), { name: "transfer", description: "Hands the conversation over.", schema: { type: "object", properties: {} } });
await withServer("ag_tool_handoff", async () => {
  const sub = new StateGraph(MessagesAnnotation)
    .addNode("tools", new ToolNode([multiply, transfer]))
    .addEdge(START, "tools").addEdge("tools", END)
    .compile();
  const app = new StateGraph(MessagesAnnotation)
    .addNode("sub", sub, { ends: ["other"] })
    .addNode("other", () => ({ messages: [{ type: "ai", content: "other here", id: "o1" }] }))
    .addEdge(START, "sub").addEdge("other", END)
    .compile({ checkpointer: new MemorySaver() });
  const calls = { type: "ai", content: "", id: "a1", tool_calls: [
    { id: "c1", name: "multiply", args: { a: 2, b: 3 } },
    { id: "c2", name: "transfer", args: {} },
  ] };
  await stream(app, { messages: [{ type: "human", content: "go", id: "h1" }, calls] }, THREAD, ["updates"], { subgraphs: true });
  await state(app, THREAD);
});
