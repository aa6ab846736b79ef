// Engine costs with trivial nodes, so planning and apply_writes dominate:
//   BM_Superstep            one step of one node (plan + run inline + barrier)
//   BM_PlanAndApplyWide/K   one step of K triggered nodes writing one reducer key each
//   BM_ApplyWritesWideUpdate one node writing K keys in one update
#include <benchmark/benchmark.h>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

static void BM_Superstep(benchmark::State& state) {
  const int steps = 100;
  sp::StateSchema s;
  s.field("count");
  sp::StateGraph g(s);
  for (int i = 0; i < steps; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [](const sp::State& st) { return json{{"count", st["count"].get<int>() + 1}}; });
    g.add_edge(i ? "n" + std::to_string(i - 1) : sp::START, name);
  }
  auto app = g.compile();
  for (auto _ : state) benchmark::DoNotOptimize(app.invoke(json{{"count", 0}}, {.recursion_limit = 1000}));
  state.SetItemsProcessed(state.iterations() * steps);
}
BENCHMARK(BM_Superstep);

static void BM_PlanAndApplyWide(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  sp::StateSchema s;
  s.field("hits", sp::reducers::add, 0);
  sp::StateGraph g(s);
  for (int i = 0; i < k; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [](const sp::State&) { return json{{"hits", 1}}; });
    g.add_edge(sp::START, name);
  }
  auto app = g.compile();
  for (auto _ : state) benchmark::DoNotOptimize(app.invoke(json::object(), {.max_concurrency = 1}));
  state.SetItemsProcessed(state.iterations() * k);
}
BENCHMARK(BM_PlanAndApplyWide)->Arg(10)->Arg(100)->Arg(1000);

static void BM_ApplyWritesWideUpdate(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  sp::StateSchema s;
  for (int i = 0; i < k; ++i) s.field("f" + std::to_string(i));
  sp::StateGraph g(s);
  json update = json::object();
  for (int i = 0; i < k; ++i) update["f" + std::to_string(i)] = i;
  g.add_node("w", [update](const sp::State&) { return update; });
  g.add_edge(sp::START, "w");
  auto app = g.compile();
  for (auto _ : state) benchmark::DoNotOptimize(app.invoke(json::object()));
  state.SetItemsProcessed(state.iterations() * k);
}
BENCHMARK(BM_ApplyWritesWideUpdate)->Arg(10)->Arg(100);
