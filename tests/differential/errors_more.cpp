// Errors and control flow corners: routers that throw or name unknown nodes, Sends and Command
// goto to unknown nodes, two Sends (or a Send and a pulled node) writing one LastValue key,
// retries around a subgraph and a Send target, a node failing after its interrupt was answered,
// the recursion limit inside a subgraph, with Sends and at 1, deferred nodes behind conditional
// edges and reached twice, path maps with END, routers returning duplicates or nothing, a
// Command goto beside a static edge, interrupt() under a retry policy (js/er_*.mjs are their
// LangGraph.js twins). Subgraphs and the graphs holding them are compiled without the one-worker
// executor (a subgraph run waits for its own tasks; see persistence.cpp).
#include <map>
#include <mutex>

#include "transcript.hpp"

namespace {
using namespace diff;

/// Call counts by name, shared by a scenario's nodes and routers.
struct Counts {
  std::mutex m;
  std::map<std::string, int> by;
  int bump(const std::string& k) {
    std::lock_guard l(m);
    return ++by[k];
  }
  json to_json() {
    std::lock_guard l(m);
    json j = json::object();
    for (const auto& [k, v] : by) j[k] = v;
    return j;
  }
};

/// A node that counts its calls in `calls` and appends its name to `trace`.
sp::NodeFn counting(std::shared_ptr<Counts> calls, const std::string& name) {
  return [calls, name](const sp::State&) {
    calls->bump(name);
    return json{{"trace", {name}}};
  };
}

Register er_router_throws{{"er_router_throws", true, [](Ctx& c) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph g(trace_schema());
  g.add_node("a", counting(calls, "a"));
  g.add_node("b", counting(calls, "b"));
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  g.add_conditional_edges("a", [calls](const sp::State&) -> sp::Route {
    if (calls->bump("router") == 1) throw std::runtime_error("router boom");
    return "c";
  });
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
  state(app, thread());
  emit(json{{"calls", calls->to_json()}});
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"calls", calls->to_json()}});
}}};

Register er_unknown_destinations{{"er_unknown_destinations", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("x", tracer("x"));
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State& s) -> sp::Route { return s.get<int>("n") == 1 ? "nope" : "x"; });
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph m(trace_schema());
  m.add_node("a", tracer("a")).add_node("x", tracer("x"));
  m.add_edge(sp::START, "a");
  m.add_conditional_edges("a", [](const sp::State& s) -> sp::Route { return s.get<int>("n") == 1 ? "missing" : "go"; },
                          {{"go", "x"}});
  stream(m.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph k(trace_schema());
  k.add_node("a", [](const sp::State&) { return sp::Command{.update = {{"trace", {"a"}}}, .go_to = "nope"}; });
  k.add_node("x", tracer("x"));
  k.add_edge(sp::START, "a").add_edge("a", "x");
  stream(k.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

Register er_send_unknown{{"er_send_unknown", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("w", tracer("w"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  g.add_conditional_edges("a", [](const sp::State&) {
    return sp::Route{sp::Send{"w", {{"n", 2}}}, sp::Send{"nope", {{"n", 3}}}};
  });
  stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph k(trace_schema());
  k.add_node("a", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"a"}}}, .go_to = sp::Send{"nope", {{"n", 3}}}};
  });
  k.add_node("b", tracer("b"));
  k.add_edge(sp::START, "a").add_edge(sp::START, "b");
  stream(k.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

Register er_send_lastvalue{{"er_send_lastvalue", false, [](Ctx& c) {
  auto writer = [](const sp::State& s) { return json{{"n", s.get<int>("n") * 10}, {"trace", {"w" + n_of(s)}}}; };
  sp::StateGraph g(trace_schema());
  g.add_node("w", writer);
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}};
  });
  stream(g.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph m(trace_schema());
  m.add_node("w", writer).add_node("p", [](const sp::State&) { return json{{"n", 7}, {"trace", {"p"}}}; });
  m.add_conditional_edges(sp::START, [](const sp::State&) {
    return sp::Route{sp::Send{"w", {{"n", 1}}}, std::string("p")};
  });
  stream(m.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph k(trace_schema());
  k.add_node("w", writer).add_node("p", tracer("p"));
  k.add_conditional_edges(sp::START, [](const sp::State&) {
    return sp::Route{sp::Send{"w", {{"n", 1}}}, std::string("p")};
  });
  stream(k.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
}}};

Register er_retry_subgraph{{"er_retry_subgraph", false, [](Ctx&) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph s(trace_schema());
  s.add_node("s1", counting(calls, "s1"));
  s.add_node("flaky", [calls](const sp::State&) {
    int k = calls->bump("flaky");
    if (k < 3) throw std::runtime_error("inner down " + std::to_string(k));
    return json{{"trace", {"flaky" + std::to_string(k)}}};
  });
  s.add_edge(sp::START, "s1").add_edge("s1", "flaky");
  auto sub = s.compile();
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("sub", sub, {.retry = quick_retry(3)}).add_node("z", tracer("z"));
  g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  stream(g.compile(), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
  sp::StateGraph g2(trace_schema());
  g2.add_node("a", tracer("a")).add_node("sub", sub, {.retry = quick_retry(2)}).add_node("z", tracer("z"));
  g2.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
  stream(g2.compile(), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
}}};

Register er_retry_send{{"er_retry_send", false, [](Ctx& c) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph g(trace_schema());
  g.add_node("w", [calls](const sp::State& s) {
    int n = s.get<int>("n");
    int k = calls->bump("w" + std::to_string(n));
    if (n == 2 && k == 1) throw std::runtime_error("w2 once");
    if (n == 3) throw std::runtime_error("w3 always " + std::to_string(k));
    return json{{"trace", {"w" + std::to_string(n) + ":" + std::to_string(k)}}};
  }, {.retry = quick_retry(3)});
  g.add_node("z", tracer("z"));
  g.add_edge("w", "z");
  g.add_conditional_edges(sp::START, [](const sp::State& s) {
    std::vector<sp::Send> sends;
    for (int n = 1; n <= s.get<int>("n"); ++n) sends.push_back({"w", json{{"n", n}}});
    return sends;
  });
  auto app = g.compile(c.plain());
  stream(app, json{{"n", 2}}, {}, {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
  stream(app, json{{"n", 3}}, {}, {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
}}};

Register er_resume_then_fail{{"er_resume_then_fail", true, [](Ctx& c) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("ask", [calls](const sp::State&, sp::Runtime& rt) {
    calls->bump("ask");
    std::string v = sp::interrupt(rt, "q").get<std::string>();
    if (calls->bump("answered") == 1) throw std::runtime_error("failed after " + v);
    return json{{"trace", {"ask:" + v}}};
  });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"calls", calls->to_json()}});
  stream(app, sp::Command{.resume = "again"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"calls", calls->to_json()}});
}}};

Register er_resume_fail_null{{"er_resume_fail_null", true, [](Ctx& c) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [calls](const sp::State&, sp::Runtime& rt) {
    calls->bump("ask");
    std::string v = sp::interrupt(rt, "q").get<std::string>();
    if (calls->bump("answered") == 1) throw std::runtime_error("failed after " + v);
    return json{{"trace", {"ask:" + v}}};
  });
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates});
  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(app, thread());
  emit(json{{"calls", calls->to_json()}});
}}};

Register er_recursion_subgraph{{"er_recursion_subgraph", false, [](Ctx&) {
  sp::StateGraph s(trace_schema());
  s.add_node("loop", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}, {"trace", {"loop" + n_of(s)}}}; });
  s.add_edge(sp::START, "loop");
  s.add_conditional_edges("loop", [](const sp::State& s) { return s.get<int>("n") >= 4 ? sp::END : "loop"; });
  sp::StateGraph g(trace_schema());
  g.add_node("sub", s.compile()).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile();
  invoke(app, json{{"n", 0}}, {.recursion_limit = 5});
  invoke(app, json{{"n", 0}}, {.recursion_limit = 4});
  stream(app, json{{"n", 1}}, {.recursion_limit = 4}, {Mode::updates});
}}};

Register er_recursion_sends{{"er_recursion_sends", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("w", [](const sp::State& s) -> sp::NodeResult {
    int n = s.get<int>("n");
    json up = {{"trace", {"w" + std::to_string(n)}}};
    if (n < 3) return sp::Command{.update = up, .go_to = sp::Send{"w", {{"n", n + 1}}}};
    return up;
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}};
  });
  auto app = g.compile(c.plain());
  for (int limit : {1, 3, 4}) stream(app, json{{"n", 0}}, {.recursion_limit = limit}, {Mode::updates});
  sp::StateGraph chain(trace_schema());
  chain.add_node("a", tracer("a"));
  chain.add_edge(sp::START, "a");
  auto one = chain.compile(c.plain());
  invoke(one, json{{"n", 0}}, {.recursion_limit = 1});
  invoke(one, json{{"n", 0}}, {.recursion_limit = 2});
}}};

Register er_defer_conditional{{"er_defer_conditional", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"a", "b", "b2", "x", "x2"}) g.add_node(n, tracer(n));
  g.add_node("d", tracer("d"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge("x", "x2").add_edge("x2", "d");
  g.add_conditional_edges("a", [](const sp::State& s) -> sp::Route {
    int n = s.get<int>("n");
    if (n == 1) return "d";
    if (n == 2) return std::vector<std::string>{"d", "x"};
    return sp::END;
  });
  auto app = g.compile(c.plain());
  for (int n : {1, 2, 3}) stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::values});
}}};

Register er_defer_twice{{"er_defer_twice", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}, {"trace", {"a" + n_of(s)}}}; });
  for (std::string n : {"b", "b2", "b3"}) g.add_node(n, tracer(n));
  g.add_node("d", [](const sp::State& s) { return json{{"trace", {"d" + n_of(s)}}}; }, {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge("b2", "b3").add_edge("a", "d");
  g.add_conditional_edges("d", [](const sp::State& s) -> sp::Route {
    return s.get<int>("n") < 3 ? sp::Route{std::vector<std::string>{"a", "b"}} : sp::Route(sp::END);
  });
  stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

Register er_path_map_end{{"er_path_map_end", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"r", "x", "y"}) g.add_node(n, tracer(n));
  g.add_edge(sp::START, "r");
  g.add_conditional_edges("r", [](const sp::State& s) -> sp::Route {
    int n = s.get<int>("n");
    if (n == 1) return "stop";
    if (n == 2) return std::vector<std::string>{"go", "stop"};
    return std::vector<std::string>{"go", "both", "go"};
  }, {{"go", "x"}, {"stop", sp::END}, {"both", "y"}});
  auto app = g.compile(c.plain());
  for (int n : {1, 2, 3}) stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::values});
}}};

Register er_router_dups_empty{{"er_router_dups_empty", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"r", "x", "y"}) g.add_node(n, tracer(n));
  g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + n_of(s)}}}; });
  g.add_edge(sp::START, "r");
  g.add_conditional_edges("r", [](const sp::State& s) -> sp::Route {
    int n = s.get<int>("n");
    if (n == 1) return std::vector<std::string>{"x", "x", "y"};
    if (n == 2) return std::vector<std::string>{};
    if (n == 3) return std::vector<std::string>{"x", sp::END, "x"};
    return sp::Route{sp::Send{"w", {{"n", 5}}}, sp::Send{"w", {{"n", 5}}}, std::string("x")};
  });
  auto app = g.compile(c.plain());
  for (int n : {1, 2, 3, 4}) stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::values});
}}};

Register er_goto_with_edge{{"er_goto_with_edge", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"a"}}}, .go_to = {sp::Send{"w", {{"n", 2}}}, std::string("c")}};
  }, {.ends = {"c", "w"}});
  for (std::string n : {"b", "c", "z"}) g.add_node(n, tracer(n));
  g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + n_of(s)}}}; });
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "z").add_edge("c", "z");
  stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
  sp::StateGraph k(trace_schema());
  k.add_node("a", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"a"}}}, .go_to = std::vector<std::string>{"b", "c"}};
  }, {.ends = {"b", "c"}});
  for (std::string n : {"b", "c"}) k.add_node(n, tracer(n));
  k.add_edge(sp::START, "a").add_edge("a", "b");
  k.add_conditional_edges("a", [](const sp::State&) -> sp::Route { return "b"; });
  stream(k.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
}}};

Register er_interrupt_retry{{"er_interrupt_retry", true, [](Ctx& c) {
  auto calls = std::make_shared<Counts>();
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [calls](const sp::State&, sp::Runtime& rt) {
    calls->bump("ask");
    std::string v = sp::interrupt(rt, "q").get<std::string>();
    int k = calls->bump("answered");
    if (k == 1) throw std::runtime_error("flaky after " + v);
    return json{{"trace", {"ask:" + v + ":" + std::to_string(k)}}};
  }, {.retry = quick_retry(3)});
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "ask").add_edge("ask", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"n", 1}}, thread(), {Mode::updates});
  emit(json{{"calls", calls->to_json()}});
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  emit(json{{"calls", calls->to_json()}});
  state(app, thread());
  auto plain_calls = std::make_shared<Counts>();
  sp::StateGraph p(trace_schema());
  p.add_node("ask", [plain_calls](const sp::State&, sp::Runtime& rt) {
    plain_calls->bump("ask");
    return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
  }, {.retry = quick_retry(3)});
  p.add_edge(sp::START, "ask");
  stream(p.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates});
  emit(json{{"calls", plain_calls->to_json()}});
}}};

}  // namespace
