// get_state_history over the `checkpointed` chain (200 nodes: 202 checkpoints, each with the
// whole `trace` so far), the thread stored once and read again per iteration:
//   BM_StateHistory/0/x   InMemorySaver
//   BM_StateHistory/1/x   SqliteSaver (a fresh file)
//   BM_StateHistory/2/x   PostgresSaver at $SUPERSTEP_PG_DSN (skipped when unset)
//   BM_StateHistory/s/1   the saver's list() alone (CheckpointQuery::as_changes, as the history reads it)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

static void BM_StateHistory(benchmark::State& state) {
  const int n = 200;
  auto path = std::filesystem::temp_directory_path() / ("superstep_history_" + std::to_string(::getpid()) + ".db");
  std::shared_ptr<sp::CheckpointSaver> saver;
  const std::string thread = "history-" + std::to_string(::getpid());
  if (state.range(0) == 0) {
    saver = std::make_shared<sp::InMemorySaver>();
  } else if (state.range(0) == 1) {
    saver = std::make_shared<sp::SqliteSaver>(path.string());
  } else {
    const char* dsn = std::getenv("SUPERSTEP_PG_DSN");
    if (!dsn || !*dsn) return state.SkipWithError("set SUPERSTEP_PG_DSN for the PostgreSQL case");
    saver = std::make_shared<sp::PostgresSaver>(dsn);
  }
  sp::StateSchema s;
  s.field("count");
  s.field("trace", sp::reducers::concat, json::array());
  sp::StateGraph g(s);
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [name](const sp::State& st) {
      return json{{"count", st["count"].get<int>() + 1}, {"trace", json::array({name})}};
    });
    g.add_edge(i ? "n" + std::to_string(i - 1) : sp::START, name);
  }
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig cfg;
  cfg.thread_id = thread;
  cfg.recursion_limit = 1000;
  app.invoke(json{{"count", 0}}, cfg);
  for (auto _ : state) {
    if (state.range(1)) {
      sp::CheckpointQuery q;
      q.thread_id = thread;
      q.checkpoint_ns = "";
      q.as_changes = true;
      auto tuples = saver->list(q);
      benchmark::DoNotOptimize(tuples);
      continue;
    }
    auto history = app.get_state_history(cfg);
    if (history.size() != n + 2) state.SkipWithError("history has the wrong length");
    benchmark::DoNotOptimize(history);
  }
  state.SetItemsProcessed(state.iterations() * (n + 2));
  if (state.range(0) == 2) saver->delete_thread(thread);
  saver.reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
}
BENCHMARK(BM_StateHistory)->ArgsProduct({{0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond);
