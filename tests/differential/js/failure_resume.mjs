// With a checkpointer: a node fails beside a sibling that succeeds; the snapshot shows the error;
// resuming with null runs only the failed task (the sibling's saved writes are reused).
// Python and JS differ on the task order of the snapshot: superstep follows LangGraph Python (by
// name), which docs/persistence.md records; expected/failure_resume.diff.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, stream, state, emit, THREAD } from "./transcript.mjs";
let okRuns = 0, flakyRuns = 0;
const app = new StateGraph(TraceState)
  .addNode("ok", () => { ++okRuns; return { trace: ["ok"] }; })
  .addNode("flaky", () => { if (++flakyRuns === 1) throw new Error("first time fails"); return { trace: ["flaky"] }; })
  .addNode("after", () => ({ trace: ["after"] }))
  .addEdge(START, "ok").addEdge(START, "flaky").addEdge(["ok", "flaky"], "after")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["values"]);
emit({ okRuns, flakyRuns });
