// Scenarios of areas the suite did not cover (second round; js/mb_*.mjs are their LangGraph.js
// twins): interrupts in Send tasks inside a subgraph, Command(PARENT) with Sends, interrupt_after
// on a Command router and on a subgraph, retries before an interrupt, defer inside a subgraph and
// with an interrupt, a subgraph run twice on one thread, update_state as a subgraph's node and as
// the input, Command goto END checkpointed, failures in Send tasks (also inside subgraphs), the
// recursion limit at its boundary with Sends, messages metadata of Send tasks, interrupt_before
// "*" per call, reducer-only inputs and defaults, unknown resume ids, tasks of Sends in a subgraph.
#include <map>

#include "transcript.hpp"

namespace {
using namespace diff;

sp::StateSchema item_schema() {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append, json::array()).field("item");
  return s;
}

std::vector<sp::Send> sends(const std::string& node, const std::string& key, std::vector<int> values) {
  std::vector<sp::Send> out;
  for (int v : values) out.push_back({node, json{{key, v}}});
  return out;
}

Register mb_sub_send_interrupts{{"mb_sub_send_interrupts", true, [](Ctx& c) {
  sp::StateGraph s(item_schema());
  s.add_node("w", [](const sp::State& st, sp::Runtime& rt) {
    int item = st.get<int>("item");
    if (item >= 2) {
      std::string v = sp::interrupt(rt, "need " + std::to_string(item)).get<std::string>();
      return json{{"trace", {"w" + std::to_string(item) + ":" + v}}};
    }
    return json{{"trace", {"w" + std::to_string(item)}}};
  });
  s.add_node("collect", tracer("collect"));
  s.add_conditional_edges(sp::START, [](const sp::State&) { return sends("w", "item", {1, 2, 3}); });
  s.add_edge("w", "collect");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  auto ids = ids_by_value(app);
  stream(app, sp::Command{.resume = json{{ids["need 3"], "C"}}}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = json{{ids["need 2"], "B"}}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register mb_goto_send_parent{{"mb_goto_send_parent", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1"));
  s.add_node("jump", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"jump"}}},
                       .go_to = sp::Route{sp::Send{"w", json{{"n", 7}}}, std::string("p")},
                       .graph = sp::Command::PARENT};
  });
  s.add_node("s3", tracer("s3"));
  s.add_edge(sp::START, "s1").add_edge("s1", "jump").add_edge("jump", "s3");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain()), {.ends = {"w", "p"}});
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_node("p", tracer("p")).add_node("after", tracer("after"));
  g.add_edge(sp::START, "sub").add_edge("sub", "after");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

sp::StateGraph command_router_graph() {
  sp::StateGraph g(trace_schema());
  g.add_node("r", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"r"}}, {"n", 2}},
                       .go_to = sp::Route{std::string("b"), sp::Send{"w", json{{"n", 9}}}}};
  }, {.ends = {"b", "w"}});
  g.add_node("b", tracer("b"));
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "r").add_edge("b", "c");
  return g;
}

Register mb_interrupt_after_command{{"mb_interrupt_after_command", true, [](Ctx& c) {
  sp::CompileOptions o;
  o.interrupt_after = {"r"};
  auto app = command_router_graph().compile(c.opts(o));
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates, Mode::values});
  state(app, thread("t1"));
  stream(app, json(nullptr), thread("t1"), {Mode::updates, Mode::values});
  state(app, thread("t1"));
  auto app2 = command_router_graph().compile(c.opts());
  sp::RunConfig cfg = thread("t2");
  cfg.interrupt_after = std::vector<std::string>{"w"};
  stream(app2, json{{"n", 1}}, cfg, {Mode::updates});
  state(app2, thread("t2"));
  stream(app2, json(nullptr), thread("t2"), {Mode::updates});
  state(app2, thread("t2"));
}}};

Register mb_retry_then_interrupt{{"mb_retry_then_interrupt", true, [](Ctx& c) {
  auto calls = std::make_shared<int>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("flaky", [calls](const sp::State&, sp::Runtime& rt) {
    int k = ++*calls;
    if (k == 1) throw std::runtime_error("first attempt fails");
    std::string v = sp::interrupt(rt, "q").get<std::string>();
    return json{{"trace", {"flaky:" + v + ":" + std::to_string(k)}}};
  }, {.retry = quick_retry(3)});
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("flaky", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", *calls}});
  state(app, thread());
}}};

Register mb_defer_in_subgraph{{"mb_defer_in_subgraph", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("x", tracer("x")).add_node("y", tracer("y")).add_node("y2", tracer("y2"));
  s.add_node("d", tracer("d"), {.defer = true});
  s.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge("y", "y2").add_edge("x", "d").add_edge("y2", "d");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("p", tracer("p")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge(sp::START, "p").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  state(app, thread());
}}};

Register mb_sub_twice{{"mb_sub_twice", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1"));
  s.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain()));
  g.add_node("count", [](const sp::State& st) { return json{{"n", st.get<int>("n") + 1}, {"trace", {"count"}}}; });
  g.add_edge(sp::START, "sub").add_edge("sub", "count");
  g.add_conditional_edges("count", [](const sp::State& st) -> sp::Route {
    return st.get<int>("n") < 3 ? "sub" : sp::END;
  });
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "one"}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "two"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}}};

Register mb_update_sub_as_node{{"mb_update_sub_as_node", true, [](Ctx& c) {
  for (auto [tid, as_node] : {std::pair<std::string, std::string>{"t1", "s1"}, {"t2", "ask"}}) {
    sp::StateGraph s(trace_schema());
    s.add_node("s1", tracer("s1"));
    s.add_node("ask", [](const sp::State& st, sp::Runtime& rt) {
      std::string v = sp::interrupt(rt, "q").get<std::string>();
      return json{{"trace", {"ask:" + v + ":" + n_of(st)}}};
    });
    s.add_node("s3", tracer("s3"));
    s.add_edge(sp::START, "s1").add_edge("s1", "ask").add_edge("ask", "s3");
    sp::StateGraph g(trace_schema());
    g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
    g.add_edge(sp::START, "sub").add_edge("sub", "z");
    auto app = g.compile(c.opts());
    stream(app, json{{"n", 1}}, thread(tid), {Mode::updates});
    auto snap = app.get_state(thread(tid), true);
    update(app, at_config(snap.tasks.at(0).state->config), json{{"n", 5}, {"trace", {"edit"}}}, as_node);
    state(app, thread(tid), true);
    stream(app, sp::Command{.resume = "r"}, with_subgraphs(thread(tid)), {Mode::updates, Mode::values});
    state(app, thread(tid));
  }
}}};

Register mb_cmd_end_checkpointed{{"mb_cmd_end_checkpointed", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) { return sp::Command{.update = {{"trace", {"a"}}, {"n", 2}}, .go_to = sp::END}; });
  g.add_node("b", tracer("b"));
  g.add_node("c", [](const sp::State& st) { return sp::Command{.update = {{"trace", {"c" + n_of(st)}}}, .go_to = sp::END}; });
  g.add_edge(sp::START, "a").add_edge(sp::START, "c").add_edge("a", "b");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::values, Mode::updates, Mode::checkpoints});
  state(app, thread());
  history(app, thread());
}}};

Register mb_send_failure_state{{"mb_send_failure_state", true, [](Ctx& c) {
  auto broken = std::make_shared<bool>(true);
  auto runs = std::make_shared<RunCounts>();
  sp::StateGraph g(trace_schema());
  g.add_node("w", [broken, runs](const sp::State& st) {
    int n = st.get<int>("n");
    runs->count("w" + std::to_string(n));
    if (n == 2 && *broken) throw std::runtime_error("w2 broke");
    return json{{"trace", {"w" + std::to_string(n)}}};
  });
  g.add_node("reduce", tracer("reduce"));
  g.add_conditional_edges(sp::START, [](const sp::State&) { return sends("w", "n", {1, 2, 3}); });
  g.add_edge("w", "reduce");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 0}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  *broken = false;
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"runs", runs->to_json()}});
}}};

Register mb_recursion_boundary{{"mb_recursion_boundary", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("fan", tracer("fan"));
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_node("reduce", tracer("reduce")).add_node("fin", tracer("fin"));
  g.add_edge(sp::START, "fan");
  g.add_conditional_edges("fan", [](const sp::State&) { return sends("w", "n", {1, 2}); });
  g.add_edge("w", "reduce").add_edge("reduce", "fin");
  auto app = g.compile(c.opts());
  for (int limit : {3, 4}) {
    sp::RunConfig cfg = thread("t" + std::to_string(limit));
    cfg.recursion_limit = limit;
    stream(app, json{{"n", 0}}, cfg, {Mode::updates});
    state(app, thread("t" + std::to_string(limit)));
  }
  sp::RunConfig cfg = thread("t3");
  cfg.recursion_limit = 1;
  stream(app, json(nullptr), cfg, {Mode::updates});
  state(app, thread("t3"));
}}};

Register mb_msg_send_meta{{"mb_msg_send_meta", true, [](Ctx& c) {
  sp::StateSchema schema;
  schema.field("messages", sp::reducers::add_messages, json::array()).field("k");
  sp::StateGraph g(schema);
  g.add_node("w", [](const sp::State& st) {
    std::string k = std::to_string(st.get<int>("k"));
    return json{{"messages", json::array({{{"type", "ai"}, {"content", "from w " + k}, {"id", "w-" + k}}})}};
  });
  g.add_node("p", [](const sp::State&) {
    return json{{"messages", json::array({{{"type", "ai"}, {"content", "from p"}, {"id", "p-1"}}})}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return sp::Route{std::string("p"), sp::Send{"w", json{{"k", 1}}}, sp::Send{"w", json{{"k", 2}}}};
  });
  auto app = g.compile(c.opts());
  stream(app, json{{"messages", json::array({{{"type", "human"}, {"content", "go"}, {"id", "h-1"}}})}}, thread("t1"),
         {Mode::messages});
}}};

Register mb_before_star_resume{{"mb_before_star_resume", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State&) { return sends("w", "n", {1, 2}); });
  g.add_edge("w", "z");
  auto app = g.compile(c.opts());
  sp::RunConfig star = thread();
  star.interrupt_before = std::vector<std::string>{"*"};
  stream(app, json{{"n", 0}}, star, {Mode::values, Mode::updates});
  state(app, thread());
  stream(app, json(nullptr), star, {Mode::values, Mode::updates});
  state(app, thread());
  stream(app, json(nullptr), star, {Mode::values, Mode::updates});
  state(app, thread());
  stream(app, json(nullptr), thread(), {Mode::values, Mode::updates});
  state(app, thread());
}}};

Register mb_input_reducer_default{{"mb_input_reducer_default", false, [](Ctx& c) {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append, json::array());
  s.field("total", sp::reducers::add, json(10));
  s.field("mode", sp::Reducer([](json, json upd) { return upd; }, "last"), json("dflt"));
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State& st) {
    return json{{"trace", {"a:" + st.get<std::string>("mode") + ":" + std::to_string(st.get<int>("total"))}}, {"total", 1}};
  });
  g.add_edge(sp::START, "a");
  auto app = g.compile(c.plain());
  stream(app, json{{"trace", {"in"}}, {"total", 5}}, {}, {Mode::values, Mode::updates});
  stream(app, json{{"trace", {"in"}}}, {}, {Mode::values});
  stream(app, json::object(), {}, {Mode::values, Mode::updates});
  invoke(app, json{{"total", 0}, {"mode", "given"}});
}}};

Register mb_resume_unknown_id{{"mb_resume_unknown_id", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  const std::string bogus = "0123456789abcdef0123456789abcdef";
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.resume = json{{bogus, "nope"}}}, thread(), {Mode::updates});
  state(app, thread());
  std::string id = app.get_state(thread()).tasks.at(0).interrupts.at(0).id;
  stream(app, sp::Command{.resume = json{{id, "yes"}, {bogus, "extra"}}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register mb_interrupt_after_sub{{"mb_interrupt_after_sub", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2"));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  sp::CompileOptions o;
  o.interrupt_after = {"sub"};
  auto app = g.compile(c.opts(o));
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register mb_defer_interrupt{{"mb_defer_interrupt", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("x", tracer("x")).add_node("y", tracer("y")).add_node("y2", tracer("y2"));
  g.add_node("d", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"d:" + sp::interrupt(rt, "ok?").get<std::string>()}}};
  }, {.defer = true});
  g.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge("y", "y2").add_edge("x", "d").add_edge("y2", "d");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, sp::Command{.resume = "go"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register mb_sub_send_fail_state{{"mb_sub_send_fail_state", true, [](Ctx& c) {
  auto broken = std::make_shared<bool>(true);
  auto runs = std::make_shared<RunCounts>();
  sp::StateGraph s(item_schema());
  s.add_node("w", [broken, runs](const sp::State& st) {
    int item = st.get<int>("item");
    runs->count("w" + std::to_string(item));
    if (item == 2 && *broken) throw std::runtime_error("sub w2 broke");
    return json{{"trace", {"w" + std::to_string(item)}}};
  });
  s.add_edge(sp::START, "w");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_conditional_edges(sp::START, [](const sp::State&) { return sends("sub", "item", {1, 2, 3}); });
  g.add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 0}}, thread(), {Mode::updates});
  state(app, thread(), true);
  *broken = false;
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"runs", runs->to_json()}});
}}};

Register mb_update_as_input{{"mb_update_as_input", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge("a", "b");
  auto app = g.compile(c.opts());
  update(app, thread("t1"), json{{"n", 3}, {"trace", {"u"}}}, sp::START);
  state(app, thread("t1"));
  stream(app, json(nullptr), thread("t1"), {Mode::updates, Mode::values});
  invoke(app, json{{"n", 1}}, thread("t2"));
  update(app, thread("t2"), json{{"n", 4}}, sp::START);
  state(app, thread("t2"));
  stream(app, json(nullptr), thread("t2"), {Mode::updates});
  update(app, thread("t3"), json{{"n", 5}}, "__input__");
  state(app, thread("t3"));
}}};

Register mb_tasks_sub_send{{"mb_tasks_sub_send", false, [](Ctx& c) {
  sp::StateGraph s(item_schema());
  s.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + std::to_string(st.get<int>("item"))}}}; });
  s.add_conditional_edges(sp::START, [](const sp::State&) { return sends("w", "item", {1, 2}); });
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  sp::RunConfig cfg;
  cfg.subgraphs = true;
  stream(g.compile(c.plain()), json{{"n", 1}}, cfg, {Mode::tasks});
}}};

Register mb_goto_self_send_interrupt{{"mb_goto_self_send_interrupt", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("loop", [](const sp::State& st, sp::Runtime& rt) -> sp::NodeResult {
    int n = st.get<int>("n");
    std::string tag = "l" + std::to_string(n);
    if (n == 3) tag += ":" + sp::interrupt(rt, "at 3").get<std::string>();
    if (n < 4) return sp::Command{.update = {{"trace", {tag}}}, .go_to = sp::Send{"loop", json{{"n", n + 1}}}};
    return json{{"trace", {tag}}};
  }, {.ends = {"loop"}});
  g.add_edge(sp::START, "loop");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  state(app, thread());
  stream(app, sp::Command{.resume = "go"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}}};


Register mb_update_as_cmd_router{{"mb_update_as_cmd_router", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("r", [](const sp::State& st) {
    return sp::Command{.update = {{"trace", {"r"}}}, .go_to = st.get<int>("n") > 1 ? "b" : "c"};
  }, {.ends = {"b", "c"}});
  g.add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "r");
  sp::CompileOptions o;
  o.interrupt_before = {"c"};
  auto app = g.compile(c.opts(o));
  invoke(app, json{{"n", 2}}, thread("t1"));
  update(app, thread("t1"), json{{"n", 5}}, "r");
  state(app, thread("t1"));
  stream(app, json(nullptr), thread("t1"), {Mode::updates});
  invoke(app, json{{"n", 1}}, thread("t2"));
  state(app, thread("t2"));
  update(app, thread("t2"), json{{"n", 7}}, "r");
  state(app, thread("t2"));
  stream(app, json(nullptr), thread("t2"), {Mode::updates});
  state(app, thread("t2"));
}}};

Register mb_update_as_sub_paused{{"mb_update_as_sub_paused", true, [](Ctx& c) {
  auto s1 = std::make_shared<int>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", [s1](const sp::State&) { ++*s1; return json{{"trace", {"s1"}}}; });
  s.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  update(app, thread(), json{{"trace", {"as sub"}}}, "sub");
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"s1", *s1}});
}}};

Register mb_parent_goto_end{{"mb_parent_goto_end", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("jump", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"jump"}}}, .go_to = sp::END, .graph = sp::Command::PARENT};
  });
  s.add_node("s2", tracer("s2"));
  s.add_edge(sp::START, "jump").add_edge("jump", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register mb_sub_star_per_call{{"mb_sub_star_per_call", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2"));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  sp::RunConfig cfg = with_subgraphs();
  cfg.interrupt_before = std::vector<std::string>{"*"};
  stream(app, json{{"n", 1}}, cfg, {Mode::updates});
  for (int i = 0; i < 4; ++i) {
    state(app, thread());
    stream(app, json(nullptr), cfg, {Mode::updates});
  }
  state(app, thread());
}}};

Register mb_send_retry_interrupt{{"mb_send_retry_interrupt", true, [](Ctx& c) {
  auto calls = std::make_shared<RunCounts>();
  sp::StateGraph g(trace_schema());
  g.add_node("w", [calls](const sp::State& st, sp::Runtime& rt) {
    int n = st.get<int>("n");
    int k = calls->count("w" + std::to_string(n));
    if (n == 1 && k == 1) throw std::runtime_error("w1 first attempt");
    if (n == 1) return json{{"trace", {"w1:" + sp::interrupt(rt, "w1?").get<std::string>() + ":" + std::to_string(k)}}};
    return json{{"trace", {"w" + std::to_string(n)}}};
  }, {.retry = quick_retry(3)});
  g.add_node("reduce", tracer("reduce"));
  g.add_conditional_edges(sp::START, [](const sp::State&) { return sends("w", "n", {1, 2}); });
  g.add_edge("w", "reduce");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 0}}, thread(), {Mode::updates});
  emit(json{{"calls", calls->to_json()}});
  state(app, thread());
  stream(app, sp::Command{.resume = "ok"}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
}}};

Register mb_update_overwrite{{"mb_update_overwrite", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge("a", "b");
  sp::CompileOptions o;
  o.interrupt_before = {"b"};
  auto app = g.compile(c.opts(o));
  invoke(app, json{{"n", 1}, {"trace", {"in"}}}, thread());
  update(app, thread(), json{{"trace", sp::Overwrite{json::array({"fresh"})}}}, "a");
  state(app, thread());
  update(app, thread(), json{{"trace", sp::Overwrite{json::array()}}, {"n", 2}});
  state(app, thread());
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
}}};

Register mb_sub_send_parent_cmd{{"mb_sub_send_parent_cmd", true, [](Ctx& c) {
  sp::StateGraph s(item_schema());
  s.add_node("w", [](const sp::State& st) {
    return sp::Command{.update = {{"trace", {"w" + std::to_string(st.get<int>("item"))}}}, .go_to = "target",
                       .graph = sp::Command::PARENT};
  });
  s.add_node("after", tracer("after"));
  s.add_conditional_edges(sp::START, [](const sp::State&) { return sends("w", "item", {1, 2}); });
  s.add_edge("w", "after");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain()), {.ends = {"target"}}).add_node("target", tracer("target")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};


Register mb_sub_parent_cmd_vs_interrupt{{"mb_sub_parent_cmd_vs_interrupt", true, [](Ctx& c) {
  auto jumps = std::make_shared<int>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("a_jump", [jumps](const sp::State&) {
    ++*jumps;
    return sp::Command{.update = {{"trace", {"jump"}}}, .go_to = "target", .graph = sp::Command::PARENT};
  });
  s.add_node("b_ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  s.add_edge(sp::START, "a_jump").add_edge(sp::START, "b_ask");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain()), {.ends = {"target"}}).add_node("target", tracer("target")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, sp::Command{.resume = "r"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"runs", {{"jump", *jumps}}}});
}}};

Register mb_sub_parent_cmd_vs_error{{"mb_sub_parent_cmd_vs_error", true, [](Ctx& c) {
  auto build = [&c](bool saver, const std::string& jump = "a_jump") {
    sp::StateGraph s(trace_schema());
    s.add_node(jump, [](const sp::State&) {
      return sp::Command{.update = {{"trace", {"jump"}}}, .go_to = "target", .graph = sp::Command::PARENT};
    });
    s.add_node("b_fail", [](const sp::State&) -> json { throw std::runtime_error("b_fail broke"); });
    s.add_edge(sp::START, jump).add_edge(sp::START, "b_fail");
    sp::StateGraph g(trace_schema());
    g.add_node("sub", s.compile(c.plain()), {.ends = {"target"}}).add_node("target", tracer("target")).add_node("z", tracer("z"));
    g.add_edge(sp::START, "sub").add_edge("sub", "z");
    return g.compile(saver ? c.opts() : c.plain());
  };
  stream(build(false), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  auto app = build(true);
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(build(false, "c_jump"), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

}  // namespace
