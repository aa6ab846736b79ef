// `checkpointed`: the sequential chain with a checkpointer (memory, SQLite on a fresh file, or
// PostgreSQL at SUPERSTEP_PG_DSN), each repetition on a new thread; also times
// get_state_history over that thread (each repetition's; the median of the warm ones is reported).
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <unistd.h>

#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>

#include "workloads/workloads.hpp"

namespace bench {

namespace sp = superstep;
using sp::json;

Workload make_checkpointed(int n, const std::string& saver_name, sp::Durability durability) {
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<sp::CheckpointSaver> saver;
  if (saver_name == "memory") {
    saver = std::make_shared<sp::InMemorySaver>();
  } else if (saver_name == "sqlite") {
    auto path = std::filesystem::temp_directory_path() / ("superstep_bench_" + std::to_string(::getpid()) + ".db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
    saver = std::make_shared<sp::SqliteSaver>(path.string());
  } else if (saver_name == "postgres") {
    saver = std::make_shared<sp::PostgresSaver>(std::getenv("SUPERSTEP_PG_DSN"));
  } else {
    throw std::invalid_argument("--saver " + saver_name + " is not available in this build (memory, sqlite, postgres)");
  }
  // Threads unique to this process, so a shared database never holds one already.
  auto prefix = std::make_shared<std::string>("bench-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + "-");
  sp::StateSchema s;
  s.field("count").field("trace", sp::reducers::concat);
  sp::StateGraph g(s);
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [name](const sp::State& st) {
      return json{{"count", st["count"].get<int>() + 1}, {"trace", json::array({name})}};
    });
    g.add_edge(i == 0 ? sp::START : "n" + std::to_string(i - 1), name);
  }
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile({.checkpointer = saver});
  Workload w{app, build, ms_since(t0)};
  auto rep = std::make_shared<std::atomic<int>>(0);
  auto history_ms = std::make_shared<std::vector<double>>();
  w.run = [app, rep, durability, prefix] {
    sp::RunConfig cfg;
    cfg.thread_id = *prefix + std::to_string((*rep)++);
    cfg.recursion_limit = 1 << 30;
    cfg.durability = durability;
    return app.invoke(json{{"count", 0}}, cfg);
  };
  w.check = [app, n, rep, history_ms, durability, prefix](const json& out) {
    expect(out["count"] == n, "count == N");
    expect(out["trace"].size() == static_cast<size_t>(n), "trace has N names");
    sp::RunConfig cfg;
    cfg.thread_id = *prefix + std::to_string(*rep - 1);
    auto t = std::chrono::steady_clock::now();
    auto history = app.get_state_history(cfg);
    history_ms->push_back(ms_since(t));
    // Durability exit stores only the run's last checkpoint.
    expect(history.size() == (durability == sp::Durability::exit ? 1 : static_cast<size_t>(n) + 2),
           "history has N+2 checkpoints");
    expect(history.front().values == out, "the latest checkpoint holds the final state");
  };
  w.extra = [history_ms, saver_name, durability] {
    const char* d = durability == sp::Durability::sync ? "sync" : durability == sp::Durability::exit ? "exit" : "async";
    std::vector<double> warm(history_ms->begin() + (history_ms->size() > 1 ? 1 : 0), history_ms->end());
    std::sort(warm.begin(), warm.end());
    const std::size_t m = warm.size();
    const double median = m % 2 ? warm[m / 2] : (warm[m / 2 - 1] + warm[m / 2]) / 2;
    return json{{"saver", saver_name}, {"durability", d}, {"get_state_history_ms", median},
                {"get_state_history_ms_min", warm.front()}};
  };
  w.nodes_run = n;
  w.supersteps = n + 1;
  return w;
}

}  // namespace bench
