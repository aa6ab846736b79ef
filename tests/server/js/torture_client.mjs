// The SDK side of `superstep-torture --server` (tests/torture/README.md): drives threads of the
// torture graph through the official JS SDK while the driver SIGKILLs and restarts the server.
// Every request may fail (the server is gone): the client then looks again at what the server
// holds (the thread's runs and state) and does the next thing, so a run is never started twice.
//
//   node torture_client.mjs URL THREADS_FILE STOP_FILE RECORDS_FILE [LANES]
// Appends "thread_id<TAB>seed" to THREADS_FILE for every thread it creates, and when the thread
// is finished a `done` line to RECORDS_FILE (the driver's records: nothing of that thread may
// run after it) and its id to THREADS_FILE.done (the driver stops reading its checkpoints);
// starts new threads (LANES at once) until STOP_FILE exists, finishes those under way, prints a
// JSON summary.
import { Client } from "@langchain/langgraph-sdk";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync } from "node:fs";

const [url, threadsFile, stopFile, recordsFile, lanesArg] = process.argv.slice(2);
if (!url || !threadsFile || !stopFile || !recordsFile) {
  console.error("usage: node torture_client.mjs URL THREADS_FILE STOP_FILE RECORDS_FILE [LANES]");
  process.exit(2);
}
// No SDK retries: a failed call is answered by looking at the server's state again.
const client = new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// As torture::answer_for (tests/torture/torture_graph.cpp).
const answerFor = (value) => ({ approved: (value?.seed ?? 0) % 2 === 0, by: "torture" });

let failures = 0;
let runsStarted = 0;

async function drive(seed) {
  const threadId = randomUUID();
  appendFileSync(threadsFile, `${threadId}\t${seed}\n`);
  let created = false;
  // Generous: under constant kills on a loaded machine a thread may get little server time; a
  // real stall shows after the kills stop (the driver waits for the client then).
  const deadline = Date.now() + 1_800_000;
  const history = []; // the last steps taken, for the report when the thread does not finish
  const note = (what) => {
    const line = `${new Date().toISOString()} ${what}`;
    history.push(line);
    if (history.length > 12) history.shift();
    appendFileSync(`${threadsFile}.trace`, `${threadId} ${line}\n`);
  };
  while (Date.now() < deadline) {
    try {
      if (!created) {
        await client.threads.create({ threadId, ifExists: "do_nothing" });
        created = true;
      }
      note("list runs");
      const runs = await client.runs.list(threadId, { limit: 100 });
      const active = runs.find((r) => r.status === "pending" || r.status === "running");
      if (active) {
        note(`join ${active.run_id} (${active.status})`);
        await client.runs.join(threadId, active.run_id);
        continue;
      }
      const state = await client.threads.getState(threadId);
      const interrupts = (state.tasks ?? []).flatMap((t) => t.interrupts ?? []);
      runsStarted++;
      note(`state: checkpoint ${state.checkpoint?.checkpoint_id ?? "none"}, ${interrupts.length} interrupts, ${(state.tasks ?? []).length} tasks`);
      if (!state.checkpoint?.checkpoint_id) {
        // Not started. Half the threads start with wait, half with create + join.
        if (seed % 2) {
          await client.runs.wait(threadId, "torture", { input: { seed } });
        } else {
          const run = await client.runs.create(threadId, "torture", { input: { seed } });
          await client.runs.join(threadId, run.run_id);
        }
      } else if (interrupts.length) {
        await client.runs.wait(threadId, "torture", { command: { resume: answerFor(interrupts[0].value) } });
      } else if ((state.tasks ?? []).length) {
        // Stopped between steps (a run that ended in error, say): continue it.
        await client.runs.wait(threadId, "torture", { input: null });
      } else {
        runsStarted--;
        note("finished");
        appendFileSync(recordsFile, `done\t${process.pid}\t${threadId}\t-\t-\t-\t0\t0\n`);
        appendFileSync(`${threadsFile}.done`, `${threadId}\n`);
        return;
      }
    } catch (e) {
      note(`failed: ${String(e?.message ?? e).slice(0, 200)}`);
      failures++;
      await sleep(20 + Math.random() * 30);
    }
  }
  throw new Error(`thread ${threadId} (seed ${seed}) did not finish in 30 min; its last steps:\n${history.join("\n")}`);
}

let next = 0;
async function lane() {
  while (!existsSync(stopFile)) await drive(next++);
}
const lanes = Number(lanesArg ?? 4);
await Promise.all(Array.from({ length: lanes }, lane));
console.log(JSON.stringify({ threads: next, runs_started: runsStarted, failed_calls: failures }));
