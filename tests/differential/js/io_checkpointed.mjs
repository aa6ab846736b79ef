// Input and output schemas with a checkpointer: get_state, history and the checkpoints, debug
// and tasks parts keep every channel (the input's and output's own keys too); a null input
// continuing the thread returns the output's keys.
import { MemorySaver } from "@langchain/langgraph";
import { invokeOut, basic } from "./helpers_io.mjs";
import { stream, state, history, thread, THREAD } from "./transcript.mjs";
const app = basic().compile({ checkpointer: new MemorySaver() });
await invokeOut(app, { a: "a0", x: "X", b: "ignored" }, THREAD);
await state(app, THREAD);
await history(app, THREAD);
await invokeOut(app, null, THREAD);
await invokeOut(app, { x: "X2" }, THREAD);
await state(app, THREAD);
await stream(app, { a: "a1" }, thread("t2"), ["checkpoints", "tasks", "debug", "values"]);
