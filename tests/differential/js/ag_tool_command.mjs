// ToolNode alone, tools returning Commands (LangGraph's "update graph state from tools"): a
// Command with a state update and its own tool message, one with a `goto` beside a plain tool,
// and a tool returning its own ToolMessage. The node's `updates` part is one object per write.
// (Each update's keys are in alphabetical order: superstep's JSON objects are ordered by key,
// docs/semantics.md, and the part lists the writes in their update's key order.)
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { Annotation, Command, StateGraph, START, END, MessagesAnnotation } from "@langchain/langgraph";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { invoke, stream, emit } from "./transcript.mjs";
import { withServer, multiply } from "./agent_helpers.mjs";
const object = (props, required) => ({ type: "object", properties: props, required });
const remember = tool(({ name }, config) => new Command({
  update: { messages: [new ToolMessage({ content: `saved ${name}`, tool_call_id: config.toolCall.id, id: `tm-${config.toolCall.id}` })], user: name },
}), { name: "remember", description: "Remembers the user's name.", schema: object({ name: { type: "string" } }, ["name"]) });
const count = tool(({ by }, config) => new Command({
  update: { count: by, messages: [new ToolMessage({ content: `counted ${by}`, tool_call_id: config.toolCall.id, id: `tm-${config.toolCall.id}` })] },
  goto: "after",
}), { name: "count", description: "Counts.", schema: object({ by: { type: "integer" } }, ["by"]) });
const echo = tool(({ text }, config) => new ToolMessage({ content: `echo ${text}`, tool_call_id: config.toolCall.id, id: `tm-${config.toolCall.id}`, name: "echo" }),
  { name: "echo", description: "Echoes.", schema: object({ text: { type: "string" } }, ["text"]) });
const whoami = tool((_, config) => `user is ${config.state.user}`,
  { name: "whoami", description: "Reads the state.", schema: object({}, []) });
const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  user: Annotation(),
  count: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  trace: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
await withServer("ag_tool_command", async () => {
  const app = new StateGraph(State)
    .addNode("tools", new ToolNode([remember, count, echo, multiply, whoami]), { ends: ["after"] })
    .addNode("after", () => ({ trace: ["after"] }))
    .addNode("last", () => ({ trace: ["last"] }))
    .addEdge(START, "tools").addEdge("tools", "last").addEdge("after", END).addEdge("last", END)
    .compile();
  const calls = { type: "ai", content: "", id: "a1", tool_calls: [
    { id: "c1", name: "remember", args: { name: "Ada" } },
    { id: "c2", name: "multiply", args: { a: 2, b: 3 } },
    { id: "c3", name: "count", args: { by: 2 } },
    { id: "c4", name: "echo", args: { text: "hi" } },
  ] };
  await stream(app, { messages: [{ type: "human", content: "go", id: "h1" }, calls] }, {}, ["updates", "values"]);
    // A tool reading the state the node read (LangGraph.js' config.state).
  const only = { type: "ai", content: "", id: "a2", tool_calls: [{ id: "c5", name: "remember", args: { name: "Bo" } }, { id: "c6", name: "count", args: { by: 1 } }, { id: "c7", name: "whoami", args: {} }] };
  await invoke(app, { messages: [{ type: "human", content: "again", id: "h2" }, only], user: "Zed" });
});
