// interruptBefore naming a subgraph node of the root (the subgraph then pauses two levels down):
// the pause, a null resume, then the answer.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, THREAD } from "./transcript.mjs";
import { nested2 } from "./helpers_md.mjs";
const app = nested2({ checkpointer: new MemorySaver(), interruptBefore: ["mid"] });
await stream(app, { n: 1 }, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, null, THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "r" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
