// Two sibling subgraphs both pause; a resume by one plain value.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, THREAD } from "./transcript.mjs";
import { twoSubs } from "./helpers_md.mjs";
const app = twoSubs().compile({ checkpointer: new MemorySaver() });
await stream(app, { trace: [] }, THREAD, ["updates"]);
await stream(app, new Command({ resume: "v" }), THREAD, ["updates"]);
await state(app, THREAD);
