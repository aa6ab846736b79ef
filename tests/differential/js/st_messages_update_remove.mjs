// add_messages across update_state and resume: removing a message by id and replacing one by id
// while paused, the resumed node seeing the edited list, then removing all and adding one.
import { StateGraph, START, MessagesAnnotation, MemorySaver, interrupt, Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { stream, state, update, THREAD } from "./transcript.mjs";
const app = new StateGraph(MessagesAnnotation)
  .addNode("bot", () => ({ messages: [new AIMessage({ content: "hi", id: "a1" })] }))
  .addNode("ask", (s) => {
    const v = interrupt("ok?");
    return { messages: [new AIMessage({ content: "ask:" + v + ":" + s.messages.length, id: "a2" })] };
  })
  .addNode("after", (s) => ({
    messages: [new AIMessage({ content: "after:" + s.messages.map((m) => m.id + ",").join(""), id: "a3" })],
  }))
  .addEdge(START, "bot").addEdge("bot", "ask").addEdge("ask", "after")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { messages: [new HumanMessage({ content: "hello", id: "h1" })] }, THREAD, ["updates"]);
await update(app, THREAD, { messages: [new RemoveMessage({ id: "h1" })] });
await state(app, THREAD);
await update(app, THREAD, { messages: [new AIMessage({ content: "HI", id: "a1" }), new HumanMessage({ content: "more", id: "h2" })] });
await state(app, THREAD);
await stream(app, new Command({ resume: "yes" }), THREAD, ["updates", "values"]);
await update(app, THREAD, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ content: "fresh", id: "f1" })] });
await state(app, THREAD);
