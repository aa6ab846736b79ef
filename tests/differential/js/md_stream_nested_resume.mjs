// checkpoints and debug parts with subgraphs of a run pausing two levels down and its resume.
import { MemorySaver, Command } from "@langchain/langgraph";
import { stream, THREAD } from "./transcript.mjs";
import { nested2 } from "./helpers_md.mjs";
const app = nested2({ checkpointer: new MemorySaver() });
await stream(app, { n: 1 }, THREAD, ["checkpoints", "debug"], { subgraphs: true });
await stream(app, new Command({ resume: "r" }), THREAD, ["checkpoints", "debug", "values"], { subgraphs: true });
