// Two sibling subgraphs both pause in one step (streamed without subgraphs: their parts would
// interleave differently); one resume map answers both; get_state with
// subgraphs before and after.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, state, THREAD } from "./transcript.mjs";
import { twoSubs, idsByValue } from "./helpers_md.mjs";
const app = twoSubs().compile({ checkpointer: new MemorySaver() });
await stream(app, { trace: [] }, THREAD, ["updates"]);
await state(app, THREAD, true);
const ids = await idsByValue(app, THREAD);
await stream(app, new Command({ resume: { [ids.qA]: "a", [ids.qB]: "b" } }), THREAD, ["updates", "values"]);
await state(app, THREAD, true);
