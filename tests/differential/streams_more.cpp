// More stream-mode scenarios: every mode with subgraphs (parallel nodes, custom writes, an
// interrupt and Sends inside; namespaces of each part), custom writes from a node that then
// fails or interrupts, from Send tasks and from nested subgraphs, values at interrupts
// (interrupt_before/after too) and at resumes, updates of Sends and Commands, of the run after
// update_state, tasks/debug parts with retries, Sends and interrupt_before, several modes at once
// and the default mode of a graph with subgraphs (js/sm_*.mjs are the LangGraph.js twins).
// Parallel tasks of a step: only the first in plan order writes custom chunks (LangGraph.js runs
// every synchronous node of a step before it streams any result, superstep streams each task's
// parts as it finishes: parallel writers' chunks interleave differently with the updates).
// A subgraph runs on the same one-worker executor: the task running it runs its tasks, in plan
// order.
#include <atomic>
#include <map>

#include "transcript.hpp"

namespace {
using namespace diff;


/// Compile options of a subgraph: the scenarios' one-worker executor (the task running a
/// subgraph runs its tasks, so they finish in plan order too).
sp::CompileOptions sub_opts() { return {.executor = diff::one_worker()}; }

/// A node writing `chunk` to the custom stream, then appending its name to `trace`.
sp::NodeFn writer(const std::string& name, json chunk) {
  return [name, chunk](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer(chunk);
    return json{{"trace", {name}}};
  };
}

/// sub: START -> p, q (parallel; p, first in plan order, writes a custom chunk when `custom`) -> r.
sp::StateGraph parallel_sub(bool custom) {
  sp::StateGraph s(trace_schema());
  if (custom) s.add_node("p", writer("p", json{{"from", "p"}}));
  else s.add_node("p", tracer("p"));
  s.add_node("q", tracer("q")).add_node("r", tracer("r"));
  s.add_edge(sp::START, "p").add_edge(sp::START, "q").add_edge("p", "r").add_edge("q", "r");
  return s;
}

Register sm_sub_parallel_modes{{"sm_sub_parallel_modes", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", writer("a", "a-chunk")).add_node("sub", parallel_sub(true).compile(sub_opts())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 1}}, with_subgraphs({}), {Mode::values, Mode::updates, Mode::custom, Mode::tasks});
  note("without subgraphs");
  stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::tasks});
}}};

Register sm_sub_interrupt_modes{{"sm_sub_interrupt_modes", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("p", tracer("p"));
  s.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer("before ask");
    std::string v = sp::interrupt(rt, "sub q").get<std::string>();
    rt.stream_writer("after ask " + v);
    return json{{"trace", {"ask:" + v}}};
  });
  s.add_node("r", tracer("r"));
  s.add_edge(sp::START, "p").add_edge(sp::START, "ask").add_edge("p", "r").add_edge("ask", "r");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(sub_opts())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::values, Mode::updates, Mode::custom, Mode::tasks});
  stream(app, sp::Command{.resume = "yes"}, with_subgraphs(), {Mode::values, Mode::updates, Mode::custom});
  state(app, thread());
}}};

Register sm_sub_send_custom{{"sm_sub_send_custom", false, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("fan", tracer("fan"));
  s.add_node("w", [](const sp::State& st, sp::Runtime& rt) {
    if (st.get<int>("n") == 1) rt.stream_writer(json{{"w", 1}});
    return json{{"trace", {"w" + n_of(st)}}};
  });
  s.add_node("done", tracer("done"));
  s.add_edge(sp::START, "fan");
  s.add_conditional_edges("fan", [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}, {"w", {{"n", 3}}}};
  });
  s.add_edge("w", "done");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(sub_opts())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 0}}, with_subgraphs({}), {Mode::updates, Mode::custom, Mode::values});
  stream(app, json{{"n", 0}}, with_subgraphs({}), {Mode::tasks});
}}};

Register sm_sub_nested_custom{{"sm_sub_nested_custom", false, [](Ctx& c) {
  sp::StateGraph inner(trace_schema());
  inner.add_node("i", writer("i", json{{"deep", true}}));
  inner.add_edge(sp::START, "i");
  sp::StateGraph mid(trace_schema());
  mid.add_node("m", writer("m", "mid")).add_node("inner", inner.compile(sub_opts()));
  mid.add_edge(sp::START, "m").add_edge("m", "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("top", writer("top", "top")).add_node("mid", mid.compile(sub_opts()));
  g.add_edge(sp::START, "top").add_edge("top", "mid");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 1}}, with_subgraphs({}), {Mode::custom});
  note("without subgraphs");
  stream(app, json{{"n", 1}}, {}, {Mode::custom});
  stream(app, json{{"n", 1}}, {}, {Mode::custom, Mode::updates, Mode::values});
}}};

Register sm_custom_then_fail{{"sm_custom_then_fail", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("ok", writer("ok", "ok-chunk"));
  g.add_node("bad", [](const sp::State&, sp::Runtime& rt) -> json {
    rt.stream_writer(json{{"bad", "before failing"}});
    throw std::runtime_error("bad failed");
  });
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "ok").add_edge(sp::START, "bad").add_edge("ok", "after");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 1}}, {}, {Mode::custom, Mode::updates});
  // Alone in its step (with a sibling, LangGraph.js aborts it on the failure: timing). Not with
  // `tasks`: LangGraph.js drops the parts still queued when the run fails (its failed task's
  // result, and with `values` too its chunk).
  sp::StateGraph g2(trace_schema());
  g2.add_node("a", writer("a", "a-chunk"));
  g2.add_node("bad", [](const sp::State&, sp::Runtime& rt) -> json {
    rt.stream_writer("bad chunk");
    throw std::runtime_error("bad failed");
  });
  g2.add_edge(sp::START, "a").add_edge("a", "bad");
  stream(g2.compile(c.plain()), json{{"n", 1}}, {}, {Mode::custom, Mode::values});
}}};

Register sm_custom_then_interrupt{{"sm_custom_then_interrupt", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", writer("a", "a-chunk"));
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer("asking");
    std::string v = sp::interrupt(rt, "q").get<std::string>();
    rt.stream_writer("got " + v);
    return json{{"trace", {"ask:" + v}}};
  });
  g.add_node("z", writer("z", "z-chunk"));
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::custom, Mode::updates});
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::custom, Mode::updates, Mode::values});
}}};

Register sm_custom_send{{"sm_custom_send", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("w", [](const sp::State& s, sp::Runtime& rt) {
    if (s.get<int>("n") == 1) {
      rt.stream_writer(json{{"n", 1}, {"at", "start"}});
      rt.stream_writer(json{{"n", 1}, {"at", "end"}});
    }
    return json{{"trace", {"w" + n_of(s)}}};
  });
  g.add_node("z", writer("z", "z-chunk"));
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}, {"w", {{"n", 3}}}};
  });
  g.add_edge("w", "z");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 0}}, {}, {Mode::custom, Mode::updates, Mode::tasks});
}}};

Register sm_values_interrupt_before_after{{"sm_values_interrupt_before_after", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("b", [](const sp::State& s) { return json{{"trace", {"b"}}, {"n", s.get<int>("n") + 1}}; });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile(c.opts({.interrupt_before = {"b"}, .interrupt_after = {"b"}}));
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::values});
  stream(app, json(nullptr), thread("t1"), {Mode::values});
  stream(app, json(nullptr), thread("t1"), {Mode::values});
  stream(app, json(nullptr), thread("t1"), {Mode::values});
  auto plain = g.compile(c.opts());
  sp::RunConfig cfg = thread("t2");
  cfg.interrupt_after = std::vector<std::string>{"a"};
  stream(plain, json{{"n", 1}}, cfg, {Mode::values, Mode::updates});
  stream(plain, json(nullptr), thread("t2"), {Mode::values, Mode::updates});
}}};

Register sm_values_interrupt_resume{{"sm_values_interrupt_resume", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("ask", [](const sp::State& s, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>() + ":n=" + n_of(s)}}};
  });
  g.add_node("w", tracer("w")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("a", "w").add_edge({"ask", "w"}, "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::values});
  stream(app, sp::Command{.resume = "yes"}, thread("t1"), {Mode::values});
  stream(app, json{{"n", 1}}, thread("t2"), {Mode::values});
  stream(app, sp::Command{.update = {{"n", 7}}, .resume = "up"}, thread("t2"), {Mode::values});
  stream(app, json{{"n", 2}}, thread("t2"), {Mode::values});
}}};

Register sm_updates_send_command{{"sm_updates_send_command", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"a"}}},
                       .go_to = {sp::Send{"w", {{"n", 1}}}, sp::Send{"w", {{"n", 2}}}, std::string("b")}};
  }, {.ends = {"w", "b"}});
  g.add_node("w", [](const sp::State& s) -> sp::NodeResult {
    int n = s.get<int>("n");
    if (n < 10) return sp::Command{.update = {{"trace", {"w" + n_of(s)}}}, .go_to = sp::Send{"w", {{"n", n * 10}}}};
    return json{{"trace", {"w" + n_of(s)}}};
  }, {.ends = {"w"}});
  g.add_node("b", tracer("b"));
  g.add_edge(sp::START, "a");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 0}}, {}, {Mode::updates, Mode::values});
}}};

Register sm_update_state_run_modes{{"sm_update_state_run_modes", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"a", "b", "c"}) g.add_node(n, tracer(n));
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile(c.opts({.interrupt_before = {"b"}}));
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
  update(app, thread("t1"), json{{"n", 5}, {"trace", {"edit"}}});
  stream(app, json(nullptr), thread("t1"), {Mode::updates, Mode::values, Mode::tasks});
  stream(app, json{{"n", 1}}, thread("t2"), {Mode::updates});
  update(app, thread("t2"), json{{"trace", {"as b"}}}, "b");
  stream(app, json(nullptr), thread("t2"), {Mode::debug});
}}};

Register sm_tasks_retry{{"sm_tasks_retry", true, [](Ctx& c) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("flaky", [calls](const sp::State&) {
    if (++*calls % 2 == 1) throw std::runtime_error("first try fails");
    return json{{"trace", {"flaky"}}};
  }, {.retry = quick_retry(2)});
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("flaky", "z");
  stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::tasks, Mode::updates});
  stream(g.compile(c.opts()), json{{"n", 1}}, thread(), {Mode::debug});
  emit(json{{"calls", calls->load()}});
}}};

Register sm_tasks_send_interrupt_before{{"sm_tasks_send_interrupt_before", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + n_of(s)}}}; });
  g.add_node("z", tracer("z"));
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}};
  });
  g.add_edge("w", "z");
  auto app = g.compile(c.opts({.interrupt_before = {"w"}}));
  stream(app, json{{"n", 0}}, thread("t1"), {Mode::tasks, Mode::updates, Mode::values});
  stream(app, json(nullptr), thread("t1"), {Mode::tasks, Mode::updates, Mode::values});
}}};

Register sm_modes_order_step{{"sm_modes_order_step", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", writer("a", "a-chunk")).add_node("b", tracer("b")).add_node("j", writer("j", "j-chunk"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "j").add_edge("b", "j");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::custom, Mode::tasks, Mode::updates, Mode::values, Mode::checkpoints});
  stream(app, json{{"n", 1}}, thread("t2"), {Mode::checkpoints, Mode::values, Mode::updates, Mode::tasks, Mode::custom});
}}};

Register sm_default_mode_subgraph{{"sm_default_mode_subgraph", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1"));
  s.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "sub q").get<std::string>()}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(sub_opts())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {});
  stream(app, sp::Command{.resume = "yes"}, thread(), {});
}}};

Register sm_sub_modes_no_flag{{"sm_sub_modes_no_flag", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", parallel_sub(false).compile(sub_opts())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(),
         {Mode::values, Mode::updates, Mode::custom, Mode::tasks, Mode::checkpoints, Mode::debug});
}}};

}  // namespace
