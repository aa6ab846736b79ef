// Shared set-up for the server suite: which server, which SDK, and small helpers.
//
//   SUPERSTEP_URL=http://127.0.0.1:2024   use a server that is already running
//   SUPERSTEP_BIN=/path/to/superstep      start `$SUPERSTEP_BIN serve --port 0 --db <db>` (once per
//                                         test file; node --test runs each file in its own process)
//   SUPERSTEP_DB=<path or postgresql://>  the --db value (default: a fresh temp file)
//   SUPERSTEP_API_KEY_TEST=1              start the server with --api-key secret; clients send it
//   SUPERSTEP_OPENAI_TEST_SERVER=<path>   superstep-openai-test-server (set by `run` from SUPERSTEP_BIN's
//                                         build dir); messages.test.mjs starts a second superstep with it
//   SDK=115                               use @langchain/langgraph-sdk 1.15 instead of 2.0.0
//   REFERENCE=1                           the server is the reference (official JS dev server):
//                                         skips the few superstep-only assertions (see README.md)
import { spawn } from "node:child_process";
import { accessSync, constants as fsConstants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import assert from "node:assert/strict";

export const SDK = process.env.SDK === "115" ? "1.15" : "2.0.0";
export const sdk = SDK === "1.15" ? await import("sdk115") : await import("@langchain/langgraph-sdk");
export const REFERENCE = process.env.REFERENCE === "1";
export const API_KEY_TEST = process.env.SUPERSTEP_API_KEY_TEST === "1";
export const API_KEY = API_KEY_TEST ? "secret" : null;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export { sleep };

/**
 * Spawns `cmd args` in its own process group (so that stopping it also stops anything it started),
 * waits for the first `http://…` URL on its stdout and returns it. The group is stopped after the
 * test file (SIGTERM, then SIGKILL after 3 s) and on exit; `cleanup` runs after that.
 */
async function spawnUntilUrl(cmd, args, { env = {}, cleanup = () => {} } = {}) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env: { ...process.env, ...env } });
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    if (process.env.SUPERSTEP_VERBOSE) process.stderr.write(d);
  });
  const kill = () => signal("SIGKILL");
  let cleaned = false;
  const cleanupOnce = () => {
    if (!cleaned) cleanup();
    cleaned = true;
  };
  process.on("exit", () => {
    kill();
    cleanupOnce();
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no URL from ${cmd} within 30 s; stdout: ${out}; stderr: ${stderr}`)), 30000);
    child.stdout.on("data", (d) => {
      out += d;
      if (process.env.SUPERSTEP_VERBOSE) process.stderr.write(d);
      const m = /http:\/\/[^\s"'<>]+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0].replace(/[.,;:)\]/]+$/, ""));
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${code ?? signal}) before printing its URL; stderr: ${stderr}`));
    });
  });
  child.stdout.resume();
  after(async () => {
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));
    signal("SIGTERM");
    await Promise.race([exited, sleep(3000)]);
    kill();
    cleanupOnce();
  });
  return url;
}

/** Starts `bin serve --port 0` on `db` (default: a fresh temp file) with extra environment `env`. */
async function startServer(bin, { env = {}, db = process.env.SUPERSTEP_DB } = {}) {
  let dir = null;
  if (!db) {
    dir = mkdtempSync(join(tmpdir(), "superstep-server-test-"));
    db = join(dir, "superstep.db");
  }
  const args = ["serve", "--port", "0", "--db", db];
  if (API_KEY_TEST) args.push("--api-key", "secret");
  return spawnUntilUrl(bin, args, { env, cleanup: () => dir && rmSync(dir, { recursive: true, force: true }) });
}

async function waitOk(url) {
  const deadline = Date.now() + 30000;
  let last;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`${url}/ok`);
      if (r.ok) return;
      last = `status ${r.status}`;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  throw new Error(`GET ${url}/ok did not answer 200 within 30 s (${last})`);
}

export const SERVER_URL = await (async () => {
  let url;
  if (process.env.SUPERSTEP_BIN) url = await startServer(process.env.SUPERSTEP_BIN);
  else if (process.env.SUPERSTEP_URL) url = process.env.SUPERSTEP_URL;
  else throw new Error("set SUPERSTEP_URL (a running server) or SUPERSTEP_BIN (a superstep binary to start)");
  url = url.replace(/\/+$/, "");
  await waitOk(url);
  return url;
})();

/**
 * Starts another `$SUPERSTEP_BIN serve` for this test file, with extra environment `env` (e.g. the
 * chat model settings of openaiTestServer()), on a fresh temp SQLite file (never SUPERSTEP_DB: two
 * servers must not share a database). Returns its URL once `GET /ok` answers; it is stopped after
 * the file. Needs SUPERSTEP_BIN; returns null without it.
 */
export async function startWithEnv(env) {
  if (!process.env.SUPERSTEP_BIN) return null;
  const url = (await startServer(process.env.SUPERSTEP_BIN, { env, db: "" })).replace(/\/+$/, "");
  await waitOk(url);
  return url;
}

/** The superstep-openai-test-server binary from SUPERSTEP_OPENAI_TEST_SERVER, or null if unset or not executable. */
export const OPENAI_TEST_SERVER = (() => {
  const path = process.env.SUPERSTEP_OPENAI_TEST_SERVER;
  if (!path) return null;
  try {
    accessSync(path, fsConstants.X_OK);
    return path;
  } catch {
    return null;
  }
})();

/**
 * Starts superstep-openai-test-server (a local OpenAI-compatible chat server; it streams each reply
 * in 4-character pieces). `args` go to it, e.g. ["--script", "replies.json"]; without a script it
 * answers "echo: <last message>". Returns the environment that points a superstep at it:
 * {OPENAI_BASE_URL, OPENAI_API_KEY, SUPERSTEP_MODEL}. Stopped after the test file.
 */
export async function openaiTestServer(args = []) {
  if (!OPENAI_TEST_SERVER) throw new Error("SUPERSTEP_OPENAI_TEST_SERVER is not set to an executable");
  const baseUrl = await spawnUntilUrl(OPENAI_TEST_SERVER, args);
  return { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: "sk-test", SUPERSTEP_MODEL: "test-model" };
}

/** A client of the server under test. apiKey null keeps the SDK from reading LANGGRAPH_API_KEY & co. */
export function client(apiKey = API_KEY) {
  return new sdk.Client({ apiUrl: SERVER_URL, apiKey });
}

/** A request without the SDK (for fields and calls the SDK does not send): the fetch Response. */
export function raw(method, path, body) {
  const headers = { "content-type": "application/json" };
  if (API_KEY) headers["x-api-key"] = API_KEY;
  return fetch(SERVER_URL + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Asserts that `promise` rejects with the SDK's error for HTTP `status` (one status or a list). */
export async function rejectsHttp(promise, status) {
  const statuses = Array.isArray(status) ? status : [status];
  await assert.rejects(promise, (e) => {
    const m = /^HTTP (\d{3})/.exec(String(e?.message));
    assert.ok(m, `expected an "HTTP <status>: ..." error, got: ${e?.message}`);
    assert.ok(statuses.includes(Number(m[1])), `expected HTTP ${statuses.join(" or ")}, got: ${e.message}`);
    return true;
  });
}

/** Every event of an SDK stream, as {event, data, id?}. */
export async function collect(stream) {
  const out = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The data of the events named `name`, in order. */
export const dataOf = (events, name) => events.filter((e) => e.event === name).map((e) => e.data);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const FINAL = ["success", "error", "interrupted", "timeout"];

/** Polls until run `runId` has a final status; returns the run. */
export async function runDone(c, threadId, runId, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await c.runs.get(threadId, runId);
    if (FINAL.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Polls until run `runId` has status `status` (e.g. "running"). */
export async function runReaches(c, threadId, runId, status, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await c.runs.get(threadId, runId);
    if (run.status === status) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status}, not ${status}, after ${timeoutMs} ms`);
    await sleep(25);
  }
}

/**
 * Polls until run `runId` is running with its latest checkpoint before node `node` (the thread's
 * state has `next` holding it). "running" alone says the run was handed to a worker, not that it
 * saved its input yet: a run stopped before its first checkpoint leaves the thread as it was.
 */
export async function runReachesNode(c, threadId, runId, node, timeoutMs = 10000) {
  await runReaches(c, threadId, runId, "running", timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await c.threads.getState(threadId);
    if (state.metadata?.run_id === runId && state.next.includes(node)) return state;
    if (Date.now() > deadline) throw new Error(`run ${runId} has not reached node ${node} after ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * The thread once the run that just returned (wait/stream/join) has been recorded on it.
 * superstep must have updated the thread (status, values, interrupts) by the time a wait, join
 * or stream returns. The reference sets the thread's status only after the run's stream has
 * closed, so under REFERENCE=1 this polls until the thread is no older than the run.
 */
export async function settledThread(c, threadId) {
  if (!REFERENCE) return c.threads.get(threadId);
  const deadline = Date.now() + 5000;
  for (;;) {
    const thread = await c.threads.get(threadId);
    const runs = await c.runs.list(threadId, { limit: 100 });
    const latest = Math.max(0, ...runs.map((r) => Date.parse(r.updated_at)));
    const busy = runs.some((r) => r.status === "pending" || r.status === "running");
    if (!busy && Date.parse(thread.updated_at) >= latest) return thread;
    if (Date.now() > deadline) return thread;
    await sleep(25);
  }
}
