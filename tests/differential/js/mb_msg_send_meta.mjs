// messages mode from Send tasks: each message's metadata (langgraph_step, node, triggers,
// path, checkpoint_ns), beside a pulled node in the same step.
import { StateGraph, START, MessagesAnnotation, Annotation, MemorySaver, Send } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { stream, thread } from "./transcript.mjs";
const S = Annotation.Root({ ...MessagesAnnotation.spec, k: Annotation() });
const app = new StateGraph(S)
  .addNode("w", (s) => ({ messages: [new AIMessage({ content: "from w " + s.k, id: "w-" + s.k })] }))
  .addNode("p", () => ({ messages: [new AIMessage({ content: "from p", id: "p-1" })] }))
  .addConditionalEdges(START, () => ["p", new Send("w", { k: 1 }), new Send("w", { k: 2 })])
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { messages: [{ type: "human", content: "go", id: "h-1" }] }, thread("t1"), ["messages"]);
