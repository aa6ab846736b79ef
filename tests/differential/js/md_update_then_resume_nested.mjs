// Paused two levels down; update_state on the root (no asNode), then the resume.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, history, update, THREAD } from "./transcript.mjs";
import { nested2 } from "./helpers_md.mjs";
const app = nested2({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["updates"]);
await update(app, THREAD, { n: 7, trace: ["root-edit"] });
await state(app, THREAD, true);
await stream(app, new Command({ resume: "r" }), THREAD, ["updates", "values"], { subgraphs: true });
await state(app, THREAD);
await history(app, THREAD);
