// Input and output schemas without a checkpointer: the input sets its keys only (a state key
// outside it is ignored, the input's own key is kept but no node sees it), nodes see the state
// schema's keys, invoke returns the output's keys, `values` parts show every channel.
import { invokeOut, basic } from "./helpers_io.mjs";
import { stream } from "./transcript.mjs";
const app = basic().compile();
await invokeOut(app, { a: "a0", x: "X", b: "ignored" });
await invokeOut(app, { b: "ignored" });
await invokeOut(app, {});
await stream(app, { a: "a1", x: "X" }, {}, ["values", "updates"]);
await stream(app, { a: "a1" }, {}, null);
