// A subgraph two levels down pauses: state and history of the middle and inner namespaces
// (their own configs from get_state with subgraphs), then after the resume.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, history, note, THREAD } from "./transcript.mjs";
import { nested2 } from "./helpers_md.mjs";
const app = nested2({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
const snap = await app.getState(THREAD, { subgraphs: true });
const mid = snap.tasks[0].state;
const inner = mid.tasks[0].state;
note("mid namespace");
await state(app, mid.config, true);
await history(app, mid.config);
note("inner namespace");
await state(app, inner.config);
await history(app, inner.config);
await stream(app, new Command({ resume: "r" }), THREAD, ["updates"]);
await state(app, THREAD, true);
note("inner namespace after the end");
await state(app, inner.config);
await history(app, inner.config);
