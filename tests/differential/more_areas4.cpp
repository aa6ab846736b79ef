// Scenarios of areas the suite did not cover (fourth round; js/md_*.mjs are their LangGraph.js
// twins): two sibling subgraphs paused at once (answered by one map, one by one, by one value),
// a subgraph two levels down seen through get_state/history of its own namespace and at a past
// checkpoint, durability exit around a subgraph's interrupt, interrupt_before/interrupt_after
// naming a Send target, a Command input with update and goto on a fresh thread, Command(resume)
// with goto or update while a subgraph is paused, a compiled graph invoked inside a node (not as
// a subgraph), checkpoints/debug with subgraphs across a nested resume, max_concurrency 1 with
// an interrupting Send or pulled node, the checkpoints parts of a run with durability exit.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "transcript.hpp"

namespace {
using namespace diff;

/// s1<tag> -> ask<tag> (interrupts with "q<tag>", records the answer and n) -> s3<tag>.
/// Without `show_n` the nodes do not record n (sibling subgraphs leave n unset: both would write
/// it back).
sp::CompiledStateGraph ask_sub(const Ctx& c, const std::string& tag, bool show_n = true) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1" + tag));
  s.add_node("ask", [tag, show_n](const sp::State& st, sp::Runtime& rt) {
    std::string v = sp::interrupt(rt, "q" + tag).get<std::string>();
    return json{{"trace", {"ask" + tag + ":" + v + (show_n ? ":" + n_of(st) : "")}}};
  });
  s.add_node("s3", [tag, show_n](const sp::State& st) {
    return json{{"trace", {"s3" + tag + (show_n ? ":" + n_of(st) : "")}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "ask").add_edge("ask", "s3");
  return s.compile(c.plain());
}

sp::StateGraph two_subs(const Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("sa", ask_sub(c, "A", false)).add_node("sb", ask_sub(c, "B", false)).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sa").add_edge(sp::START, "sb").add_edge("sa", "z").add_edge("sb", "z");
  return g;
}

Register md_two_subs_map{{"md_two_subs_map", true, [](Ctx& c) {
  auto app = two_subs(c).compile(c.opts());
  stream(app, json{{"trace", json::array()}}, thread(), {Mode::updates});
  state(app, thread(), true);
  auto ids = ids_by_value(app);
  stream(app, sp::Command{.resume = json{{ids["qA"], "a"}, {ids["qB"], "b"}}}, thread(),
         {Mode::updates, Mode::values});
  state(app, thread(), true);
}}};

Register md_two_subs_one_by_one{{"md_two_subs_one_by_one", true, [](Ctx& c) {
  auto app = two_subs(c).compile(c.opts());
  stream(app, json{{"trace", json::array()}}, thread(), {Mode::updates});
  auto ids = ids_by_value(app);
  stream(app, sp::Command{.resume = json{{ids["qB"], "b"}}}, thread(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = json{{ids["qA"], "a"}}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}}};

Register md_two_subs_value{{"md_two_subs_value", true, [](Ctx& c) {
  auto app = two_subs(c).compile(c.opts());
  stream(app, json{{"trace", json::array()}}, thread(), {Mode::updates});
  stream(app, sp::Command{.resume = "v"}, thread(), {Mode::updates});
  state(app, thread());
}}};

/// root: a -> mid -> z; mid: m1 -> inner -> m3; inner = ask_sub("I").
sp::CompiledStateGraph nested2(const Ctx& c, sp::CompileOptions o = {}) {
  sp::StateGraph m(trace_schema());
  m.add_node("m1", tracer("m1")).add_node("inner", ask_sub(c, "I")).add_node("m3", tracer("m3"));
  m.add_edge(sp::START, "m1").add_edge("m1", "inner").add_edge("inner", "m3");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("mid", m.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "mid").add_edge("mid", "z");
  return g.compile(c.opts(std::move(o)));
}

Register md_nested2_state{{"md_nested2_state", true, [](Ctx& c) {
  auto app = nested2(c);
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  auto snap = app.get_state(thread(), true);
  auto mid = *snap.tasks.at(0).state;
  auto inner = *mid.tasks.at(0).state;
  note("mid namespace");
  state(app, at_config(mid.config), true);
  history(app, at_config(mid.config));
  note("inner namespace");
  state(app, at_config(inner.config));
  history(app, at_config(inner.config));
  stream(app, sp::Command{.resume = "r"}, thread(), {Mode::updates});
  state(app, thread(), true);
  note("inner namespace after the end");
  state(app, at_config(inner.config));
  history(app, at_config(inner.config));
}}};

Register md_exit_sub_interrupt{{"md_exit_sub_interrupt", true, [](Ctx& c) {
  auto app = nested2(c);
  sp::RunConfig cfg = with_subgraphs();
  cfg.durability = sp::Durability::exit;
  stream(app, json{{"n", 1}}, cfg, {Mode::updates, Mode::checkpoints});
  state(app, thread(), true);
  history(app, thread());
  stream(app, sp::Command{.resume = "r"}, cfg, {Mode::updates, Mode::checkpoints});
  state(app, thread());
  history(app, thread());
}}};

sp::StateGraph send_graph() {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("w", "z");
  g.add_conditional_edges("a", [](const sp::State&) {
    return std::vector<sp::Send>{{"w", json{{"n", 1}}}, {"w", json{{"n", 2}}}};
  });
  return g;
}

Register md_before_send_target{{"md_before_send_target", true, [](Ctx& c) {
  sp::CompileOptions o;
  o.interrupt_before = {"w"};
  auto app = send_graph().compile(c.opts(o));
  stream(app, json{{"n", 0}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}}};

Register md_after_send_target{{"md_after_send_target", true, [](Ctx& c) {
  sp::CompileOptions o;
  o.interrupt_after = {"w"};
  auto app = send_graph().compile(c.opts(o));
  stream(app, json{{"n", 0}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_cmd_input_goto_fresh{{"md_cmd_input_goto_fresh", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"), {.ends = {"b", "w"}}).add_node("c", tracer("c"));
  g.add_node("b", [](const sp::State& st) { return json{{"trace", {"b" + n_of(st)}}}; });
  g.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  g.add_edge(sp::START, "a").add_edge("a", "c");
  auto app = g.compile(c.opts());
  stream(app, sp::Command{.update = {{"n", 3}, {"trace", {"in"}}}, .go_to = std::string("b")}, thread("t1"),
         {Mode::updates, Mode::values});
  state(app, thread("t1"));
  history(app, thread("t1"));
  stream(app, sp::Command{.update = {{"n", 4}}, .go_to = sp::Send{"w", json{{"n", 9}}}}, thread("t2"),
         {Mode::updates, Mode::values});
  state(app, thread("t2"));
}}};

Register md_resume_goto_in_sub{{"md_resume_goto_in_sub", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("sub", ask_sub(c, "S")).add_node("z", tracer("z"), {.ends = {"extra"}}).add_node("extra", tracer("extra"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.go_to = std::string("extra"), .resume = "r"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_resume_update_in_sub{{"md_resume_update_in_sub", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("sub", ask_sub(c, "S"));
  g.add_node("z", [](const sp::State& st) { return json{{"trace", {"z" + n_of(st)}}}; });
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.update = {{"n", 5}, {"trace", {"upd"}}}, .resume = "r"}, with_subgraphs(),
         {Mode::updates, Mode::values});
  state(app, thread());
}}};

sp::CompiledStateGraph inner_plain(const Ctx& c, bool fail) {
  sp::StateGraph s(trace_schema());
  s.add_node("x", tracer("x"));
  s.add_node("y", [fail](const sp::State& st) {
    if (fail) throw std::runtime_error("inner boom");
    return json{{"trace", {"y" + n_of(st)}}};
  });
  s.add_edge(sp::START, "x").add_edge("x", "y");
  return s.compile(c.plain());
}

Register md_inner_invoke{{"md_inner_invoke", true, [](Ctx& c) {
  for (bool fail : {false, true}) {
    auto inner = inner_plain(c, fail);
    sp::StateGraph g(trace_schema());
    g.add_node("outer", [inner](const sp::State& st, sp::Runtime& rt) {
      json r = inner.invoke(json{{"n", st.get<int>("n") + 10}}, rt);  // as the node's subgraph
      json t = json::array();
      for (const auto& e : r["trace"]) t.push_back("got:" + e.get<std::string>());
      return json{{"trace", t}};
    });
    g.add_node("z", tracer("z"));
    g.add_edge(sp::START, "outer").add_edge("outer", "z");
    auto app = g.compile(c.opts());
    std::string tid = fail ? "t2" : "t1";
    stream(app, json{{"n", 1}}, with_subgraphs(thread(tid)), {Mode::updates});
    state(app, thread(tid));
  }
}}};

Register md_inner_invoke_interrupt{{"md_inner_invoke_interrupt", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("x", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"x:" + sp::interrupt(rt, "inner q").get<std::string>()}}};
  });
  s.add_edge(sp::START, "x");
  auto inner = s.compile(c.plain());
  sp::StateGraph g(trace_schema());
  g.add_node("outer", [inner](const sp::State& st, sp::Runtime& rt) {
    json r = inner.invoke(json{{"n", st.get<int>("n")}}, rt);  // as the node's subgraph
    return json{{"trace", r["trace"]}};
  });
  g.add_edge(sp::START, "outer");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  state(app, thread());
  stream(app, sp::Command{.resume = "yes"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_stream_nested_resume{{"md_stream_nested_resume", true, [](Ctx& c) {
  auto app = nested2(c);
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::checkpoints, Mode::debug});
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::checkpoints, Mode::debug, Mode::values});
}}};

Register md_state_past_sub{{"md_state_past_sub", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("q1", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"q1:" + sp::interrupt(rt, "one").get<std::string>()}}};
  });
  s.add_node("q2", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"q2:" + sp::interrupt(rt, "two").get<std::string>()}}};
  });
  s.add_edge(sp::START, "q1").add_edge("q1", "q2");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  auto first = app.get_state(thread()).config;
  stream(app, sp::Command{.resume = "A"}, thread(), {Mode::updates});
  note("the first pause's checkpoint, with subgraphs");
  state(app, at_config(first), true);
  stream(app, sp::Command{.resume = "B"}, thread(), {Mode::updates});
  note("the same after the end");
  state(app, at_config(first), true);
}}};

Register md_maxconc_send_interrupt{{"md_maxconc_send_interrupt", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("w", [](const sp::State& st, sp::Runtime& rt) {
    int n = st.get<int>("n");
    if (n == 2) return json{{"trace", {"w2:" + sp::interrupt(rt, "w2?").get<std::string>()}}};
    return json{{"trace", {"w" + n_of(st)}}};
  });
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("w", "z");
  g.add_conditional_edges("a", [](const sp::State&) {
    return std::vector<sp::Send>{{"w", json{{"n", 1}}}, {"w", json{{"n", 2}}}, {"w", json{{"n", 3}}}};
  });
  auto app = g.compile(c.opts());
  sp::RunConfig cfg = thread();
  cfg.max_concurrency = 1;
  stream(app, json{{"n", 0}}, cfg, {Mode::updates});
  state(app, thread());
  stream(app, sp::Command{.resume = "ok"}, cfg, {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_cmd_sends_in_sub{{"md_cmd_sends_in_sub", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("r", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"r"}}, {"n", 2}},
                       .go_to = sp::Route{sp::Send{"w", json{{"n", 5}}}, sp::Send{"w", json{{"n", 6}}}}};
  }, {.ends = {"w"}});
  s.add_node("w", [](const sp::State& st) { return json{{"trace", {"w" + n_of(st)}}}; });
  s.add_edge(sp::START, "r");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile(c.plain()));
  g.add_node("z", [](const sp::State& st) { return json{{"trace", {"z" + n_of(st)}}}; });
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_before_sub_node{{"md_before_sub_node", true, [](Ctx& c) {
  sp::CompileOptions o;
  o.interrupt_before = {"mid"};
  auto app = nested2(c, o);
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register md_update_then_resume_nested{{"md_update_then_resume_nested", true, [](Ctx& c) {
  auto app = nested2(c);
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  update(app, thread(), json{{"n", 7}, {"trace", {"root-edit"}}});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}}};

Register md_exit_checkpoints{{"md_exit_checkpoints", true, [](Ctx& c) {
  auto app = ask_graph().compile(c.opts());
  sp::RunConfig cfg = thread();
  cfg.durability = sp::Durability::exit;
  stream(app, json{{"n", 1}}, cfg, {Mode::checkpoints});
  history(app, thread());
  stream(app, sp::Command{.resume = "r"}, cfg, {Mode::checkpoints});
  history(app, thread());
}}};

Register md_maxconc_node_interrupt{{"md_maxconc_node_interrupt", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("p", tracer("p"));
  g.add_node("q", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"q:" + sp::interrupt(rt, "q?").get<std::string>()}}};
  });
  g.add_node("r", tracer("r")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "p").add_edge(sp::START, "q").add_edge(sp::START, "r");
  g.add_edge("p", "z").add_edge("q", "z").add_edge("r", "z");
  auto app = g.compile(c.opts());
  sp::RunConfig cfg = thread();
  cfg.max_concurrency = 1;
  stream(app, json{{"n", 0}}, cfg, {Mode::updates});
  state(app, thread());
  stream(app, sp::Command{.resume = "ok"}, cfg, {Mode::updates});
  state(app, thread());
}}};

Register cache_node{{"cache_node", false, [](Ctx& c) {
  auto runs = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  auto ran = [runs, mutex](std::string what) {
    std::lock_guard lock(*mutex);
    runs->push_back(std::move(what));
  };
  sp::StateGraph g(trace_schema());
  g.add_node("slow", [ran](const sp::State& s) {
    ran("slow:" + std::to_string(s.get<int>("n")));
    return json{{"trace", {"slow" + std::to_string(s.get<int>("n"))}}};
  }, {.cache_policy = sp::CachePolicy{}});
  g.add_node("fan", [ran](const sp::State& s) {
    ran("fan:" + std::to_string(s.get<int>("i")));
    return json{{"trace", {"fan" + std::to_string(s.get<int>("i"))}}};
  }, {.cache_policy = sp::CachePolicy{}});
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "slow");
  g.add_conditional_edges("slow", [](const sp::State& s) {
    return std::vector<sp::Send>{{"fan", json{{"i", s.get<int>("n")}}}, {"fan", json{{"i", 9}}}};
  }, std::vector<std::string>{"fan"});
  g.add_edge("fan", "after").add_edge("after", sp::END);
  auto app = g.compile(c.plain({.cache = std::make_shared<sp::InMemoryCache>()}));
  auto flush = [&] {  // sorted: the two Send tasks of one step may run in either order
    std::sort(runs->begin(), runs->end());
    std::string line;
    for (const std::string& r : *runs) line += (line.empty() ? "" : ",") + r;
    note(line);
    runs->clear();
  };
  for (int n : {1, 1, 2}) {
    stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::tasks, Mode::values});
    flush();
  }
  app.clear_cache();
  stream(app, json{{"n", 1}}, {}, {Mode::updates});
  flush();
}}};

Register cache_node_checkpointed{{"cache_node_checkpointed", true, [](Ctx& c) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("slow", [runs](const sp::State& s) {
    ++*runs;
    return json{{"trace", {"slow" + std::to_string(s.get<int>("n"))}}};
  }, {.cache_policy = sp::CachePolicy{.ttl = 60}});
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "slow").add_edge("slow", "after").add_edge("after", sp::END);
  auto app = g.compile(c.opts({.cache = std::make_shared<sp::InMemoryCache>()}));
  stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
  stream(app, json{{"n", 1}}, thread("t2"), {Mode::updates, Mode::values});
  note("runs " + std::to_string(runs->load()));
  history(app, thread("t2"));
}}};

}  // namespace
