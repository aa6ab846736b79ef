// Two sibling subgraphs both pause; resumed by id one at a time (the second first); history.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, history, THREAD } from "./transcript.mjs";
import { twoSubs, idsByValue } from "./helpers_md.mjs";
const app = twoSubs().compile({ checkpointer: new MemorySaver() });
await stream(app, { trace: [] }, THREAD, ["updates"]);
const ids = await idsByValue(app, THREAD);
await stream(app, new Command({ resume: { [ids.qB]: "b" } }), THREAD, ["updates", "values"]);
await state(app, THREAD, true);
await stream(app, new Command({ resume: { [ids.qA]: "a" } }), THREAD, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
