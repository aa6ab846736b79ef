// React's useStream (@langchain/langgraph-sdk/react) against the server, rendered with react-dom
// under jsdom (no browser): submit, an interrupt and its resume, and reconnectOnMount rejoining a
// resumable run from a fresh component (what a page reload does).
//
// The hook is driven the way an app drives it: submit() from the rendered snapshot, then the test
// polls the latest render (submit() only queues the stream; nothing waits on it). No act().
// Runs with both SDKs: 1.15's react export differs inside but has the same useStream options
// and results (submit, interrupt, reconnectOnMount with sessionStorage, joinStream with "-1").
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { API_KEY, SDK, SERVER_URL, client, runDone, settledThread, sleep } from "./harness.mjs";

// react-dom decides at load time whether it has a DOM, so the globals come first.
const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://localhost/" });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
if (globalThis.navigator === undefined) globalThis.navigator = dom.window.navigator; // Node 20 has none
globalThis.IS_REACT_ACT_ENVIRONMENT = false; // updates arrive from the network; the test polls renders
const React = await import("react");
const { createRoot } = await import("react-dom/client");
const { useStream } = SDK === "1.15" ? await import("sdk115/react") : await import("@langchain/langgraph-sdk/react");
after(() => dom.window.close());

const c = client();

/**
 * Mounts a component that calls useStream(options) and records each render's snapshot in
 * `view.current`. Its requests go through a fetch that records them and that `kill()` aborts
 * (a page going away: the server sees the client disconnect).
 */
function mount(options) {
  const view = { current: null, mounted: false, renders: 0, requests: [], loadingSeen: false };
  const killSwitch = new AbortController();
  // one object for the component's lifetime: useStream makes a new Client when callerOptions change
  const callerOptions = {
    fetch: (url, init = {}) => {
      const req = { url: String(url), method: init.method ?? "GET", headers: new Headers(init.headers) };
      view.requests.push(req);
      const signal = init.signal ? AbortSignal.any([init.signal, killSwitch.signal]) : killSwitch.signal;
      signal.addEventListener("abort", () => (req.aborted = true));
      return fetch(url, { ...init, signal }).then(
        (r) => ((req.status = r.status), r),
        (e) => {
          req.error = String(e);
          throw e;
        },
      );
    },
  };
  function App() {
    const s = useStream({ apiUrl: SERVER_URL, apiKey: API_KEY, callerOptions, ...options });
    // reading values/interrupt is what makes the hook ask for the values stream mode
    view.current = { values: s.values, interrupt: s.interrupt, isLoading: s.isLoading, error: s.error, submit: s.submit };
    view.renders += 1;
    if (s.isLoading) view.loadingSeen = true;
    // Effects run in order: once this one has run, so have useStream's. A submit before that races
    // the hook's mount effect, which clears (aborts) the stream when the thread id moved meanwhile.
    React.useEffect(() => void (view.mounted = true), []);
    return React.createElement("pre", null, JSON.stringify(s.values));
  }
  const container = document.createElement("div");
  document.body.appendChild(container);
  const root = createRoot(container);
  root.render(React.createElement(App));
  return {
    view,
    container,
    kill: () => {
      // named so that the SDK neither retries the request (its AsyncCaller retries other errors
      // for ~30 s) nor logs it: the hook treats an AbortError as the stream being stopped
      const reason = new Error("AbortError: the page went away");
      reason.name = "AbortError";
      killSwitch.abort(reason);
    },
    unmount: () => {
      root.unmount();
      container.remove();
    },
  };
}

/** Polls `pred` (every 20 ms) until it returns something truthy; fails after `timeoutMs` with `describe()`. */
async function until(what, pred, describe, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${describe()}`);
    await sleep(20);
  }
}

const show = (view) => () =>
  `last render: ${JSON.stringify({ values: view.current?.values, interrupt: view.current?.interrupt, isLoading: view.current?.isLoading, error: String(view.current?.error ?? "") })}; requests: ${JSON.stringify(view.requests.map(({ headers, ...r }) => r))}`;

test("useStream on approval: submit, the interrupt, resume with a command, published", async () => {
  let threadId = null;
  const app = mount({ assistantId: "approval", onThreadId: (id) => (threadId = id) });
  try {
    const { view } = app;
    await until("the mount", () => view.mounted, show(view));
    view.current.submit({ topic: "Lisbon" });
    const paused = await until(
      "the interrupt",
      () => !view.current.isLoading && view.current.interrupt && view.current,
      show(view),
    );
    assert.ok(threadId, "onThreadId got the thread the hook created");
    assert.ok(view.loadingSeen, "isLoading was true while the run streamed");
    assert.equal(paused.error, undefined);
    assert.equal(paused.values.topic, "Lisbon");
    assert.equal(paused.values.draft, "Five things to do in Lisbon");
    assert.ok(Array.isArray(paused.values.__interrupt__), "the values carry __interrupt__ from the stream");
    const interrupt = paused.interrupt;
    assert.ok(!Array.isArray(interrupt), "one interrupt");
    assert.deepEqual(interrupt.value, { question: "publish this draft?", draft: "Five things to do in Lisbon" });
    assert.equal(typeof interrupt.id, "string");
    assert.ok(interrupt.id.length > 0);
    assert.equal((await settledThread(c, threadId)).status, "interrupted");

    view.loadingSeen = false;
    view.current.submit(undefined, { command: { resume: "yes" } });
    const done = await until(
      "the published values",
      () => view.loadingSeen && !view.current.isLoading && view.current.values?.published && view.current,
      show(view),
    );
    assert.equal(done.error, undefined);
    assert.equal(done.values.published, "PUBLISHED: Five things to do in Lisbon");
    assert.equal(done.values.approved, true);
    assert.equal(done.values.draft, "Five things to do in Lisbon");
    assert.ok(!("__interrupt__" in done.values), "the resumed run's values replace the interrupt");
    const thread = await settledThread(c, threadId);
    assert.equal(thread.status, "idle");
    assert.equal(thread.values.published, "PUBLISHED: Five things to do in Lisbon");
    // the resume went to the same thread as a command, not as new input
    const runs = view.requests.filter((r) => r.method === "POST" && r.url.endsWith(`/threads/${threadId}/runs/stream`));
    assert.equal(runs.length, 2);
  } finally {
    app.unmount();
  }
});

test("useStream reconnectOnMount: a fresh component rejoins a running resumable run (Last-Event-ID -1)", async () => {
  const storage = window.sessionStorage;
  let created = null;
  const first = mount({ assistantId: "sleep", reconnectOnMount: true, onCreated: (m) => (created = m) });
  let second = null;
  try {
    await until("the mount", () => first.view.mounted, show(first.view));
    first.view.current.submit({ seconds: 2 }, { streamResumable: true });
    await until("the run to be created", () => created, show(first.view));
    const { thread_id: threadId, run_id: runId } = created;
    const key = `lg:stream:${threadId}`;
    assert.equal(storage.getItem(key), runId, "reconnectOnMount keeps the run id in sessionStorage");
    const post = first.view.requests.find((r) => r.method === "POST" && r.url.endsWith(`/threads/${threadId}/runs/stream`));
    assert.ok(post, "the run was started with runs.stream");
    await until("the input values", () => first.view.current.values?.seconds === 2, show(first.view));

    // the page goes away mid-run: its stream is cut, the run goes on (stream_resumable: on_disconnect continue)
    first.kill();
    first.unmount();
    await sleep(200);
    assert.equal((await c.runs.get(threadId, runId)).status, "running", "the run outlives its first client");
    assert.equal(storage.getItem(key), runId, "the run id is still stored for the next mount");

    second = mount({ assistantId: "sleep", threadId, reconnectOnMount: true });
    const { view } = second;
    const done = await until(
      "the rejoined run's final values",
      () => view.loadingSeen && !view.current.isLoading && view.current.values?.done === true && view.current,
      show(view),
    );
    assert.equal(done.error, undefined);
    assert.deepEqual(done.values, { seconds: 2, done: true });
    const join = view.requests.find((r) => r.method === "GET" && new URL(r.url).pathname === `/threads/${threadId}/runs/${runId}/stream`);
    assert.ok(join, `the second component joined the run; requests: ${view.requests.map((r) => `${r.method} ${r.url}`).join(", ")}`);
    assert.equal(join.headers.get("last-event-id"), "-1", "the join replays the run from its first event");
    assert.ok(!view.requests.some((r) => r.method === "POST" && r.url.includes("/runs")), "the second component started no run");
    await until("the stored run id to be cleared", () => storage.getItem(key) === null, () => `still ${storage.getItem(key)}`);
    const run = await runDone(c, threadId, runId);
    assert.equal(run.status, "success");
    assert.deepEqual((await settledThread(c, threadId)).values, { seconds: 2, done: true });
  } finally {
    second?.unmount();
  }
});
