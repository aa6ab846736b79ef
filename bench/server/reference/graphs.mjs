// The server benchmark's graphs for the reference JS server (the same as bench_server.cpp).
import { Annotation, StateGraph, START, END } from "@langchain/langgraph";

const Seq3 = Annotation.Root({ a: Annotation(), b: Annotation(), c: Annotation() });
export const seq3 = new StateGraph(Seq3)
  .addNode("one", () => ({ a: 1 }))
  .addNode("two", () => ({ b: 2 }))
  .addNode("three", () => ({ c: 3 }))
  .addEdge(START, "one").addEdge("one", "two").addEdge("two", "three").addEdge("three", END)
  .compile();

const Stream = Annotation.Root({ n: Annotation(), sent: Annotation() });
export const stream = new StateGraph(Stream)
  .addNode("emit", (s, config) => {
    const count = Number.isInteger(s.n) ? s.n : 10000;
    for (let i = 0; i < count; ++i) config.writer({ i });
    return { sent: count };
  })
  .addEdge(START, "emit").addEdge("emit", END)
  .compile();

const Sleep = Annotation.Root({ seconds: Annotation(), done: Annotation() });
export const sleep = new StateGraph(Sleep)
  .addNode("sleep", async (s) => {
    await new Promise((r) => setTimeout(r, (typeof s.seconds === "number" ? s.seconds : 1) * 1000));
    return { done: true };
  })
  .addEdge(START, "sleep").addEdge("sleep", END)
  .compile();
