// Durability "exit" with a nested subgraph that interrupts: checkpoints parts, state and
// history; then the resume, also with "exit".
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, history, THREAD } from "./transcript.mjs";
import { nested2 } from "./helpers_md.mjs";
const app = nested2({ checkpointer: new MemorySaver() });
const cfg = { ...THREAD, durability: "exit" };
await stream(app, { n: 1 }, cfg, ["updates", "checkpoints"], { subgraphs: true });
await state(app, THREAD, true);
await history(app, THREAD);
await stream(app, new Command({ resume: "r" }), cfg, ["updates", "checkpoints"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
