// Helpers of the agent scenarios (ag_*, ../agents.cpp): the scripted OpenAI-compatible server,
// ChatOpenAI pointed at it, the tools both sides define, and the transcript lines only these
// scenarios print.
//
// The server is tests/llm/openai_test_server (the program superstep-openai-test-server, whose
// path ../run exports as SUPERSTEP_OPENAI_TEST_SERVER), started on a free loopback port with the
// scenario's script ../scripts/<scenario>.json: the replies in order, the same file the C++ twin
// gives its in-process server. ChatOpenAI talks to it over HTTP as it would to OpenAI.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "@langchain/core/tools";
import { emit } from "./transcript.mjs";

export async function startServer(scenario) {
  const bin = process.env.SUPERSTEP_OPENAI_TEST_SERVER;
  if (!bin) throw new Error("SUPERSTEP_OPENAI_TEST_SERVER is not set (tests/differential/run sets it)");
  const script = fileURLToPath(new URL(`../scripts/${scenario}.json`, import.meta.url));
  const child = spawn(bin, ["--script", script], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once("line", (l) => { rl.close(); resolve(l.trim()); });
    child.once("exit", (code) => reject(new Error(`test server exited with ${code}`)));
  });
  return {
    url,
    // The request bodies the server received, in order (a transcript line).
    async emitRequests() {
      const r = await fetch(`${url}/requests`);
      emit({ requests: await r.json() });
    },
    stop() { child.kill("SIGTERM"); },
  };
}

export function chatModel(server, fields = {}) {
  return new ChatOpenAI({ model: "test-model", apiKey: "sk-test", configuration: { baseURL: server.url }, ...fields });
}

// Runs body(server) with the scenario's server, then prints the requests and stops it.
export async function withServer(scenario, body) {
  const server = await startServer(scenario);
  try {
    await body(server);
    await server.emitRequests();
  } finally {
    server.stop();
  }
}

const object = (props, required) => ({ type: "object", properties: props, required });
export const multiply = tool(({ a, b }) => a * b, {
  name: "multiply", description: "Multiplies two integers.",
  schema: object({ a: { type: "integer" }, b: { type: "integer" } }, ["a", "b"]),
});
export const weather = tool(({ city }) => `sunny in ${city}`, {
  name: "weather", description: "The weather in a city.",
  schema: object({ city: { type: "string" } }, ["city"]),
});
export const explode = tool(({ what }) => { throw new Error(`cannot ${what}`); }, {
  name: "explode", description: "Always fails.",
  schema: object({ what: { type: "string" } }, ["what"]),
});
export const lookup = tool(({ key }) => ({ key, found: true, tags: ["a", "b"] }), {
  name: "lookup", description: "Looks a key up.",
  schema: object({ key: { type: "string" } }, ["key"]),
});

// What the reduced message lines do not show, per message: a tool message's status, an AI
// message's invalid tool calls, usage and response metadata (the stable parts).
export function details(messages) {
  return messages.map((m) => {
    const d = { kind: m._getType() };
    if (d.kind === "tool") d.status = m.status ?? null;
    if (d.kind === "ai") {
      d.invalid_tool_calls = (m.invalid_tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.name ?? null, args: c.args ?? null, error: c.error ?? null }));
      const u = m.usage_metadata;
      d.usage = u ? { input_tokens: u.input_tokens, output_tokens: u.output_tokens, total_tokens: u.total_tokens } : null;
      const r = m.response_metadata ?? {};
      d.response = { finish_reason: r.finish_reason ?? null, model_name: r.model_name ?? null, model_provider: r.model_provider ?? null };
    }
    return d;
  });
}

export function emitDetails(messages) {
  emit({ details: details(messages) });
}

// A tool asking a human (interrupt() inside the tool): "<action>: <answer>".
import { interrupt } from "@langchain/langgraph";
export const approve = tool(({ action }) => `${action}: ${interrupt({ approve: action })}`, {
  name: "approve", description: "Asks a human to approve an action.",
  schema: object({ action: { type: "string" } }, ["action"]),
});

// A tool writing to the `custom` stream mode: one chunk per step, then "did <steps> steps".
// (LangGraph.js 1.7.3's getWriter() gives a tool run by ToolNode nothing; the tool's config has
// the writer ToolNode passes.)
export const progress = tool(({ steps }, config) => {
  const write = config.writer;
  for (let i = 1; i <= steps; i++) write({ step: i, of: steps });
  return `did ${steps} steps`;
}, {
  name: "progress", description: "Reports progress.",
  schema: object({ steps: { type: "integer" } }, ["steps"]),
});
