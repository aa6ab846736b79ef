// {} is a valid input (no values written); null is EmptyInputError.
import { StateGraph, START } from "@langchain/langgraph";
import { TraceState, tracer, stream, invoke } from "./transcript.mjs";
const app = new StateGraph(TraceState).addNode("a", tracer("a")).addEdge(START, "a").compile();
await stream(app, {}, {}, ["updates", "values"]);
await invoke(app, null);
