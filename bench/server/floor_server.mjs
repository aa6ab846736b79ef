// The benchmark client's floor: a server that does nothing. It answers the calls run.mjs makes
// (create a thread, runs.wait on seq3, runs.stream of n custom events) at once with canned
// bodies, so the SDK client driving it measures what the client alone costs on this machine.
// A stream whose input has `seconds` (the many-streams workload's sleep graph) sends its first
// values at once and its last after that many seconds, as a run awaiting a timer would.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

const json = (res, body, headers = {}) => {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    if (req.method === "GET" && req.url === "/ok") return json(res, { ok: true });
    if (req.method === "POST" && req.url === "/threads") return json(res, { thread_id: randomUUID(), status: "idle", metadata: {} });
    const wait = /^\/threads\/([^/]+)\/runs\/wait$/.exec(req.url);
    if (req.method === "POST" && wait)
      return json(res, { a: 1, b: 2, c: 3 }, { "content-location": `/threads/${wait[1]}/runs/${randomUUID()}` });
    const stream = /^\/threads\/([^/]+)\/runs\/stream$/.exec(req.url);
    if (req.method === "POST" && stream) {
      const input = JSON.parse(body).input ?? {};
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (input.seconds !== undefined) {
        res.write(`event: metadata\ndata: {"run_id":"${randomUUID()}","attempt":1}\nid: 0\n\n` +
                  `event: values\ndata: {"seconds":${input.seconds}}\nid: 1\n\n`);
        setTimeout(() => res.end(`event: values\ndata: {"seconds":${input.seconds},"done":true}\nid: 2\n\n`), input.seconds * 1000);
        return;
      }
      const n = input.n ?? 10000;
      let out = `event: metadata\ndata: {"run_id":"${randomUUID()}","attempt":1}\nid: 0\n\n`;
      for (let i = 0; i < n; ++i) out += `event: custom\ndata: {"i":${i}}\nid: ${i + 1}\n\n`;
      return res.end(out);
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"detail":"not found"}');
  });
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}`));
