// More subgraph and persistence scenarios: nesting two and three levels deep with interrupts
// (by value and by id), update_state while a subgraph is paused, failures inside a subgraph,
// Command to the parent from a nested subgraph, subgraphs beside plain nodes, private keys,
// history and forks around a subgraph, stream modes with namespaces (js/sgx_*.mjs are the
// LangGraph.js twins). Subgraphs and the graphs holding them are compiled without the one-worker
// executor (a subgraph run waits for its own tasks; see persistence.cpp).
#include <atomic>
#include <map>

#include "transcript.hpp"

namespace {
using namespace diff;

sp::NodeFn counted(const std::string& name, std::shared_ptr<std::atomic<int>> runs) {
  return [name, runs](const sp::State&) {
    ++*runs;
    return json{{"trace", json::array({name})}};
  };
}

sp::NodeFn asker(const std::string& prefix, const std::string& question) {
  return [prefix, question](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {prefix + sp::interrupt(rt, question).get<std::string>()}}};
  };
}

Register sgx_nested3_interrupt{{"sgx_nested3_interrupt", true, [](Ctx& c) {
  auto i1 = std::make_shared<std::atomic<int>>(0), m1 = std::make_shared<std::atomic<int>>(0),
       a = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph inner(trace_schema());
  inner.add_node("i1", counted("i1", i1)).add_node("ask", asker("inner:", "deep question"));
  inner.add_edge(sp::START, "i1").add_edge("i1", "ask");
  sp::StateGraph mid(trace_schema());
  mid.add_node("m1", counted("m1", m1)).add_node("inner", inner.compile()).add_node("m2", tracer("m2"));
  mid.add_edge(sp::START, "m1").add_edge("m1", "inner").add_edge("inner", "m2");
  sp::StateGraph g(trace_schema());
  g.add_node("a", counted("a", a)).add_node("mid", mid.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "mid").add_edge("mid", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  state(app, thread());
  stream(app, sp::Command{.resume = "deep"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
  emit(json{{"runs", {{"i1", i1->load()}, {"m1", m1->load()}, {"a", a->load()}}}});
}}};

Register sgx_nested_by_id{{"sgx_nested_by_id", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("x", asker("x:", "for x")).add_node("y", asker("y:", "for y"));
  s.add_edge(sp::START, "x").add_edge(sp::START, "y");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  auto ids = ids_by_value(app);
  stream(app, sp::Command{.resume = json{{ids["for y"], "Y"}}}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  invoke(app, sp::Command{.resume = json{{ids["for x"], "X"}}}, thread());
  state(app, thread());
}}};

Register sgx_nested3_by_id{{"sgx_nested3_by_id", true, [](Ctx& c) {
  sp::StateGraph inner(trace_schema());
  inner.add_node("x", asker("x:", "for x")).add_node("y", asker("y:", "for y"));
  inner.add_edge(sp::START, "x").add_edge(sp::START, "y");
  sp::StateGraph mid(trace_schema());
  mid.add_node("inner", inner.compile()).add_edge(sp::START, "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("mid", mid.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "mid").add_edge("mid", "z");
  auto app = g.compile({.checkpointer = c.saver});
  invoke(app, json{{"n", 1}}, thread());
  state(app, thread(), true);
  auto ids = ids_by_value(app);
  stream(app, sp::Command{.resume = json{{ids["for x"], "X"}, {ids["for y"], "Y"}}}, with_subgraphs(),
         {Mode::updates, Mode::values});
  state(app, thread());
}}};

sp::StateGraph sub_asking_with_n(std::shared_ptr<std::atomic<int>> s1) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", counted("s1", s1));
  s.add_node("ask", [](const sp::State& st, sp::Runtime& rt) {
    std::string answer = sp::interrupt(rt, "q").get<std::string>();
    return json{{"trace", {"sub:" + answer + ":" + std::to_string(st.get<int>("n"))}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  return s;
}

Register sgx_update_paused{{"sgx_update_paused", true, [](Ctx& c) {
  auto s1 = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", sub_asking_with_n(s1).compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  update(app, thread(), json{{"n", 5}});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"s1Runs", s1->load()}});
}}};

Register sgx_update_sub_config{{"sgx_update_sub_config", true, [](Ctx& c) {
  auto s1 = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", sub_asking_with_n(s1).compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  auto snap = app.get_state(thread(), true);
  sp::RunConfig sub_cfg = at_config(snap.tasks.at(0).state->config);
  state(app, sub_cfg);
  update(app, sub_cfg, json{{"n", 7}, {"trace", {"edited"}}});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"s1Runs", s1->load()}});
}}};

Register sgx_failure_resume{{"sgx_failure_resume", true, [](Ctx& c) {
  auto s1 = std::make_shared<std::atomic<int>>(0), flaky = std::make_shared<std::atomic<int>>(0),
       a = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", counted("s1", s1));
  s.add_node("flaky", [flaky](const sp::State&) {
    if (++*flaky == 1) throw std::runtime_error("first time fails");
    return json{{"trace", {"flaky"}}};
  });
  s.add_node("s3", tracer("s3"));
  s.add_edge(sp::START, "s1").add_edge("s1", "flaky").add_edge("flaky", "s3");
  sp::StateGraph g(trace_schema());
  g.add_node("a", counted("a", a)).add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"runs", {{"s1", s1->load()}, {"flaky", flaky->load()}, {"a", a->load()}}}});
}}};

Register sgx_command_parent_nested{{"sgx_command_parent_nested", true, [](Ctx& c) {
  sp::StateGraph inner(trace_schema());
  inner.add_node("i1", tracer("i1")).add_node("i3", tracer("i3"));
  inner.add_node("jump", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"jump"}}, {"n", 2}}, .go_to = "mtarget", .graph = sp::Command::PARENT};
  });
  inner.add_edge(sp::START, "i1").add_edge("i1", "jump").add_edge("jump", "i3");
  sp::StateGraph mid(trace_schema());
  mid.add_node("inner", inner.compile(), {.ends = {"mtarget"}});
  mid.add_node("mtarget", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"mtarget"}}}, .go_to = "target", .graph = sp::Command::PARENT};
  });
  mid.add_node("m9", tracer("m9"));
  mid.add_edge(sp::START, "inner").add_edge("mtarget", "m9");
  sp::StateGraph g(trace_schema());
  g.add_node("mid", mid.compile(), {.ends = {"target"}}).add_node("target", tracer("target")).add_node("after", tracer("after"));
  g.add_edge(sp::START, "mid").add_edge("mid", "after");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register sgx_parallel_sub_interrupts{{"sgx_parallel_sub_interrupts", true, [](Ctx& c) {
  auto plain = std::make_shared<std::atomic<int>>(0), s1 = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", counted("s1", s1)).add_node("ask", asker("sub:", "in sub"));
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("worker", counted("worker", plain)).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge(sp::START, "worker").add_edge({"sub", "worker"}, "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "ok"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"runs", {{"plain", plain->load()}, {"s1", s1->load()}}}});
}}};

Register sgx_parallel_plain_interrupts{{"sgx_parallel_plain_interrupts", true, [](Ctx& c) {
  auto s1 = std::make_shared<std::atomic<int>>(0), s2 = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph s(trace_schema());
  s.add_node("s1", counted("s1", s1)).add_node("s2", counted("s2", s2));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("user", asker("user:", "plain q")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge(sp::START, "user").add_edge("sub", "z").add_edge("user", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "ok"}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
  emit(json{{"runs", {{"s1", s1->load()}, {"s2", s2->load()}}}});
}}};

Register sgx_private_keys{{"sgx_private_keys", true, [](Ctx& c) {
  sp::StateSchema parent;
  parent.field("trace", sp::reducers::append, json::array()).field("total").field("pub");
  sp::StateSchema child;
  child.field("trace", sp::reducers::append, json::array())
      .field("total", sp::reducers::add, json(0))
      .field("secret")
      .field("scratch", sp::reducers::append, json::array());
  sp::StateGraph s(child);
  s.add_node("c1", [](const sp::State& st) {
    return json{{"trace", {"c1"}}, {"total", 10}, {"secret", "s:" + st.get<json>("total").dump()}, {"scratch", {"x"}}};
  });
  s.add_node("c2", [](const sp::State& st) {
    return json{{"trace", {"c2:" + st.get<std::string>("secret")}}, {"total", 5}, {"scratch", {"y"}}};
  });
  s.add_edge(sp::START, "c1").add_edge("c1", "c2");
  sp::StateGraph g(parent);
  g.add_node("p", [](const sp::State&) { return json{{"trace", {"p"}}, {"total", 1}, {"pub", "P"}}; });
  g.add_node("sub", s.compile());
  g.add_node("q", [](const sp::State& st) { return json{{"trace", {"q:" + st.get<json>("total").dump()}}}; });
  g.add_edge(sp::START, "p").add_edge("p", "sub").add_edge("sub", "q");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"trace", {"in"}}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, json{{"total", 100}}, with_subgraphs(), {Mode::updates});
  state(app, thread());
}}};

sp::CompiledStateGraph history_app(const Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2"));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  return g.compile({.checkpointer = c.saver});
}

Register sgx_history_fork{{"sgx_history_fork", true, [](Ctx& c) {
  auto app = history_app(c);
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates});
  history(app, thread());
  history(app, thread(), nullptr, std::nullopt, 2);
  auto all = app.get_state_history(thread());
  history(app, thread(), nullptr, all.at(1).config.checkpoint_id, 2);
  history(app, thread(), json{{"step", 2}});
  sp::RunConfig before_sub;
  for (const auto& s : all)
    if (!s.next.empty() && s.next[0] == "sub") {
      before_sub = at_config(s.config);
      break;
    }
  state(app, before_sub, true);
  stream(app, json(nullptr), with_subgraphs(before_sub), {Mode::updates, Mode::values});
  auto forked = update(app, before_sub, json{{"n", 99}});
  if (forked) stream(app, json(nullptr), with_subgraphs(*forked), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread(), nullptr, std::nullopt, 3);
}}};

Register sgx_modes_checkpoints{{"sgx_modes_checkpoints", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("ask", asker("sub:", "q"));
  s.add_edge(sp::START, "s1").add_edge("s1", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::checkpoints, Mode::tasks});
  stream(app, sp::Command{.resume = "r"}, with_subgraphs(), {Mode::checkpoints, Mode::tasks});
}}};

Register sgx_modes_debug{{"sgx_modes_debug", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_edge(sp::START, "s1");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::debug});
}}};

Register sgx_send_subgraph{{"sgx_send_subgraph", true, [](Ctx& c) {
  sp::StateSchema sub_schema;
  sub_schema.field("trace", sp::reducers::append, json::array()).field("item");
  sp::StateGraph s(sub_schema);
  s.add_node("w", [](const sp::State& st, sp::Runtime& rt) {
    int item = st.get<int>("item");
    if (item == 2) return json{{"trace", {"w2:" + sp::interrupt(rt, "need 2").get<std::string>()}}};
    return json{{"trace", {"w" + std::to_string(item)}}};
  });
  s.add_edge(sp::START, "w");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile());
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i : {1, 2, 3}) sends.push_back({"sub", json{{"item", i}}});
    return sends;
  });
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 0}}, thread(), {Mode::updates});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "ok"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register sgx_nested_interrupt_twice{{"sgx_nested_interrupt_twice", true, [](Ctx& c) {
  sp::StateGraph inner(trace_schema());
  inner.add_node("form", [](const sp::State&, sp::Runtime& rt) {
    json a = sp::interrupt(rt, "name?");
    json b = sp::interrupt(rt, "age?");
    return json{{"trace", {a.get<std::string>() + "/" + b.dump()}}};
  });
  inner.add_edge(sp::START, "form");
  sp::StateGraph mid(trace_schema());
  mid.add_node("m1", tracer("m1")).add_node("inner", inner.compile());
  mid.add_edge(sp::START, "m1").add_edge("m1", "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("mid", mid.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "mid").add_edge("mid", "z");
  auto app = g.compile({.checkpointer = c.saver});
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.resume = "ada"}, with_subgraphs(), {Mode::updates});
  state(app, thread(), true);
  stream(app, sp::Command{.resume = 36}, thread(), {Mode::updates, Mode::values});
}}};

Register sgx_sub_ns_state{{"sgx_sub_ns_state", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2")).add_node("ask", asker("sub:", "q"));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2").add_edge("s2", "ask");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile());
  g.add_edge(sp::START, "a").add_edge("a", "sub");
  auto app = g.compile({.checkpointer = c.saver});
  invoke(app, json{{"n", 1}}, thread());
  sp::RunConfig ns_cfg = thread();
  ns_cfg.checkpoint_ns = app.get_state(thread()).tasks.at(0).state_config->checkpoint_ns;
  state(app, ns_cfg);
  history(app, ns_cfg);
  invoke(app, sp::Command{.resume = "r"}, thread());
  state(app, thread(), true);
}}};

Register sgx_interrupt_before_sub{{"sgx_interrupt_before_sub", true, [](Ctx& c) {
  sp::StateGraph s(trace_schema());
  s.add_node("s1", tracer("s1")).add_node("s2", tracer("s2"));
  s.add_edge(sp::START, "s1").add_edge("s1", "s2");
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  auto app = g.compile({.checkpointer = c.saver, .interrupt_before = {"sub"}, .interrupt_after = {"sub"}});
  stream(app, json{{"n", 1}}, with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
  state(app, thread(), true);
  stream(app, json(nullptr), with_subgraphs(), {Mode::updates, Mode::values});
}}};

Register sgx_two_subgraphs_parallel{{"sgx_two_subgraphs_parallel", true, [](Ctx& c) {
  sp::StateSchema only_trace;  // the two do not both write the parent's LastValue `n`
  only_trace.field("trace", sp::reducers::append, json::array());
  sp::StateGraph s(only_trace);
  s.add_node("ask", asker("ans:", "q"));
  s.add_edge(sp::START, "ask");
  auto sub = s.compile();
  sp::StateGraph g(trace_schema());
  g.add_node("left", sub).add_node("right", sub).add_node("z", tracer("z"));
  g.add_edge(sp::START, "left").add_edge(sp::START, "right").add_edge({"left", "right"}, "z");
  auto app = g.compile({.checkpointer = c.saver});
  // (The two pause in either order: the first run prints nothing, get_state lists them in order.)
  app.invoke(json{{"n", 1}}, thread());
  state(app, thread(), true);
  std::map<std::string, std::string> ids;
  for (const auto& t : app.get_state(thread()).tasks)
    for (const auto& i : t.interrupts) ids[t.name] = i.id;
  stream(app, sp::Command{.resume = json{{ids["left"], "L"}, {ids["right"], "R"}}}, thread(),
         {Mode::updates, Mode::values});
  state(app, thread());
}}};

}  // namespace

namespace {
using namespace diff;

Register sgx_checkpoints_resume{{"sgx_checkpoints_resume", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("c", tracer("c"));
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::checkpoints});
  stream(app, sp::Command{.resume = "r"}, thread(), {Mode::checkpoints});
  stream(app, json{{"n", 1}}, thread("t2"), {Mode::debug});
  stream(app, sp::Command{.resume = "r"}, thread("t2"), {Mode::debug});
}}};

}  // namespace
