// The API key (superstep only): `superstep serve --api-key secret` wants header x-api-key.
// Runs when SUPERSTEP_API_KEY_TEST=1 (the harness then starts the server with --api-key secret
// and every other test's client sends it). The reference server has no such option.
import { test } from "node:test";
import assert from "node:assert/strict";
import { API_KEY_TEST, REFERENCE, SERVER_URL, client, collect, rejectsHttp } from "./harness.mjs";

const skip = REFERENCE ? "the reference server has no API key" : !API_KEY_TEST && "set SUPERSTEP_API_KEY_TEST=1";

test("without the key: 401; a wrong key: 403; the right key works; /ok needs none", { skip }, async () => {
  const none = client(null);
  const wrong = client("not-the-secret");
  const right = client("secret");
  await rejectsHttp(none.assistants.search({ graphId: "loop" }), 401);
  await rejectsHttp(wrong.assistants.search({ graphId: "loop" }), 403);
  await rejectsHttp(none.threads.create(), 401);
  await rejectsHttp(wrong.runs.wait(null, "loop", { input: { target: 1 } }), 403);
  await assert.rejects(collect(none.runs.stream(null, "loop", { input: { target: 1 } })), /^Error: HTTP 401/);

  const [a] = await right.assistants.search({ graphId: "loop" });
  assert.equal(a.graph_id, "loop");
  const t = await right.threads.create();
  assert.deepEqual(await right.runs.wait(t.thread_id, "loop", { input: { target: 2 } }), { count: 2, target: 2 });
  await rejectsHttp(none.threads.get(t.thread_id), 401);
  await rejectsHttp(wrong.threads.getState(t.thread_id), 403);

  const ok = await fetch(`${SERVER_URL}/ok`);
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { ok: true });
});
