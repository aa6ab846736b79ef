// Each reducer folding one small update into a value, through its channel.
#include <benchmark/benchmark.h>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {
void fold(benchmark::State& state, const sp::Reducer& r, json initial, json update) {
  sp::BinaryOperatorAggregate ch("k", r, initial);
  std::vector<json> writes(1);
  for (auto _ : state) {
    writes[0] = update;
    ch.update(std::span<json>(writes));
  }
  benchmark::DoNotOptimize(ch.peek());
}
}  // namespace

static void BM_ReducerAdd(benchmark::State& s) { fold(s, sp::reducers::add, 0, 1); }
static void BM_ReducerAppend(benchmark::State& s) { fold(s, sp::reducers::append, json::array(), json::array({1})); }
static void BM_ReducerConcat(benchmark::State& s) { fold(s, sp::reducers::concat, json::array(), json::array({"n1"})); }
static void BM_ReducerMerge(benchmark::State& s) { fold(s, sp::reducers::merge, json::object(), json{{"a", 1}}); }
// Appending one message without id (the reducer assigns one) to a conversation that is reset
// every 1000 messages, so the figure is the steady per-append cost, not memory growth.
static void BM_ReducerAddMessages(benchmark::State& s) {
  sp::BinaryOperatorAggregate ch("messages", sp::reducers::add_messages, json::array());
  const json message = json{{"type", "ai"}, {"content", "hi"}};
  std::vector<json> writes(1);
  int n = 0;
  for (auto _ : s) {
    if (++n % 1000 == 0) {
      s.PauseTiming();
      writes[0] = json(sp::Overwrite{json::array()});
      ch.update(std::span<json>(writes));
      s.ResumeTiming();
    }
    writes[0] = message;
    ch.update(std::span<json>(writes));
  }
}
static void BM_ReducerAddMessagesUpsert(benchmark::State& s) {
  sp::BinaryOperatorAggregate ch("messages", sp::reducers::add_messages, json::array());
  std::vector<json> writes(1);
  for (int i = 0; i < 1000; ++i) {
    writes[0] = json{{"id", "m" + std::to_string(i)}, {"content", "x"}};
    ch.update(std::span<json>(writes));
  }
  int i = 0;
  for (auto _ : s) {
    writes[0] = json{{"id", "m" + std::to_string(i++ % 1000)}, {"content", "y"}};
    ch.update(std::span<json>(writes));
  }
}
static void BM_ReducerCustom(benchmark::State& s) {
  fold(s, sp::Reducer([](json a, json b) { return a.get<int>() + b.get<int>(); }), 0, 1);
}
BENCHMARK(BM_ReducerAdd);
BENCHMARK(BM_ReducerAppend);
BENCHMARK(BM_ReducerConcat);
BENCHMARK(BM_ReducerMerge);
BENCHMARK(BM_ReducerAddMessages);
BENCHMARK(BM_ReducerAddMessagesUpsert);
BENCHMARK(BM_ReducerCustom);
