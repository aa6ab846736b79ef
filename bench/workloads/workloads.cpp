#include "workloads/workloads.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace sp = superstep;
using sp::json;
using namespace std::chrono_literals;

namespace bench {

Workload make_sequential(int n) {
  auto t0 = std::chrono::steady_clock::now();
  sp::StateSchema s;
  s.field("count").field("trace", sp::reducers::concat);
  sp::StateGraph g(s);
  auto body = [](const std::string& name, const sp::State& st) {
    return json{{"count", st["count"].get<int>() + 1}, {"trace", json::array({name})}};
  };
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [name, body](const sp::State& st) { return body(name, st); });
    g.add_edge(i == 0 ? sp::START : "n" + std::to_string(i - 1), name);
  }
  g.add_edge("n" + std::to_string(n - 1), sp::END);
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app] { return app.invoke(json{{"count", 0}}, {.recursion_limit = 1 << 30}); };
  w.check = [n](const json& out) {
    expect(out["count"] == n, "count == N");
    expect(out["trace"].size() == static_cast<size_t>(n), "trace has N names");
    for (int i = 0; i < n; ++i) expect(out["trace"][i] == "n" + std::to_string(i), "trace in order");
  };
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("n" + std::to_string(i));
  w.direct = [body, names] {
    json state = {{"count", 0}, {"trace", json::array()}};
    for (const auto& name : names) {
      json u = body(name, sp::State(state));
      state["count"] = std::move(u["count"]);
      for (auto& v : u["trace"]) state["trace"].push_back(std::move(v));
    }
  };
  w.nodes_run = n;
  w.supersteps = n + 1;
  return w;
}

Workload make_fanout(int n) {
  auto t0 = std::chrono::steady_clock::now();
  sp::StateSchema s;
  s.field("n").field("results", sp::reducers::concat);
  sp::StateGraph g(s);
  auto worker = [](const sp::State& st) { return json{{"results", json::array({st["i"].get<int>() * 2})}}; };
  g.add_node("worker", worker);
  g.add_conditional_edges(sp::START, [](const sp::State& st) {
    int count = st["n"].get<int>();
    std::vector<sp::Send> sends;
    sends.reserve(count);
    for (int i = 0; i < count; ++i) sends.push_back({"worker", json{{"i", i}}});
    return sends;
  });
  g.add_edge("worker", sp::END);
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app, n] { return app.invoke(json{{"n", n}}); };
  w.check = [n](const json& out) {
    const json& r = out["results"];
    expect(r.size() == static_cast<size_t>(n), "N results");
    long sum = 0;
    for (int i = 0; i < n; ++i) {
      expect(r[i] == i * 2, "results in Send order");
      sum += r[i].get<long>();
    }
    expect(sum == static_cast<long>(n) * (n - 1), "sum == N(N-1)");
  };
  w.direct = [worker, n] {
    json results = json::array();
    std::vector<json> args;
    args.reserve(n);
    for (int i = 0; i < n; ++i) args.push_back(json{{"i", i}});
    for (int i = 0; i < n; ++i) {
      json u = worker(sp::State(args[i]));
      for (auto& v : u["results"]) results.push_back(std::move(v));
    }
  };
  w.nodes_run = n;
  w.supersteps = 2;
  return w;
}

json react_loop_agent(const sp::State& st) {
  std::size_t k = (st["messages"].size() - 1) / 2;
  std::string id = "call_" + std::to_string(k);
  return json{{"messages", json::array({json{{"type", "ai"},
                                             {"content", ""},
                                             {"tool_calls", json::array({json{{"id", id},
                                                                              {"name", "echo"},
                                                                              {"args", {{"i", k}}}}})}}})}};
}

void check_react_loop(const json& out, int n) {
  const json& m = out["messages"];
  expect(m.size() == static_cast<size_t>(2 * n + 1), "2N+1 messages");
  expect(m.back()["type"] == "tool", "last is a tool message");
  expect(m.back()["tool_call_id"] == "call_" + std::to_string(n - 1), "last answers call_(N-1)");
  expect(m.back()["content"] == std::to_string(n - 1), "the tool's answer");
  for (const auto& msg : m) expect(msg["id"].is_string(), "every message has an id");
}

Workload make_react_loop(int n) {
  auto t0 = std::chrono::steady_clock::now();
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages);
  sp::StateGraph g(s);
  auto agent = [](const sp::State& st) { return react_loop_agent(st); };
  auto tools = [](const sp::State& st) {
    const json& call = st["messages"].back()["tool_calls"][0];
    return json{{"messages", json::array({json{{"type", "tool"},
                                               {"content", std::to_string(call["args"]["i"].get<int>())},
                                               {"tool_call_id", call["id"]}}})}};
  };
  g.add_node("agent", agent);
  g.add_node("tools", tools);
  g.add_edge(sp::START, "agent");
  g.add_conditional_edges("agent", [](const sp::State& st) {
    const json& last = st["messages"].back();
    auto calls = last.find("tool_calls");
    return calls != last.end() && !calls->empty() ? "tools" : sp::END;
  });
  g.add_conditional_edges("tools", [n](const sp::State& st) {
    // The tool message answers call i: stop after call N-1.
    std::size_t i = (st["messages"].size() - 1) / 2 - 1;
    return static_cast<int>(i) + 1 >= n ? sp::END : "agent";
  });
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app] {
    return app.invoke(json{{"messages", json::array({json{{"type", "human"}, {"content", "go"}}})}},
                      {.recursion_limit = 1 << 30});
  };
  w.check = [n](const json& out) { check_react_loop(out, n); };
  w.direct = [agent, tools, n] {
    json state = {{"messages", json::array({json{{"type", "human"}, {"content", "go"}}})}};
    for (int i = 0; i < n; ++i) {
      json u = agent(sp::State(state));
      for (auto& m : u["messages"]) state["messages"].push_back(std::move(m));
      u = tools(sp::State(state));
      for (auto& m : u["messages"]) state["messages"].push_back(std::move(m));
    }
  };
  w.nodes_run = 2L * n;
  w.supersteps = 2L * n + 1;
  return w;
}

Workload make_wide_state(int n) {
  auto t0 = std::chrono::steady_clock::now();
  sp::StateSchema s;
  for (int i = 0; i < 100; ++i) s.field("f" + std::to_string(i));
  for (int i = 0; i < 10; ++i) s.field("l" + std::to_string(i), sp::reducers::concat);
  sp::StateGraph g(s);
  std::vector<std::function<json(const sp::State&)>> bodies;
  for (int k = 0; k < 10; ++k) {
    std::string name = "w" + std::to_string(k);
    std::vector<std::string> fkeys, lkeys;  // the keys node k writes, named once
    for (int j = 0; j < 45; ++j) fkeys.push_back("f" + std::to_string((10 * k + j) % 100));
    for (int j = 0; j < 5; ++j) lkeys.push_back("l" + std::to_string((k + j) % 10));
    bodies.push_back([k, fkeys, lkeys](const sp::State& st) {
      json update = json::object();
      int v = k * 1000 + st["f0"].get<int>();
      for (const auto& key : fkeys) update[key] = v;
      for (const auto& key : lkeys) update[key] = json::array({k});
      return update;
    });
    g.add_node(name, bodies.back());
    g.add_edge(k == 0 ? sp::START : "w" + std::to_string(k - 1), name);
  }
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app, n] {
    json out;
    for (int i = 0; i < n; ++i) out = app.invoke(json{{"f0", i}});
    return out;
  };
  w.check = [n](const json& out) {
    // Direct simulation of the last invocation.
    std::vector<std::optional<int>> f(100);
    std::vector<std::vector<int>> l(10);
    f[0] = n - 1;
    for (int k = 0; k < 10; ++k) {
      int v = k * 1000 + *f[0];
      std::vector<int> keys;
      for (int j = 0; j < 45; ++j) keys.push_back((10 * k + j) % 100);
      for (int key : keys) f[key] = v;
      for (int j = 0; j < 5; ++j) l[(k + j) % 10].push_back(k);
    }
    json expected = json::object();
    for (int i = 0; i < 100; ++i)
      if (f[i]) expected["f" + std::to_string(i)] = *f[i];
    for (int i = 0; i < 10; ++i) expected["l" + std::to_string(i)] = l[i];
    expect(out == expected, "final state equals the simulation");
  };
  w.direct = [bodies, n] {
    for (int i = 0; i < n; ++i) {
      json state = {{"f0", i}};
      for (int l = 0; l < 10; ++l) state["l" + std::to_string(l)] = json::array();
      for (const auto& body : bodies) {
        json u = body(sp::State(state));
        for (auto& [key, v] : u.items()) {
          json& slot = state[key];
          if (key[0] == 'l') {
            for (auto& x : v) slot.push_back(std::move(x));
          } else {
            slot = std::move(v);
          }
        }
      }
    }
  };
  w.nodes_run = 10L * n;
  w.supersteps = 11L * n;
  return w;
}

Workload make_parallel_branches(int k) {
  auto t0 = std::chrono::steady_clock::now();
  sp::StateSchema s;
  s.field("done", sp::reducers::concat);
  sp::StateGraph g(s);
  std::vector<std::string> names;
  for (int i = 0; i < k; ++i) {
    std::string name = "b" + std::to_string(i);
    names.push_back(name);
    // A node waiting 10 ms, written as a coroutine (as LangGraph.js awaits a timer).
    g.add_node(name, [i](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      co_await sp::sleep_for(rt, 10ms);
      co_return json{{"done", json::array({i})}};
    });
    g.add_edge(sp::START, name);
    g.add_edge(name, "join");
  }
  g.add_node("join", [](const sp::State&) { return json::object(); });
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app] { return app.invoke(json::object()); };
  std::sort(names.begin(), names.end());
  w.check = [names](const json& out) {
    const json& d = out["done"];
    expect(d.size() == names.size(), "K indices");
    for (std::size_t i = 0; i < names.size(); ++i)
      expect("b" + std::to_string(d[i].get<int>()) == names[i], "indices in branch-name order");
  };
  w.nodes_run = k + 1;
  w.supersteps = 3;
  return w;
}

}  // namespace bench
