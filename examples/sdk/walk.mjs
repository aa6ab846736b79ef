// The README's main job, client side: the official LangGraph JS SDK drives `superstep serve`
// through the built-in `approval` graph: create a thread, stream a run until it pauses for a
// human (interrupt), read the state and history, resume with the answer.
//   node examples/sdk/walk.mjs http://127.0.0.1:2024
import { Client } from "@langchain/langgraph-sdk";

const apiUrl = process.argv[2] ?? "http://127.0.0.1:2024";
const client = new Client({ apiUrl });
const show = (label, value) => console.log(`${label} ${JSON.stringify(value)}`);

const assistant = await client.assistants.get("approval");
show("assistant:", { assistant_id: assistant.assistant_id, graph_id: assistant.graph_id });

const thread = await client.threads.create({ metadata: { demo: "readme" } });
show("thread:", thread.thread_id);

console.log("== stream a run: the graph drafts, then pauses for approval ==");
for await (const part of client.runs.stream(thread.thread_id, "approval", {
  input: { topic: "Lisbon" },
  streamMode: ["updates", "values"],
})) {
  show(`  ${part.event}:`, part.data);
}

const paused = await client.threads.get(thread.thread_id);
show("thread status:", paused.status);
const state = await client.threads.getState(thread.thread_id);
show("next:", state.next);
const [task] = state.tasks;
show("waiting on:", { node: task.name, interrupt: task.interrupts[0].value });

const history = await client.threads.getHistory(thread.thread_id);
console.log("history (newest first):");
for (const s of history) show(`  step ${s.metadata.step} (${s.metadata.source}) next`, s.next);

console.log('== resume: answer the interrupt with "yes" ==');
const result = await client.runs.wait(thread.thread_id, "approval", { command: { resume: "yes" } });
show("final state:", result);
const done = await client.threads.get(thread.thread_id);
show("thread status:", done.status);
if (done.status !== "idle" || !String(result.published).startsWith("PUBLISHED")) {
  console.error("walk: the run did not end as expected");
  process.exit(1);
}
