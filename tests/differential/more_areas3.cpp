// Scenarios of areas the suite did not cover (third round; js/mc_*.mjs are their LangGraph.js
// twins): coroutine nodes (Task<NodeResult>, co_await sleep_for) beside subgraphs and inside
// them, streamed with subgraphs in several modes, checkpointed and not; coroutine nodes that
// interrupt, fail, are retried, return Commands (also to the parent), run as Send targets and
// under max_concurrency; a step with both a Command goto and a conditional edge; the state and
// history of a thread whose run failed inside a subgraph; RemoveMessage from a subgraph in the
// messages mode; the recursion limit at its boundary in nested subgraphs.
#include <chrono>
#include <map>

#include "transcript.hpp"

namespace {
using namespace diff;
using std::chrono::milliseconds;

/// A coroutine node: a custom chunk `{name: "start"}`, a sleep of `ms`, `{name: "end"}`, then
/// appends `name` to trace.
sp::Task<sp::NodeResult> co_trace_impl(std::string name, int ms, sp::Runtime& rt) {
  rt.stream_writer(json{{name, "start"}});
  co_await sp::sleep_for(rt, milliseconds(ms));
  rt.stream_writer(json{{name, "end"}});
  co_return sp::NodeResult(json{{"trace", {name}}});
}
sp::NodeFn co_trace(const std::string& name, int ms) {
  return [name, ms](const sp::State&, sp::Runtime& rt) { return co_trace_impl(name, ms, rt); };
}
/// co_trace after a first sleep of `lead` ms (its "start" then comes after the chunks its
/// siblings send at once, whatever order the two libraries start tasks in).
sp::Task<sp::NodeResult> co_late_trace_impl(std::string name, int lead, int ms, sp::Runtime& rt) {
  co_await sp::sleep_for(rt, milliseconds(lead));
  co_return co_await co_trace_impl(name, ms, rt);
}
sp::NodeFn co_late_trace(const std::string& name, int lead, int ms) {
  return [name, lead, ms](const sp::State&, sp::Runtime& rt) { return co_late_trace_impl(name, lead, ms, rt); };
}
/// A coroutine node without custom chunks.
sp::Task<sp::NodeResult> co_quiet_impl(std::string name, int ms, sp::Runtime& rt) {
  co_await sp::sleep_for(rt, milliseconds(ms));
  co_return sp::NodeResult(json{{"trace", {name}}});
}
sp::NodeFn co_quiet(const std::string& name, int ms) {
  return [name, ms](const sp::State&, sp::Runtime& rt) { return co_quiet_impl(name, ms, rt); };
}

/// A coroutine node that sleeps, interrupts with `question`, sleeps again and appends
/// name:answer:n.
sp::Task<sp::NodeResult> co_ask_impl(std::string name, std::string question, std::string n, std::shared_ptr<int> calls,
                                     sp::Runtime& rt) {
  ++*calls;
  co_await sp::sleep_for(rt, milliseconds(5));
  std::string v = sp::interrupt(rt, question).get<std::string>();
  co_await sp::sleep_for(rt, milliseconds(5));
  co_return sp::NodeResult(json{{"trace", {name + ":" + v + ":" + n}}});
}
sp::NodeFn co_ask(const std::string& name, const std::string& question, std::shared_ptr<int> calls) {
  return [=](const sp::State& st, sp::Runtime& rt) { return co_ask_impl(name, question, n_of(st), calls, rt); };
}

// A coroutine node beside a subgraph holding a coroutine node beside a plain node, streamed
// with subgraphs in updates/values/custom/tasks, checkpointed (state, history) and not.
sp::StateGraph co_beside_graph(const Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("sc", co_trace("sc", 80)).add_node("sp", tracer("sp")).add_node("sj", tracer("sj"));
  s.add_edge(sp::START, "sc").add_edge(sp::START, "sp").add_edge("sc", "sj").add_edge("sp", "sj");
  sp::StateGraph g(trace_schema());
  g.add_node("pc", co_trace("pc", 30)).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "pc").add_edge(sp::START, "sub").add_edge("pc", "z").add_edge("sub", "z");
  return g;
}

Register mc_co_sub_beside{{"mc_co_sub_beside", true, [](Ctx& c) {
  auto app = co_beside_graph(c).compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values, Mode::custom});
  state(app, thread(), true);
  history(app, thread());
  auto plain = co_beside_graph(c).compile(c.plain());
  stream(plain, json{{"n", 1}}, with_subgraphs({}), {Mode::updates, Mode::custom});
  stream(plain, json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

Register mc_co_sub_tasks{{"mc_co_sub_tasks", true, [](Ctx& c) {
  auto app = co_beside_graph(c).compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::tasks, Mode::checkpoints});
  auto plain = co_beside_graph(c).compile(c.plain());
  stream(plain, json{{"n", 1}}, with_subgraphs({}), {Mode::tasks});
}}};

// Two subgraphs of coroutine nodes and a parent coroutine node in one step, streamed with
// subgraphs: on the one-worker pool (the subgraphs compiled with it too), then on the shared one.
void two_subs(const sp::CompileOptions& o) {
  // Each task's first chunk a few ms after the one before (A, then B, then pc): the order of
  // chunks sent at one instant from two threads is nobody's contract.
  auto sub = [&](const std::string& p, int lead, int ms) {
    sp::StateGraph s(trace_schema());
    s.add_node(p + "1", co_late_trace(p + "1", lead, ms)).add_node(p + "2", co_quiet(p + "2", ms));
    s.add_edge(sp::START, p + "1").add_edge(p + "1", p + "2");
    return s.compile(o);
  };
  sp::StateGraph g(trace_schema());
  g.add_node("A", sub("a", 0, 100)).add_node("B", sub("b", 30, 200)).add_node("pc", co_late_trace("pc", 60, 110));
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "A").add_edge(sp::START, "B").add_edge(sp::START, "pc").add_edge({"A", "B", "pc"}, "z");
  auto app = g.compile(o);
  stream(app, json{{"trace", {"in"}}}, with_subgraphs({}), {Mode::updates, Mode::custom});
  invoke(app, json{{"trace", {"in"}}});
}
Register mc_co_two_subs_pool{{"mc_co_two_subs_pool", false, [](Ctx& c) { two_subs(c.plain()); }}};
Register mc_co_two_subs_shared{{"mc_co_two_subs_shared", false, [](Ctx&) { two_subs({}); }}};

// A coroutine node interrupts after a sleep; resumed; it runs again from the top.
Register mc_co_interrupt{{"mc_co_interrupt", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", co_trace("a", 5)).add_node("ask", co_ask("ask", "q", calls)).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values, Mode::custom});
  emit(json{{"calls", *calls}});
  state(app, thread());
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
  history(app, thread());
}}};

// A coroutine node inside a subgraph interrupts while a parent coroutine node runs beside the
// subgraph; resumed with subgraphs streamed.
Register mc_co_sub_interrupt{{"mc_co_sub_interrupt", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", co_quiet("s1", 10)).add_node("ask", co_ask("ask", "sq", calls)).add_node("s3", tracer("s3"));
  s.add_edge(sp::START, "s1").add_edge("s1", "ask").add_edge("ask", "s3");
  sp::StateGraph g(trace_schema());
  g.add_node("pc", co_trace("pc", 150)).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "pc").add_edge(sp::START, "sub").add_edge({"pc", "sub"}, "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values, Mode::custom});
  emit(json{{"calls", *calls}});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "ok"}, with_subgraphs(), {Mode::updates, Mode::values, Mode::custom});
  emit(json{{"calls", *calls}});
  state(app, thread(), true);
  history(app, thread());
}}};

// Three levels of coroutine nodes, the innermost interrupting; resumed.
Register mc_co_nested3_interrupt{{"mc_co_nested3_interrupt", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph inner(trace_schema());
  inner.add_node("i1", co_trace("i1", 10)).add_node("iask", co_ask("iask", "deep", calls));
  inner.add_edge(sp::START, "i1").add_edge("i1", "iask");
  sp::StateGraph mid(trace_schema());
  mid.add_node("m1", co_quiet("m1", 5)).add_node("inner", inner.compile(c.plain())).add_node("m2", co_quiet("m2", 5));
  mid.add_edge(sp::START, "m1").add_edge("m1", "inner").add_edge("inner", "m2");
  sp::StateGraph g(trace_schema());
  g.add_node("p1", co_quiet("p1", 5)).add_node("mid", mid.compile(c.plain())).add_node("p2", tracer("p2"));
  g.add_edge(sp::START, "p1").add_edge("p1", "mid").add_edge("mid", "p2");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::custom});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "bottom"}, with_subgraphs(), {Mode::updates, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
}}};

// A coroutine node failing after its await, retried until it succeeds; another running out.
sp::Task<sp::NodeResult> co_flaky_impl(std::shared_ptr<int> calls, int fails, sp::Runtime& rt) {
  int k = ++*calls;
  co_await sp::sleep_for(rt, milliseconds(3));
  if (k <= fails) throw std::runtime_error("co fail " + std::to_string(k));
  co_return sp::NodeResult(json{{"trace", {"flaky" + std::to_string(k)}}});
}
Register mc_co_retry{{"mc_co_retry", false, [](Ctx& c) {
  for (int attempts : {3, 2}) {
    auto calls = std::make_shared<int>(0);
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a"));
    g.add_node("flaky", [calls](const sp::State&, sp::Runtime& rt) { return co_flaky_impl(calls, 2, rt); },
               {.retry = quick_retry(attempts)});
    g.add_node("side", co_quiet("side", 1));
    g.add_node("c", tracer("c"));
    g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("a", "side").add_edge({"flaky", "side"}, "c");
    auto app = g.compile(c.plain());
    stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::values});
    emit(json{{"calls", *calls}});
  }
}}};

// A checkpointed failure of a coroutine node, then a resume that succeeds.
Register mc_co_fail_resume{{"mc_co_fail_resume", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("flaky", [calls](const sp::State&, sp::Runtime& rt) { return co_flaky_impl(calls, 1, rt); });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("flaky", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
}}};

// Send fan-out to a coroutine node whose sleeps make them finish in reverse order; one interrupts.
sp::StateSchema item_schema() {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append, json::array()).field("item");
  return s;
}
sp::Task<sp::NodeResult> co_worker_impl(int item, bool ask, sp::Runtime& rt) {
  co_await sp::sleep_for(rt, milliseconds((4 - item) * 25));
  if (ask && item == 2) {
    std::string v = sp::interrupt(rt, "item 2").get<std::string>();
    co_return sp::NodeResult(json{{"trace", {"w2:" + v}}});
  }
  co_return sp::NodeResult(json{{"trace", {"w" + std::to_string(item)}}});
}
sp::StateGraph co_send_graph(bool ask) {
  sp::StateGraph g(item_schema());
  g.add_node("w", [ask](const sp::State& st, sp::Runtime& rt) { return co_worker_impl(st.get<int>("item"), ask, rt); });
  g.add_node("collect", tracer("collect"));
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> out;
    for (int i : {1, 2, 3}) out.push_back({"w", json{{"item", i}}});
    return out;
  });
  g.add_edge("w", "collect");
  return g;
}
Register mc_co_send{{"mc_co_send", true, [](Ctx& c) {
  auto plain = co_send_graph(false).compile(c.plain());
  stream(plain, json{{"item", 0}}, {}, {Mode::updates, Mode::values});
  auto app = co_send_graph(true).compile(c.opts());
  stream(app, json{{"item", 0}}, thread(), {Mode::updates, Mode::values});
  stream(app, sp::Command{.resume = "B"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

// max_concurrency 2 over four Sends to a coroutine node: a third starts when one of the first
// two ends. (max_concurrency 1 is left out: LangGraph.js 1.7.3 then runs only the step's first
// task.)
Register mc_co_send_maxconc{{"mc_co_send_maxconc", false, [](Ctx& c) {
  sp::StateGraph g(item_schema());
  g.add_node("w", [](const sp::State& st, sp::Runtime& rt) {
    int item = st.get<int>("item");
    static const std::map<int, int> sleep_ms = {{1, 150}, {2, 40}, {3, 40}, {4, 20}};
    return co_trace_impl("w" + std::to_string(item), sleep_ms.at(item), rt);
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> out;
    for (int i : {1, 2, 3, 4}) out.push_back({"w", json{{"item", i}}});
    return out;
  });
  auto app = g.compile(c.plain());
  sp::RunConfig cfg;
  cfg.max_concurrency = 2;
  stream(app, json{{"item", 0}}, cfg, {Mode::custom, Mode::updates, Mode::values});
}}};

// Coroutine nodes returning Commands: goto with update, and Command(PARENT) from inside a
// subgraph while a slower coroutine sibling runs.
sp::Task<sp::NodeResult> co_cmd_impl(sp::Command cmd, int ms, sp::Runtime& rt) {
  co_await sp::sleep_for(rt, milliseconds(ms));
  co_return sp::NodeResult(std::move(cmd));
}
Register mc_co_command{{"mc_co_command", false, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("slow", co_quiet("slow", 60));
  s.add_node("jump", [](const sp::State&, sp::Runtime& rt) {
    return co_cmd_impl(sp::Command{.update = {{"trace", {"jump"}}}, .go_to = std::string("p"), .graph = sp::Command::PARENT},
                       10, rt);
  });
  s.add_node("after_slow", tracer("after_slow"));
  s.add_edge(sp::START, "slow").add_edge(sp::START, "jump").add_edge("slow", "after_slow");
  sp::StateGraph g(trace_schema());
  g.add_node("r", [](const sp::State&, sp::Runtime& rt) {
    return co_cmd_impl(sp::Command{.update = {{"trace", {"r"}}, {"n", 2}}, .go_to = std::string("sub")}, 5, rt);
  }, {.ends = {"sub"}});
  g.add_node("sub", s.compile(c.plain()), {.ends = {"p"}});
  g.add_node("p", tracer("p")).add_node("after", tracer("after"));
  g.add_edge(sp::START, "r").add_edge("sub", "after");
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 1}}, with_subgraphs({}), {Mode::updates, Mode::values});
  invoke(app, json{{"n", 1}});
}}};

// A step with both a Command goto and a conditional edge out of one node (the same target and
// different ones), streamed in values+updates; checkpointed with state and history.
sp::StateGraph goto_cond_graph(const std::string& go, const std::string& cond) {
  sp::StateGraph g(trace_schema());
  g.add_node("r", [go](const sp::State& st) {
    return sp::Command{.update = {{"trace", {"r"}}, {"n", st.get<int>("n") + 1}}, .go_to = go};
  }, {.ends = {"x", "y"}});
  g.add_node("x", tracer("x")).add_node("y", tracer("y")).add_node("w", tracer("w"));
  g.add_edge(sp::START, "r");
  g.add_conditional_edges("r", [cond](const sp::State& st) -> sp::Route {
    return st.get<int>("n") >= 2 ? sp::Route(cond) : sp::Route(std::string(sp::END));
  });
  g.add_edge("x", "w").add_edge("y", "w");
  return g;
}
Register mc_goto_and_cond{{"mc_goto_and_cond", true, [](Ctx& c) {
  auto app = goto_cond_graph("x", "y").compile(c.opts());
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::values, Mode::updates});
  state(app, thread("t1"));
  history(app, thread("t1"));
  auto same = goto_cond_graph("x", "x").compile(c.opts());
  stream(same, json{{"n", 1}}, thread("t2"), {Mode::values, Mode::updates});
  stream(same, json{{"n", 0}}, thread("t3"), {Mode::values, Mode::updates});
  state(same, thread("t3"));
}}};

// The same inside a subgraph, streamed with subgraphs.
Register mc_goto_and_cond_sub{{"mc_goto_and_cond_sub", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("sub", goto_cond_graph("x", "y").compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::values, Mode::updates});
  state(app, thread());
}}};

sp::Task<sp::NodeResult> co_boom_impl(bool fail, sp::Runtime& rt) {
  co_await sp::sleep_for(rt, milliseconds(30));
  if (fail) throw std::runtime_error("sub boom");
  co_return sp::NodeResult(json{{"trace", {"boom"}}});
}
// get_state / get_state_history of a thread whose last run failed inside a subgraph (a
// coroutine node beside the failing one), then a resume that succeeds.
Register mc_fail_sub_history{{"mc_fail_sub_history", true, [](Ctx& c) {
  auto fail = std::make_shared<bool>(true);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("sco", co_quiet("sco", 5));
  s.add_node("boom", [fail](const sp::State&, sp::Runtime& rt) { return co_boom_impl(*fail, rt); });
  s.add_edge(sp::START, "s1").add_edge("s1", "boom").add_edge("s1", "sco");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  state(app, thread());
  history(app, thread());
  *fail = false;
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread(), nullptr, std::nullopt, 2);
}}};

// messages mode with add_messages: a subgraph removes a parent's message and adds its own.
json msg(const std::string& type, const std::string& content, const std::string& id) {
  return json{{"type", type}, {"content", content}, {"id", id}};
}
json remove_msg(const std::string& id) { return json{{"type", "remove"}, {"content", ""}, {"id", id}}; }
sp::StateSchema msgs_schema() {
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages, json::array());
  return s;
}
Register mc_msg_remove_sub{{"mc_msg_remove_sub", false, [](Ctx& c) {
  sp::StateGraph s(msgs_schema());
  s.add_node("inner", [](const sp::State&) {
    return json{{"messages", json::array({remove_msg("a-1"), msg("ai", "from inner", "s-1")})}};
  });
  s.add_edge(sp::START, "inner");
  sp::StateGraph g(msgs_schema());
  g.add_node("bot", [](const sp::State&) {
    return json{{"messages", json::array({msg("ai", "one", "a-1"), msg("ai", "two", "a-2")})}};
  });
  g.add_node("sub", s.compile(c.plain()));
  g.add_node("after", [](const sp::State&) { return json{{"messages", json::array({remove_msg("s-1")})}}; });
  g.add_edge(sp::START, "bot").add_edge("bot", "sub").add_edge("sub", "after");
  auto app = g.compile(c.plain());
  json input = json{{"messages", json::array({msg("human", "hi", "h-1")})}};
  stream(app, input, with_subgraphs({}), {Mode::messages, Mode::updates, Mode::values});
  stream(app, input, {}, {Mode::messages});
}}};

// The recursion limit at its boundary in nested subgraphs: each graph counts its own steps.
Register mc_recursion_nested{{"mc_recursion_nested", false, [](Ctx& c) {
  sp::StateGraph inner(trace_schema());
  inner.add_node("i1", tracer("i1")).add_node("i2", tracer("i2")).add_node("i3", tracer("i3")).add_node("i4", tracer("i4"));
  inner.add_edge(sp::START, "i1").add_edge("i1", "i2").add_edge("i2", "i3").add_edge("i3", "i4");
  sp::StateGraph mid(trace_schema());
  mid.add_node("m1", tracer("m1")).add_node("inner", inner.compile(c.plain()));
  mid.add_edge(sp::START, "m1").add_edge("m1", "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("p1", tracer("p1")).add_node("mid", mid.compile(c.plain())).add_node("p3", tracer("p3"));
  g.add_edge(sp::START, "p1").add_edge("p1", "mid").add_edge("mid", "p3");
  auto app = g.compile(c.plain());
  for (int limit : {3, 4, 5}) {
    note("limit " + std::to_string(limit));
    sp::RunConfig cfg;
    cfg.recursion_limit = limit;
    invoke(app, json{{"n", 1}}, cfg);
    cfg.subgraphs = true;
    stream(app, json{{"n", 1}}, cfg, {Mode::updates});
  }
}}};

// remaining_steps seen by nodes at each level of nested subgraphs (a coroutine node too).
Register mc_remaining_nested{{"mc_remaining_nested", false, [](Ctx& c) {
  sp::StateSchema schema = trace_schema();
  auto rem = [](const std::string& name) {
    return [name](const sp::State&, sp::Runtime& rt) {
      return json{{"trace", {name + ":" + std::to_string(rt.remaining_steps())}}};
    };
  };
  sp::StateGraph inner(schema);
  inner.add_node("i1", rem("i1")).add_node("i2", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, milliseconds(2));
    co_return sp::NodeResult(json{{"trace", {"i2:" + std::to_string(rt.remaining_steps())}}});
  });
  inner.add_edge(sp::START, "i1").add_edge("i1", "i2");
  sp::StateGraph g(schema);
  g.add_node("p1", rem("p1")).add_node("p2", rem("p2")).add_node("inner", inner.compile(c.plain()));
  g.add_edge(sp::START, "p1").add_edge("p1", "p2").add_edge("p2", "inner");
  auto app = g.compile(c.plain());
  sp::RunConfig cfg;
  cfg.recursion_limit = 6;
  invoke(app, json{{"n", 1}}, cfg);
}}};

// A coroutine node still sleeping when a sibling fails: what is streamed, without and with a
// checkpointer.
Register mc_co_fail_beside{{"mc_co_fail_beside", true, [](Ctx& c) {
  auto build = [] {
    sp::StateGraph g(trace_schema());
    g.add_node("slow", co_trace("slow", 60));
    g.add_node("boom", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      co_await sp::sleep_for(rt, milliseconds(5));
      throw std::runtime_error("boom after await");
    });
    g.add_node("z", tracer("z"));
    g.add_edge(sp::START, "slow").add_edge(sp::START, "boom").add_edge({"slow", "boom"}, "z");
    return g;
  };
  stream(build().compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::custom});
  auto app = build().compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  state(app, thread());
}}};

// interrupt_before a coroutine node inside a subgraph (subgraph's compile option), resumed.
Register mc_co_before_in_sub{{"mc_co_before_in_sub", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", co_quiet("s1", 5)).add_node("s2", co_trace("s2", 5));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::CompileOptions so = c.plain();
  so.interrupt_before = {"s2"};
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(so)).add_node("pc", co_quiet("pc", 100)).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge(sp::START, "pc").add_edge({"sub", "pc"}, "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values, Mode::custom});
  state(app, thread());
}}};

// A subgraph compiled with interrupt_before (then interrupt_after) of its own nodes, plain
// nodes, streamed with subgraphs in updates+values; resumed with null.
Register mc_sub_before_streamed{{"mc_sub_before_streamed", true, [](Ctx& c) {
  for (bool before : {true, false}) {
    sp::StateGraph s(trace_schema());
    s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2"));
    s.add_edge(sp::START, "s1").add_edge("s1", "s2");
    sp::CompileOptions so = c.plain();
    if (before) so.interrupt_before = {"s2"};
    else so.interrupt_after = {"s1"};
    sp::StateGraph g(trace_schema());
    g.add_node("sub", s.compile(so)).add_node("z", tracer("z"));
    g.add_edge(sp::START, "sub").add_edge("sub", "z");
    auto app = g.compile(c.opts());
    std::string tid = before ? "t1" : "t2";
    stream(app, json{{"n", 1}}, with_subgraphs(thread(tid)), {Mode::updates, Mode::values});
    stream(app, json(nullptr), with_subgraphs(thread(tid)), {Mode::updates, Mode::values});
  }
}}};

// The C++ side consumed with astream from a coroutine (sync_wait at the edge), ainvoke too: the
// same parts and result as stream/invoke (adrain). A coroutine subgraph interrupting, resumed.
template <class In>
void astream(const sp::CompiledStateGraph& app, const In& input, const sp::RunConfig& cfg, std::vector<Mode> modes) {
  try {
    (void)sp::sync_wait(adrain(app.astream(input, cfg, modes)));
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}
Register mc_co_astream{{"mc_co_astream", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", co_trace("s1", 10)).add_node("ask", co_ask("ask", "aq", calls));
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("pc", co_trace("pc", 150)).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "pc").add_edge(sp::START, "sub").add_edge({"pc", "sub"}, "z");
  auto app = g.compile(c.opts());
  astream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::custom, Mode::values});
  astream(app, sp::Command{.resume = "A"}, with_subgraphs(), {Mode::updates, Mode::custom, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
  try {
    emit(json{{"result", sp::sync_wait(app.ainvoke(json{{"n", 2}}, thread("t2")))}});
    emit(json{{"result", sp::sync_wait(app.ainvoke(sp::Command{.resume = "B"}, thread("t2")))}});
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}}};

}  // namespace
