// A node loops on itself through Command(goto=Send) and interrupts on its third round; the
// resume continues the loop; get_state and history while paused.
import { StateGraph, START, MemorySaver, Command, Send, interrupt } from "@langchain/langgraph";
import { TraceState, stream, state, history, THREAD } from "./transcript.mjs";
const app = new StateGraph(TraceState)
  .addNode("loop", (s) => {
    let tag = "l" + s.n;
    if (s.n === 3) tag += ":" + interrupt("at 3");
    return s.n < 4 ? new Command({ update: { trace: [tag] }, goto: new Send("loop", { n: s.n + 1 }) }) : { trace: [tag] };
  }, { ends: ["loop"] })
  .addEdge(START, "loop")
  .compile({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await state(app, THREAD);
await stream(app, new Command({ resume: "go" }), THREAD, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
