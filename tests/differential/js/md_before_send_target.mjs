// interruptBefore naming a node reached only by Sends: the pause, next, then a null resume.
import { MemorySaver } from "@langchain/langgraph";
import { stream, state, history, THREAD } from "./transcript.mjs";
import { sendGraph } from "./helpers_md.mjs";
const app = sendGraph().compile({ checkpointer: new MemorySaver(), interruptBefore: ["w"] });
await stream(app, { n: 0 }, THREAD, ["updates", "values"]);
await state(app, THREAD);
await stream(app, null, THREAD, ["updates", "values"]);
await state(app, THREAD);
await history(app, THREAD);
