// Runs many LangGraph.js scenarios in one node process: node js/batch.mjs WORK NAME...
// Each scenario module (js/NAME.mjs) runs when imported; what it writes to stdout goes to
// WORK/NAME.js.out, what it writes to stderr to WORK/NAME.js.err, and WORK/NAME.js.rc holds 0, or
// 1 when the import threw. Loading LangGraph.js is most of a scenario's time in a process of its
// own (about a second of CPU), so ../run starts two of these instead of one process per
// scenario. A scenario imports only its own graph and helpers, and awaits every run it starts,
// so one ends before the next begins; ../run checks the batch against single processes with
// DIFFERENTIAL_SINGLE=1.
import { writeFileSync } from "node:fs";

const [work, ...names] = process.argv.slice(2);
let out = [];
let err = [];
process.stdout.write = (chunk, ...rest) => {
  out.push(String(chunk));
  const cb = rest.find((r) => typeof r === "function");
  if (cb) cb();
  return true;
};
process.stderr.write = (chunk, ...rest) => {
  err.push(String(chunk));
  const cb = rest.find((r) => typeof r === "function");
  if (cb) cb();
  return true;
};
// A rejection nobody awaited belongs to the scenario running when it surfaces.
let stray = null;
process.on("unhandledRejection", (e) => { stray = e; });

for (const name of names) {
  out = [];
  err = [];
  stray = null;
  let rc = 0;
  try {
    await import(`./${name}.mjs`);
    // Let callbacks the scenario queued last (stream ends, child exits) run in its window.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (e) {
    err.push(`${e?.stack ?? e}\n`);
    rc = 1;
  }
  if (stray) {
    err.push(`unhandled rejection: ${stray?.stack ?? stray}\n`);
    rc = 1;
  }
  writeFileSync(`${work}/${name}.js.out`, out.join(""));
  writeFileSync(`${work}/${name}.js.err`, err.join(""));
  writeFileSync(`${work}/${name}.js.rc`, `${rc}\n`);
}
