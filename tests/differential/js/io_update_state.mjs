// update_state may set any channel: the input's own key, the output's own key and a state key
// outside both; the next null input returns the output's keys.
import { MemorySaver } from "@langchain/langgraph";
import { invokeOut, basic } from "./helpers_io.mjs";
import { state, update, history, THREAD } from "./transcript.mjs";
const app = basic().compile({ checkpointer: new MemorySaver() });
await invokeOut(app, { a: "a0", x: "X" }, THREAD);
await update(app, THREAD, { x: "X2", y: "Y2", b: "b9" });
await state(app, THREAD);
await update(app, THREAD, { a: "fresh", c: "C0" }, "n1");
await state(app, THREAD);
await invokeOut(app, null, THREAD);
await history(app, THREAD);
