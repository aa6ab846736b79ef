// Helpers of the mc_* scenarios (more_areas3.cpp): async nodes twinning superstep's coroutine
// nodes (co_await sp::sleep_for).
import { interrupt } from "@langchain/langgraph";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// {name: "start"} custom chunk, a sleep, {name: "end"}, then trace [name].
export const coTrace = (name, ms) => async (s, config) => {
  config.writer({ [name]: "start" });
  await sleep(ms);
  config.writer({ [name]: "end" });
  return { trace: [name] };
};
// coTrace after a first sleep of `lead` ms.
export const coLateTrace = (name, lead, ms) => async (s, config) => {
  await sleep(lead);
  return coTrace(name, ms)(s, config);
};
export const coQuiet = (name, ms) => async () => {
  await sleep(ms);
  return { trace: [name] };
};
// Sleeps, interrupts with `question`, sleeps, appends name:answer:n; counts its calls.
export const coAsk = (name, question, calls) => async (s) => {
  calls.n++;
  const n = String(s.n);
  await sleep(5);
  const v = interrupt(question);
  await sleep(5);
  return { trace: [`${name}:${v}:${n}`] };
};
