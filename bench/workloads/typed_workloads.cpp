// The workloads in typed form (superstep-bench WORKLOAD --typed): the same graph shapes and
// checks as workloads.cpp, with C++ structs as the state.
#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "workloads/workloads.hpp"

namespace sp = superstep;
using sp::json;

namespace bench {
namespace {


struct Seq {
  int count = 0;
  std::vector<std::string> trace;
};

struct Fan {
  int n = 0;
  int i = 0;
  std::vector<int> results;
};

struct ToolCall {
  std::string id;
  std::string name;
  int arg = 0;
};
struct Msg {
  std::string type;
  std::string content;
  std::string id;
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;
};
struct Chat {
  std::vector<Msg> messages;
};

struct Wide {
  int f0 = 0;
  int f1 = 0;
  int f2 = 0;
  int f3 = 0;
  int f4 = 0;
  int f5 = 0;
  int f6 = 0;
  int f7 = 0;
  int f8 = 0;
  int f9 = 0;
  int f10 = 0;
  int f11 = 0;
  int f12 = 0;
  int f13 = 0;
  int f14 = 0;
  int f15 = 0;
  int f16 = 0;
  int f17 = 0;
  int f18 = 0;
  int f19 = 0;
  int f20 = 0;
  int f21 = 0;
  int f22 = 0;
  int f23 = 0;
  int f24 = 0;
  int f25 = 0;
  int f26 = 0;
  int f27 = 0;
  int f28 = 0;
  int f29 = 0;
  int f30 = 0;
  int f31 = 0;
  int f32 = 0;
  int f33 = 0;
  int f34 = 0;
  int f35 = 0;
  int f36 = 0;
  int f37 = 0;
  int f38 = 0;
  int f39 = 0;
  int f40 = 0;
  int f41 = 0;
  int f42 = 0;
  int f43 = 0;
  int f44 = 0;
  int f45 = 0;
  int f46 = 0;
  int f47 = 0;
  int f48 = 0;
  int f49 = 0;
  int f50 = 0;
  int f51 = 0;
  int f52 = 0;
  int f53 = 0;
  int f54 = 0;
  int f55 = 0;
  int f56 = 0;
  int f57 = 0;
  int f58 = 0;
  int f59 = 0;
  int f60 = 0;
  int f61 = 0;
  int f62 = 0;
  int f63 = 0;
  int f64 = 0;
  int f65 = 0;
  int f66 = 0;
  int f67 = 0;
  int f68 = 0;
  int f69 = 0;
  int f70 = 0;
  int f71 = 0;
  int f72 = 0;
  int f73 = 0;
  int f74 = 0;
  int f75 = 0;
  int f76 = 0;
  int f77 = 0;
  int f78 = 0;
  int f79 = 0;
  int f80 = 0;
  int f81 = 0;
  int f82 = 0;
  int f83 = 0;
  int f84 = 0;
  int f85 = 0;
  int f86 = 0;
  int f87 = 0;
  int f88 = 0;
  int f89 = 0;
  int f90 = 0;
  int f91 = 0;
  int f92 = 0;
  int f93 = 0;
  int f94 = 0;
  int f95 = 0;
  int f96 = 0;
  int f97 = 0;
  int f98 = 0;
  int f99 = 0;
  std::vector<int> l0;
  std::vector<int> l1;
  std::vector<int> l2;
  std::vector<int> l3;
  std::vector<int> l4;
  std::vector<int> l5;
  std::vector<int> l6;
  std::vector<int> l7;
  std::vector<int> l8;
  std::vector<int> l9;
};

}  // namespace
}  // namespace bench

using bench::Seq;
using bench::Fan;
using bench::Chat;
using bench::Wide;
SUPERSTEP_STATE(Seq, SUPERSTEP_FIELD(Seq, count), SUPERSTEP_FIELD(Seq, trace, sp::typed::append{}));
SUPERSTEP_STATE(Fan, SUPERSTEP_FIELD(Fan, n), SUPERSTEP_FIELD(Fan, i), SUPERSTEP_FIELD(Fan, results, sp::typed::append{}));
SUPERSTEP_STATE(Chat, SUPERSTEP_FIELD(Chat, messages, sp::typed::add_messages{}));
SUPERSTEP_STATE(Wide,
                SUPERSTEP_FIELD(Wide, f0),
                SUPERSTEP_FIELD(Wide, f1),
                SUPERSTEP_FIELD(Wide, f2),
                SUPERSTEP_FIELD(Wide, f3),
                SUPERSTEP_FIELD(Wide, f4),
                SUPERSTEP_FIELD(Wide, f5),
                SUPERSTEP_FIELD(Wide, f6),
                SUPERSTEP_FIELD(Wide, f7),
                SUPERSTEP_FIELD(Wide, f8),
                SUPERSTEP_FIELD(Wide, f9),
                SUPERSTEP_FIELD(Wide, f10),
                SUPERSTEP_FIELD(Wide, f11),
                SUPERSTEP_FIELD(Wide, f12),
                SUPERSTEP_FIELD(Wide, f13),
                SUPERSTEP_FIELD(Wide, f14),
                SUPERSTEP_FIELD(Wide, f15),
                SUPERSTEP_FIELD(Wide, f16),
                SUPERSTEP_FIELD(Wide, f17),
                SUPERSTEP_FIELD(Wide, f18),
                SUPERSTEP_FIELD(Wide, f19),
                SUPERSTEP_FIELD(Wide, f20),
                SUPERSTEP_FIELD(Wide, f21),
                SUPERSTEP_FIELD(Wide, f22),
                SUPERSTEP_FIELD(Wide, f23),
                SUPERSTEP_FIELD(Wide, f24),
                SUPERSTEP_FIELD(Wide, f25),
                SUPERSTEP_FIELD(Wide, f26),
                SUPERSTEP_FIELD(Wide, f27),
                SUPERSTEP_FIELD(Wide, f28),
                SUPERSTEP_FIELD(Wide, f29),
                SUPERSTEP_FIELD(Wide, f30),
                SUPERSTEP_FIELD(Wide, f31),
                SUPERSTEP_FIELD(Wide, f32),
                SUPERSTEP_FIELD(Wide, f33),
                SUPERSTEP_FIELD(Wide, f34),
                SUPERSTEP_FIELD(Wide, f35),
                SUPERSTEP_FIELD(Wide, f36),
                SUPERSTEP_FIELD(Wide, f37),
                SUPERSTEP_FIELD(Wide, f38),
                SUPERSTEP_FIELD(Wide, f39),
                SUPERSTEP_FIELD(Wide, f40),
                SUPERSTEP_FIELD(Wide, f41),
                SUPERSTEP_FIELD(Wide, f42),
                SUPERSTEP_FIELD(Wide, f43),
                SUPERSTEP_FIELD(Wide, f44),
                SUPERSTEP_FIELD(Wide, f45),
                SUPERSTEP_FIELD(Wide, f46),
                SUPERSTEP_FIELD(Wide, f47),
                SUPERSTEP_FIELD(Wide, f48),
                SUPERSTEP_FIELD(Wide, f49),
                SUPERSTEP_FIELD(Wide, f50),
                SUPERSTEP_FIELD(Wide, f51),
                SUPERSTEP_FIELD(Wide, f52),
                SUPERSTEP_FIELD(Wide, f53),
                SUPERSTEP_FIELD(Wide, f54),
                SUPERSTEP_FIELD(Wide, f55),
                SUPERSTEP_FIELD(Wide, f56),
                SUPERSTEP_FIELD(Wide, f57),
                SUPERSTEP_FIELD(Wide, f58),
                SUPERSTEP_FIELD(Wide, f59),
                SUPERSTEP_FIELD(Wide, f60),
                SUPERSTEP_FIELD(Wide, f61),
                SUPERSTEP_FIELD(Wide, f62),
                SUPERSTEP_FIELD(Wide, f63),
                SUPERSTEP_FIELD(Wide, f64),
                SUPERSTEP_FIELD(Wide, f65),
                SUPERSTEP_FIELD(Wide, f66),
                SUPERSTEP_FIELD(Wide, f67),
                SUPERSTEP_FIELD(Wide, f68),
                SUPERSTEP_FIELD(Wide, f69),
                SUPERSTEP_FIELD(Wide, f70),
                SUPERSTEP_FIELD(Wide, f71),
                SUPERSTEP_FIELD(Wide, f72),
                SUPERSTEP_FIELD(Wide, f73),
                SUPERSTEP_FIELD(Wide, f74),
                SUPERSTEP_FIELD(Wide, f75),
                SUPERSTEP_FIELD(Wide, f76),
                SUPERSTEP_FIELD(Wide, f77),
                SUPERSTEP_FIELD(Wide, f78),
                SUPERSTEP_FIELD(Wide, f79),
                SUPERSTEP_FIELD(Wide, f80),
                SUPERSTEP_FIELD(Wide, f81),
                SUPERSTEP_FIELD(Wide, f82),
                SUPERSTEP_FIELD(Wide, f83),
                SUPERSTEP_FIELD(Wide, f84),
                SUPERSTEP_FIELD(Wide, f85),
                SUPERSTEP_FIELD(Wide, f86),
                SUPERSTEP_FIELD(Wide, f87),
                SUPERSTEP_FIELD(Wide, f88),
                SUPERSTEP_FIELD(Wide, f89),
                SUPERSTEP_FIELD(Wide, f90),
                SUPERSTEP_FIELD(Wide, f91),
                SUPERSTEP_FIELD(Wide, f92),
                SUPERSTEP_FIELD(Wide, f93),
                SUPERSTEP_FIELD(Wide, f94),
                SUPERSTEP_FIELD(Wide, f95),
                SUPERSTEP_FIELD(Wide, f96),
                SUPERSTEP_FIELD(Wide, f97),
                SUPERSTEP_FIELD(Wide, f98),
                SUPERSTEP_FIELD(Wide, f99),
                SUPERSTEP_FIELD(Wide, l0, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l1, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l2, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l3, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l4, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l5, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l6, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l7, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l8, sp::typed::append{}),
                SUPERSTEP_FIELD(Wide, l9, sp::typed::append{}));

namespace bench {
namespace {

constexpr std::array<int Wide::*, 100> kF = {&Wide::f0, &Wide::f1, &Wide::f2, &Wide::f3, &Wide::f4, &Wide::f5, &Wide::f6, &Wide::f7, &Wide::f8, &Wide::f9, &Wide::f10, &Wide::f11, &Wide::f12, &Wide::f13, &Wide::f14, &Wide::f15, &Wide::f16, &Wide::f17, &Wide::f18, &Wide::f19, &Wide::f20, &Wide::f21, &Wide::f22, &Wide::f23, &Wide::f24, &Wide::f25, &Wide::f26, &Wide::f27, &Wide::f28, &Wide::f29, &Wide::f30, &Wide::f31, &Wide::f32, &Wide::f33, &Wide::f34, &Wide::f35, &Wide::f36, &Wide::f37, &Wide::f38, &Wide::f39, &Wide::f40, &Wide::f41, &Wide::f42, &Wide::f43, &Wide::f44, &Wide::f45, &Wide::f46, &Wide::f47, &Wide::f48, &Wide::f49, &Wide::f50, &Wide::f51, &Wide::f52, &Wide::f53, &Wide::f54, &Wide::f55, &Wide::f56, &Wide::f57, &Wide::f58, &Wide::f59, &Wide::f60, &Wide::f61, &Wide::f62, &Wide::f63, &Wide::f64, &Wide::f65, &Wide::f66, &Wide::f67, &Wide::f68, &Wide::f69, &Wide::f70, &Wide::f71, &Wide::f72, &Wide::f73, &Wide::f74, &Wide::f75, &Wide::f76, &Wide::f77, &Wide::f78, &Wide::f79, &Wide::f80, &Wide::f81, &Wide::f82, &Wide::f83, &Wide::f84, &Wide::f85, &Wide::f86, &Wide::f87, &Wide::f88, &Wide::f89, &Wide::f90, &Wide::f91, &Wide::f92, &Wide::f93, &Wide::f94, &Wide::f95, &Wide::f96, &Wide::f97, &Wide::f98, &Wide::f99};
constexpr std::array<std::vector<int> Wide::*, 10> kL = {&Wide::l0, &Wide::l1, &Wide::l2, &Wide::l3, &Wide::l4, &Wide::l5, &Wide::l6, &Wide::l7, &Wide::l8, &Wide::l9};

// Node K of wide_state: sets the 45 ints f[(10K+j) mod 100] and appends [K] to l[(K+j) mod 10].
template <int K, std::size_t... J, std::size_t... L>
sp::Update<Wide> wide_node(const Wide& s, std::index_sequence<J...>, std::index_sequence<L...>) {
  const int v = K * 1000 + s.f0;
  sp::Update<Wide> u;
  (u.template set<kF[(10 * K + J) % 100]>(v), ...);
  (u.template set<kL[(K + L) % 10]>(std::vector<int>{K}), ...);
  return u;
}

template <int K>
void add_wide_node(sp::TypedStateGraph<Wide>& g) {
  g.add_node("w" + std::to_string(K), [](const Wide& s) {
    return wide_node<K>(s, std::make_index_sequence<45>{}, std::make_index_sequence<5>{});
  });
  g.add_edge(K == 0 ? sp::START : "w" + std::to_string(K - 1), "w" + std::to_string(K));
}

template <int... K>
void add_wide_nodes(sp::TypedStateGraph<Wide>& g, std::integer_sequence<int, K...>) {
  (add_wide_node<K>(g), ...);
}

}  // namespace

Workload make_sequential_typed(int n) {
  using U = sp::Update<Seq>;
  auto t0 = std::chrono::steady_clock::now();
  sp::TypedStateGraph<Seq> g;
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [name](const Seq& s) {
      return U().set<&Seq::count>(s.count + 1).set<&Seq::trace>(std::vector<std::string>{name});
    });
    g.add_edge(i == 0 ? sp::START : "n" + std::to_string(i - 1), name);
  }
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app.json_graph(), build, ms_since(t0)};
  auto last = std::make_shared<Seq>();
  w.run = [app, last] {
    *last = app.invoke(U().set<&Seq::count>(0), {.recursion_limit = 1 << 30});
    return json::object();
  };
  w.check = [last, n](const json&) {
    const Seq& out = *last;
    expect(out.count == n, "count == N");
    expect(out.trace.size() == static_cast<std::size_t>(n), "trace has N names");
    for (int i = 0; i < n; ++i) expect(out.trace[i] == "n" + std::to_string(i), "trace in order");
  };
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("n" + std::to_string(i));
  w.direct = [names] {
    Seq s;
    for (const auto& name : names) {
      s.count = s.count + 1;
      std::vector<std::string> add{name};
      s.trace.insert(s.trace.end(), std::make_move_iterator(add.begin()), std::make_move_iterator(add.end()));
    }
    keep(s);
  };
  w.nodes_run = n;
  w.supersteps = n + 1;
  return w;
}

Workload make_fanout_typed(int n) {
  using U = sp::Update<Fan>;
  auto t0 = std::chrono::steady_clock::now();
  sp::TypedStateGraph<Fan> g;
  g.add_node("worker", [](const Fan& s) { return U().set<&Fan::results>(std::vector<int>{s.i * 2}); });
  g.set_conditional_entry_point([](const Fan& s) {
    std::vector<sp::Send> sends;
    sends.reserve(s.n);
    for (int i = 0; i < s.n; ++i) {
      Fan arg;
      arg.i = i;
      sends.push_back(sp::send("worker", std::move(arg)));
    }
    return sends;
  });
  g.add_edge("worker", sp::END);
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app.json_graph(), build, ms_since(t0)};
  auto last = std::make_shared<Fan>();
  w.run = [app, last, n] {
    *last = app.invoke(U().set<&Fan::n>(n));
    return json::object();
  };
  w.check = [last, n](const json&) {
    const Fan& out = *last;
    expect(out.results.size() == static_cast<std::size_t>(n), "N results");
    long sum = 0;
    for (int i = 0; i < n; ++i) {
      expect(out.results[i] == i * 2, "results in Send order");
      sum += out.results[i];
    }
    expect(sum == static_cast<long>(n) * (n - 1), "sum == N(N-1)");
  };
  w.direct = [n] {
    std::vector<int> results;
    for (int i = 0; i < n; ++i) {
      Fan arg;
      arg.i = i;
      std::vector<int> add{arg.i * 2};
      results.insert(results.end(), add.begin(), add.end());
    }
    keep(results);
  };
  w.nodes_run = n;
  w.supersteps = 2;
  return w;
}

Workload make_react_loop_typed(int n) {
  using U = sp::Update<Chat>;
  auto t0 = std::chrono::steady_clock::now();
  sp::TypedStateGraph<Chat> g;
  auto agent = [](const Chat& s) {
    int k = static_cast<int>((s.messages.size() - 1) / 2);
    Msg m;
    m.type = "ai";
    m.tool_calls.push_back(ToolCall{"call_" + std::to_string(k), "echo", k});
    std::vector<Msg> add;
    add.push_back(std::move(m));
    return add;
  };
  auto tools = [](const Chat& s) {
    const ToolCall& call = s.messages.back().tool_calls.front();
    Msg m;
    m.type = "tool";
    m.content = std::to_string(call.arg);
    m.tool_call_id = call.id;
    std::vector<Msg> add;
    add.push_back(std::move(m));
    return add;
  };
  g.add_node("agent", [agent](const Chat& s) { return U().set<&Chat::messages>(agent(s)); });
  g.add_node("tools", [tools](const Chat& s) { return U().set<&Chat::messages>(tools(s)); });
  g.add_edge(sp::START, "agent");
  g.add_conditional_edges("agent", [](const Chat& s) {
    return s.messages.back().tool_calls.empty() ? sp::END : "tools";
  });
  g.add_conditional_edges("tools", [n](const Chat& s) {
    int i = static_cast<int>((s.messages.size() - 1) / 2) - 1;
    return i + 1 >= n ? sp::END : "agent";
  });
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app.json_graph(), build, ms_since(t0)};
  auto last = std::make_shared<Chat>();
  w.run = [app, last] {
    Msg human;
    human.type = "human";
    human.content = "go";
    *last = app.invoke(U().set<&Chat::messages>(std::vector<Msg>{human}), {.recursion_limit = 1 << 30});
    return json::object();
  };
  w.check = [last, n](const json&) {
    const Chat& out = *last;
    expect(out.messages.size() == static_cast<std::size_t>(2 * n + 1), "2N+1 messages");
    expect(out.messages.back().type == "tool", "last is a tool message");
    expect(out.messages.back().tool_call_id == "call_" + std::to_string(n - 1), "last answers call_(N-1)");
    for (const auto& m : out.messages) expect(m.id.size() == 36, "every message has an id");
  };
  w.direct = [agent, tools, n] {
    Chat s;
    Msg human;
    human.type = "human";
    s.messages.push_back(human);
    for (int i = 0; i < n; ++i) {
      for (auto& m : agent(s)) s.messages.push_back(std::move(m));
      for (auto& m : tools(s)) s.messages.push_back(std::move(m));
    }
    keep(s);
  };
  w.nodes_run = 2L * n;
  w.supersteps = 2L * n + 1;
  return w;
}

Workload make_wide_state_typed(int n) {
  using U = sp::Update<Wide>;
  auto t0 = std::chrono::steady_clock::now();
  sp::TypedStateGraph<Wide> g;
  add_wide_nodes(g, std::make_integer_sequence<int, 10>{});
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app.json_graph(), build, ms_since(t0)};
  auto last = std::make_shared<Wide>();
  w.run = [app, last, n] {
    for (int i = 0; i < n; ++i) *last = app.invoke(U().set<&Wide::f0>(i));
    return json::object();
  };
  w.check = [last, n](const json&) {
    const Wide& out = *last;
    // Direct simulation of the last invocation.
    std::array<int, 100> f{};
    std::array<std::vector<int>, 10> l;
    f[0] = n - 1;
    for (int k = 0; k < 10; ++k) {
      int v = k * 1000 + f[0];
      for (int j = 0; j < 45; ++j) f[(10 * k + j) % 100] = v;
      for (int j = 0; j < 5; ++j) l[(k + j) % 10].push_back(k);
    }
    for (int i = 0; i < 100; ++i) expect(out.*kF[i] == f[i], "f" + std::to_string(i));
    for (int i = 0; i < 10; ++i) expect(out.*kL[i] == l[i], "l" + std::to_string(i));
  };
  w.direct = [n] {
    // What the node bodies make (the 45 values and the 5 one-element lists), folded by hand.
    for (int i = 0; i < n; ++i) {
      Wide s;
      s.f0 = i;
      for (int k = 0; k < 10; ++k) {
        int v = k * 1000 + s.f0;
        for (int j = 0; j < 45; ++j) s.*kF[(10 * k + j) % 100] = v;
        for (int j = 0; j < 5; ++j) {
          std::vector<int> add{k};
          auto& list = s.*kL[(k + j) % 10];
          list.insert(list.end(), add.begin(), add.end());
        }
      }
      keep(s);
    }
  };
  w.nodes_run = 10L * n;
  w.supersteps = 11L * n;
  return w;
}

}  // namespace bench
