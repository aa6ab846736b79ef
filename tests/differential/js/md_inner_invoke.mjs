// A node invokes a compiled graph itself (not added as a subgraph), streamed with subgraphs;
// then the same with the inner graph's node failing.
import { StateGraph, START, MemorySaver } from "@langchain/langgraph";
import { TraceState, tracer, stream, state, thread } from "./transcript.mjs";
for (const fail of [false, true]) {
  const inner = new StateGraph(TraceState)
    .addNode("x", tracer("x"))
    .addNode("y", (s) => { if (fail) throw new Error("inner boom"); return { trace: ["y" + s.n] }; })
    .addEdge(START, "x").addEdge("x", "y").compile();
  const app = new StateGraph(TraceState)
    .addNode("outer", async (s) => {
      const r = await inner.invoke({ n: s.n + 10 });
      return { trace: r.trace.map((e) => "got:" + e) };
    })
    .addNode("z", tracer("z"))
    .addEdge(START, "outer").addEdge("outer", "z")
    .compile({ checkpointer: new MemorySaver() });
  const tid = fail ? "t2" : "t1";
  await stream(app, { n: 1 }, thread(tid), ["updates"], { subgraphs: true });
  await state(app, thread(tid));
}
