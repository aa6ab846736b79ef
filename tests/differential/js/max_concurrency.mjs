// Five parallel nodes under maxConcurrency 2: the same updates and result as without a limit.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream } from "./transcript.mjs";
let g = new StateGraph(TraceState);
for (const n of ["p1", "p2", "p3", "p4", "p5"]) g = g.addNode(n, tracer(n)).addEdge(START, n).addEdge(n, "end");
const app = g.addNode("end", tracer("end")).compile();
await stream(app, { n: 1 }, { maxConcurrency: 2 }, ["updates", "values"]);
