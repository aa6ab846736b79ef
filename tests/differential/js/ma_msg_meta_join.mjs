// messages mode metadata (langgraph_step/node/triggers/path/checkpoint_ns) for parallel nodes
// and a join target, on a checkpointed thread, with values beside it.
import { StateGraph, START, MessagesAnnotation, MemorySaver } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream, thread } from "./transcript.mjs";
const say = (id) => () => ({ messages: [new AIMessage({ content: `from ${id}`, id })] });
const app = new StateGraph(MessagesAnnotation)
  .addNode("a", say("a")).addNode("b", say("b")).addNode("j", say("j"))
  .addEdge(START, "a").addEdge(START, "b").addEdge(["a", "b"], "j")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { messages: [{ type: "human", content: "go", id: "h-1" }] }, thread("t1"), ["messages"]);
