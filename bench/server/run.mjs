// The server benchmark: the official LangGraph SDK (its default of 4 requests in flight lifted,
// retries off) drives superstep's server (superstep-bench-server) and the reference JS server
// (@langchain/langgraph-cli dev, pinned in reference/), both serving the graphs of
// bench_server.cpp, in one run. One JSON line per workload, server and client count.
//   node run.mjs --superstep BIN [--reference DIR] [--quick] [--only superstep|reference|floor|memory]
// It also measures the client's floor: the same client against floor_server.mjs, a server that
// answers at once with canned bodies (what the client alone costs on this machine).
// --only memory (never part of the default run): superstep's server on SQLite's ":memory:"
// database (no file, no write-ahead log, no system calls to store anything), `server_wait` only:
// what a run costs the server when storing it costs next to nothing, the floor below which the
// file-backed figure cannot go without changing the engine and the HTTP path
// (docs/perf-log/2026-12-01-server-without-its-storage.md).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const quick = args.includes("--quick");
const only = opt("--only", null);
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux default)

// --- the servers' processes ---------------------------------------------------------------------

function descendants(pid) {
  const out = [pid];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(...descendants(Number(p)));
    } catch {}
  }
  return out;
}
function treeStats(pid) {
  let cpuMs = 0, rssKb = 0, hwmKb = 0, threads = 0;
  for (const p of descendants(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpuMs += ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      rssKb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      hwmKb += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      threads += Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {}
  }
  return { cpuMs, rssKb, hwmKb, threads };
}

async function waitOk(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url + "/ok")).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url}/ok`);
}

async function startSuperstep(bin, { memory = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "superstep-bench-server-"));
  const db = memory ? ":memory:" : join(dir, "bench.db");
  const child = spawn(bin, ["--db", db, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (d) => {
      text += d;
      const m = /http:\/\/[0-9.]+:\d+/.exec(text);
      if (m) resolve(m[0]);
    });
    child.on("exit", (code) => reject(new Error(`superstep-bench-server exited (${code})`)));
  });
  await waitOk(url, 10000);
  return { name: memory ? "superstep_memory_db" : "superstep", url, pid: child.pid, stop: () => (child.kill("SIGTERM"), rmSync(dir, { recursive: true, force: true })) };
}

async function startFloor() {
  const child = spawn(process.execPath, [new URL("./floor_server.mjs", import.meta.url).pathname], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d).trim())));
  await waitOk(url, 10000);
  return { name: "floor", url, pid: child.pid, stop: () => child.kill("SIGTERM") };
}

async function startReference(dir) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn("npx", ["--no-install", "@langchain/langgraph-cli", "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser"], {
    cwd: dir, stdio: ["ignore", "ignore", "inherit"], detached: true,
    env: { ...process.env, LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false", LANGGRAPH_API_KEY: "", LANGSMITH_API_KEY: "" },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitOk(url, 120000);
  return { name: "reference", url, pid: child.pid, stop: () => process.kill(-child.pid, "SIGTERM") };
}

// --- workloads ----------------------------------------------------------------------------------

const client = (url) => new Client({ apiUrl: url, callerOptions: { maxConcurrency: Infinity, maxRetries: 0 } });
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const emit = (o) => console.log(JSON.stringify(o));

async function serverWait(server, clients, seconds) {
  const c = client(server.url);
  const threads = await Promise.all(Array.from({ length: clients }, () => c.threads.create()));
  await c.runs.wait(threads[0].thread_id, "seq3", { input: {} }); // warm-up
  const before = treeStats(server.pid), cpu0 = process.cpuUsage();
  const latencies = [];
  const t0 = performance.now(), deadline = t0 + seconds * 1000;
  await Promise.all(threads.map(async (t) => {
    while (performance.now() < deadline) {
      const s = performance.now();
      const out = await c.runs.wait(t.thread_id, "seq3", { input: {} });
      if (out.c !== 3) throw new Error("seq3: unexpected result " + JSON.stringify(out));
      latencies.push(performance.now() - s);
    }
  }));
  const elapsed = (performance.now() - t0) / 1000, after = treeStats(server.pid), cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const runs = latencies.length;
  emit({ workload: "server_wait", server: server.name, clients, runs, runs_per_s: +(runs / elapsed).toFixed(1),
    p50_ms: +pct(latencies, 50).toFixed(2), p99_ms: +pct(latencies, 99).toFixed(2),
    server_cpu_ms_per_run: +((after.cpuMs - before.cpuMs) / runs).toFixed(3),
    client_cpu_ms_per_run: +((cpu.user + cpu.system) / 1000 / runs).toFixed(3),
    server_peak_rss_mb: +(after.hwmKb / 1024).toFixed(1) });
}

async function serverStream(server, events) {
  const c = client(server.url);
  const thread = await c.threads.create();
  const t0 = performance.now();
  let got = 0;
  for await (const part of c.runs.stream(thread.thread_id, "stream", { input: { n: events }, streamMode: ["custom"] }))
    if (part.event === "custom") ++got;
  const s = (performance.now() - t0) / 1000;
  if (got !== events) throw new Error(`stream: ${got} of ${events} custom events`);
  emit({ workload: "server_stream", server: server.name, events, seconds: +s.toFixed(3), events_per_s: Math.round(events / s) });
}

async function manyStreams(server, streams, seconds) {
  const c = client(server.url);
  const threads = await Promise.all(Array.from({ length: streams }, () => c.threads.create()));
  const before = treeStats(server.pid);
  let peakThreads = before.threads, peakRss = before.rssKb;
  const sampler = setInterval(() => {
    const s = treeStats(server.pid);
    peakThreads = Math.max(peakThreads, s.threads);
    peakRss = Math.max(peakRss, s.rssKb);
  }, 50);
  const t0 = performance.now();
  const done = await Promise.all(threads.map(async (t) => {
    let ok = false;
    for await (const part of c.runs.stream(t.thread_id, "sleep", { input: { seconds }, streamMode: ["values"] }))
      if (part.event === "values" && part.data.done === true) ok = true;
    return ok;
  }));
  const s = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (done.some((x) => !x)) throw new Error("streams: a run did not finish");
  emit({ workload: "server_streams", server: server.name, streams, node_seconds: seconds, seconds: +s.toFixed(3),
    threads_idle: before.threads, threads_peak: peakThreads,
    rss_idle_mb: +(before.rssKb / 1024).toFixed(1), rss_peak_mb: +(peakRss / 1024).toFixed(1),
    kb_per_open_stream: +((peakRss - before.rssKb) / streams).toFixed(1) });
}

async function bench(server) {
  const seconds = quick ? 1 : 10;
  for (const clients of quick ? [1, 4] : [1, 16, 64]) await serverWait(server, clients, seconds);
  if (server.name === "superstep_memory_db") return; // the storage floor: server_wait only
  await serverStream(server, quick ? 1000 : 10000);
  await manyStreams(server, quick ? 50 : 1000, 1);
}

const servers = [];
try {
  const bin = opt("--superstep", "../../build/release/bench/superstep-bench-server");
  if (!only || only === "superstep") servers.push(await startSuperstep(bin));
  if (only === "memory") servers.push(await startSuperstep(bin, { memory: true }));
  if (!only || only === "floor") servers.push(await startFloor());
  if ((!only || only === "reference") && opt("--reference", null)) servers.push(await startReference(opt("--reference")));
  for (const s of servers) await bench(s);
} finally {
  for (const s of servers) s.stop();
}
