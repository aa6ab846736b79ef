// Graphs shared by the io_* scenarios (input and output schemas; twins of the helpers in
// ../io_schemas.cpp).
import { StateGraph, Annotation, START } from "@langchain/langgraph";
import { TraceState, emit, errorLine } from "./transcript.mjs";

// The keys a node was given, sorted.
export const seen = (s) => Object.keys(s).filter((k) => s[k] !== undefined).sort().join(",");

// State {trace, a, b, c}; input {a, x}: x is the input's own; output {c, y, trace}: y is the
// output's own, trace a plain field that takes the state's declaration.
export const State = Annotation.Root({ trace: TraceState.spec.trace, a: Annotation(), b: Annotation(), c: Annotation() });
export const In = Annotation.Root({ a: Annotation(), x: Annotation() });
export const Out = Annotation.Root({ c: Annotation(), y: Annotation(), trace: Annotation() });

// n1 (records what it sees, writes b, c and the output's own y) -> n2 (records, writes a).
export const basic = () => new StateGraph(State, { input: In, output: Out })
  .addNode("n1", (s) => ({ trace: ["n1 sees " + seen(s)], b: "B", c: (s.a ?? "-") + "C", y: "Y" }))
  .addNode("n2", (s) => ({ trace: ["n2 sees " + seen(s)], a: "A2" }))
  .addEdge(START, "n1").addEdge("n1", "n2");

// invoke, printing nothing (undefined) as null, as the C++ side's null result.
export async function invokeOut(graph, input, config = {}) {
  try {
    const r = await graph.invoke(input, config);
    emit({ result: r === undefined ? null : r });
  } catch (e) {
    emit(errorLine(e));
  }
}

// Parent {q, ans, secret, trace}; child {q, scratch, ans, secret, trace} with input {q} and
// output {ans, extra}: extra is the child's output's own key.
export const PState = Annotation.Root({ q: Annotation(), ans: Annotation(), secret: Annotation(), trace: TraceState.spec.trace });
export const CState = Annotation.Root({ q: Annotation(), scratch: Annotation(), ans: Annotation(), secret: Annotation(), trace: TraceState.spec.trace });
export const CIn = Annotation.Root({ q: Annotation() });
export const COut = Annotation.Root({ ans: Annotation(), extra: Annotation() });
