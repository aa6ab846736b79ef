// GET /ok with N clients for S seconds (profiling helper: the HTTP layer alone).
const [url, n = "16", s = "5"] = process.argv.slice(2);
let reqs = 0; const end = Date.now() + +s * 1000;
await Promise.all(Array.from({ length: +n }, async () => { while (Date.now() < end) { await (await fetch(url + "/ok")).text(); ++reqs; } }));
console.log(JSON.stringify({ runs: reqs, per_s: reqs / +s }));
