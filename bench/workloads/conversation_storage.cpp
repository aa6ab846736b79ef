// `conversation_storage`: a chat of N turns on one SQLite thread, each turn one invoke adding a
// human and an AI message (~200 bytes each). Reports the stored bytes after N turns and the
// bytes each turn adds near turn N/10 and near turn N, with delta storage (the default) and,
// in the same run, with every value stored whole.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include <superstep/checkpoint/sqlite_saver.hpp>

#include "workloads/workloads.hpp"

namespace bench {

namespace sp = superstep;
using sp::json;

namespace {

std::string scratch_path(const char* tag) {
  auto path = std::filesystem::temp_directory_path() /
              ("superstep_conversation_" + std::to_string(::getpid()) + "_" + tag + ".db");
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
  return path.string();
}

/// Bytes of stored data (checkpoints, metadata, values, pending writes) in the file at `path`.
long long stored_bytes(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path);
  }
  long long total = 0;
  for (const char* sql : {"SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints",
                          "SELECT COALESCE(SUM(LENGTH(value)), 0) FROM checkpoint_blobs",
                          "SELECT COALESCE(SUM(LENGTH(value)), 0) FROM checkpoint_writes"}) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
    if (sqlite3_step(s) == SQLITE_ROW) total += sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return total;
}

struct Measured {
  long long total = 0;
  double per_turn_early = 0;  // bytes per turn over the window ending at turn N/10
  double per_turn_late = 0;   // ... ending at turn N
  json final_state;
};

sp::CompiledStateGraph chat_graph(std::shared_ptr<sp::CheckpointSaver> saver) {
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages);
  sp::StateGraph g(s);
  g.add_node("ai", [](const sp::State& st) {
    std::size_t n = st.at("messages").size();
    return json{{"messages", {{{"type", "ai"}, {"id", "ai-" + std::to_string(n)},
                               {"content", "Answer " + std::to_string(n) + ": " + std::string(140, 'a')}}}}};
  });
  g.add_edge(sp::START, "ai");
  return g.compile({.checkpointer = std::move(saver)});
}

Measured converse(int turns, bool deltas) {
  std::string path = scratch_path(deltas ? "delta" : "whole");
  auto saver = std::make_shared<sp::SqliteSaver>(path);
  saver->store_deltas(deltas);
  auto app = chat_graph(saver);
  sp::RunConfig cfg{.thread_id = "chat"};
  const int early = std::max(1, turns / 10), window = std::max(1, turns / 100);
  Measured m;
  long long before_early = 0, before_late = 0;
  for (int t = 1; t <= turns; ++t) {
    if (t == early - window + 1) before_early = stored_bytes(path);
    if (t == turns - window + 1) before_late = stored_bytes(path);
    json human = {{"type", "human"}, {"id", "h-" + std::to_string(t)},
                  {"content", "Question " + std::to_string(t) + ": " + std::string(140, 'q')}};
    m.final_state = app.invoke(json{{"messages", json::array({human})}}, cfg);
    if (t == early) m.per_turn_early = static_cast<double>(stored_bytes(path) - before_early) / window;
  }
  m.total = stored_bytes(path);
  m.per_turn_late = static_cast<double>(m.total - before_late) / window;
  expect(app.get_state(cfg).values == m.final_state, "the stored state equals the last result");
  saver.reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  return m;
}

}  // namespace

Workload make_conversation_storage(int turns) {
  auto t0 = std::chrono::steady_clock::now();
  auto app = chat_graph(std::make_shared<sp::InMemorySaver>());
  double build = ms_since(t0);
  Workload w{app, build, 0};
  auto last = std::make_shared<Measured>();
  w.run = [turns, last] {
    *last = converse(turns, /*deltas=*/true);
    return last->final_state;
  };
  w.check = [turns](const json& out) {
    expect(out["messages"].size() == static_cast<std::size_t>(2 * turns), "2N messages");
    expect(out["messages"].back()["id"] == "ai-" + std::to_string(2 * turns - 1), "the last answer is the last message");
  };
  w.extra = [turns, last] {
    Measured whole = converse(turns, /*deltas=*/false);
    auto ratio = [](const Measured& m) { return m.per_turn_early > 0 ? m.per_turn_late / m.per_turn_early : 0.0; };
    return json{{"turns", turns},
                {"delta", {{"db_bytes", last->total},
                           {"bytes_per_turn_at_n_over_10", last->per_turn_early},
                           {"bytes_per_turn_at_n", last->per_turn_late},
                           {"growth_ratio", ratio(*last)}}},
                {"whole_values", {{"db_bytes", whole.total},
                                  {"bytes_per_turn_at_n_over_10", whole.per_turn_early},
                                  {"bytes_per_turn_at_n", whole.per_turn_late},
                                  {"growth_ratio", ratio(whole)}}},
                {"db_bytes_whole_over_delta", last->total > 0 ? static_cast<double>(whole.total) / last->total : 0.0}};
  };
  w.nodes_run = turns;
  w.supersteps = 2L * turns;
  return w;
}

}  // namespace bench
