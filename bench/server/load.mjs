// Drive runs.wait on seq3 against URL with N clients for S seconds (profiling helper); a fourth
// argument sets the runs' durability (sync, async, exit; unset: the server's default).
import { Client } from "@langchain/langgraph-sdk";
const [url, n = "16", s = "8", durability] = process.argv.slice(2);
const c = new Client({ apiUrl: url, callerOptions: { maxConcurrency: Infinity, maxRetries: 0 } });
const threads = await Promise.all(Array.from({ length: +n }, () => c.threads.create()));
let runs = 0; const end = Date.now() + +s * 1000;
await Promise.all(threads.map(async (t) => { while (Date.now() < end) { await c.runs.wait(t.thread_id, "seq3", { input: {}, ...(durability ? { durability } : {}) }); ++runs; } }));
console.log(JSON.stringify({ runs, per_s: runs / +s }));
