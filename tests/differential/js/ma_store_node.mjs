// The store inside nodes: put, get (present and missing), search with an equality and a
// comparison filter, delete (LangGraph.js's store in a node has no listNamespaces); the results (sorted by key) are traced.
import { StateGraph, START, InMemoryStore } from "@langchain/langgraph";
import { invoke, TraceState } from "./transcript.mjs";
// JSON text with keys sorted (as superstep's JSON objects).
const sortKeys = (v) => Array.isArray(v) ? v.map(sortKeys) : v && typeof v === "object"
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])])) : v;
const canon = (v) => JSON.stringify(sortKeys(v));
const items = (xs) => xs.map((i) => `${i.namespace.join("/")}:${i.key}=${canon(i.value)}`).sort();
const app = new StateGraph(TraceState)
  .addNode("w", async (s, config) => {
    const store = config.store;
    await store.put(["users", "u1"], "k1", { v: 1, kind: "fact" });
    await store.put(["users", "u1"], "k2", { v: 2, kind: "pref" });
    await store.put(["users", "u2"], "k3", { v: 3, kind: "fact" });
    await store.put(["other"], "k4", { v: 4 });
    return { trace: ["w"] };
  })
  .addNode("r", async (s, config) => {
    const store = config.store;
    const got = await store.get(["users", "u1"], "k1");
    const missing = await store.get(["users", "u1"], "nope");
    return { trace: [
      `get=${canon(got && { ns: got.namespace, key: got.key, value: got.value })}`,
      `missing=${JSON.stringify(missing ?? null)}`,
      `fact=${canon(items(await store.search(["users"], { filter: { kind: "fact" } })))}`,
      `gt1=${canon(items(await store.search(["users"], { filter: { v: { $gt: 1 } } })))}`,
      `all=${canon(items(await store.search(["users"])))}`,
    ] };
  })
  .addNode("d", async (s, config) => {
    await config.store.delete(["users", "u1"], "k1");
    const after = await config.store.get(["users", "u1"], "k1");
    return { trace: [`after_delete=${JSON.stringify(after ?? null)}`] };
  })
  .addEdge(START, "w").addEdge("w", "r").addEdge("r", "d")
  .compile({ store: new InMemoryStore() });
await invoke(app, { n: 1 });
