// What one superstep of the `checkpointed` chain costs a saver, without the engine: a put whose
// version maps are changes (`count` whole, a `trace` append, the next trigger's null), then the
// task's three pending writes. Arg: steps per batch (1 = each call its own transaction, as with
// durability sync; 16 = what async durability commits together when the saver is behind).
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "superstep/checkpoint/memory_saver.hpp"
#include "superstep/checkpoint/sqlite_saver.hpp"

namespace {

namespace sp = superstep;
using sp::json;

/// Time-ordered ids shaped like uuid6.
std::string id_of(long i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "1f1e6fe2-d364-6852-9440-%012ld", i);
  return buf;
}

/// Puts step `i` of a chain on `thread` (step 0 with whole maps) and its task's writes.
sp::CheckpointConfig put_step(sp::CheckpointSaver& saver, const sp::CheckpointConfig& parent, long i, const std::string& root) {
  const long v = i + 2;
  const std::string node = "n" + std::to_string(i), next = "branch:to:n" + std::to_string(i + 1);
  sp::Checkpoint c;
  c.id = id_of(i);
  c.ts = "2026-11-23T05:24:37.981Z";
  c.channel_versions = {{"count", v}, {"trace", v}, {"branch:to:" + node, v}, {next, v}};
  c.versions_seen = {{node, {{"branch:to:" + node, v - 1}}}};
  c.updated_channels = json::array({"branch:to:" + node, next, "count", "trace"});
  c.channel_values = {{"count", i}, {next, nullptr}};
  json metadata = {{"source", "loop"}, {"step", i}, {"parents", json::object()}, {"thread_id", parent.thread_id},
                   {"run_id", "3113b4df-a6df-4f6e-bd88-087264036378"}};
  sp::PutDeltas deltas;
  if (i > 0) {
    deltas.appends.push_back(sp::ChannelDelta{"trace", v - 1, json::array({node})});
    deltas.versions_root = root;
  } else {
    c.channel_values["trace"] = json::array({node});
  }
  json fresh = {{"count", v}, {"trace", v}, {next, v}};
  sp::CheckpointConfig at = saver.put_with_deltas(parent, c, metadata, fresh, deltas);
  saver.put_writes(at, {{"count", i + 1}, {"trace", json::array({node})}, {next, nullptr}}, "task-" + std::to_string(i), "~" + node);
  return at;
}

void run_steps(benchmark::State& state, sp::CheckpointSaver& saver) {
  const long batch = state.range(0);
  const std::string thread = "bench-20673-1795411477978938138-0";
  sp::CheckpointConfig at{thread, "", std::nullopt};
  long i = 0;
  for (auto _ : state) {
    saver.batch([&] {
      for (long k = 0; k < batch; ++k, ++i) at = put_step(saver, at, i, id_of(0));
    });
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void BM_MemorySaverStep(benchmark::State& state) {
  sp::InMemorySaver saver;
  run_steps(state, saver);
}
BENCHMARK(BM_MemorySaverStep)->Arg(1);

void BM_SqliteSaverStep(benchmark::State& state) {
  auto path = std::filesystem::temp_directory_path() / ("superstep_micro_" + std::to_string(::getpid()) + ".db");
  {
    sp::SqliteSaver saver(path.string());
    run_steps(state, saver);
  }
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
}
BENCHMARK(BM_SqliteSaverStep)->Arg(1)->Arg(16);

// The floor under any durable write on this machine: SQLite itself, no superstep code. One
// transaction (BEGIN IMMEDIATE, one insert of a 400-byte row keyed like a checkpoint, COMMIT)
// with prepared statements, in WAL mode with synchronous NORMAL as SqliteSaver opens its file.
// A `server_wait` run of `seq3` commits 7 transactions (5 checkpoints, the last three with their
// step's writes, and the run's two records): docs/performance.md, "Targets, and the floors".
void BM_SqliteCommitFloor(benchmark::State& state) {
  auto path = std::filesystem::temp_directory_path() / ("superstep_floor_" + std::to_string(::getpid()) + ".db");
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db,
               "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
               "CREATE TABLE t (thread TEXT, id TEXT, value TEXT, PRIMARY KEY (thread, id))",
               nullptr, nullptr, nullptr);
  sqlite3_stmt *begin = nullptr, *insert = nullptr, *commit = nullptr;
  sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2, ?3)", -1, &insert, nullptr);
  sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nullptr);
  const std::string value(400, 'x');
  long i = 0;
  bool ok = true;
  for (auto _ : state) {
    std::string thread = "thread-" + std::to_string(i % 64), id = id_of(i);
    ++i;
    ok = ok && sqlite3_step(begin) == SQLITE_DONE;
    sqlite3_bind_text(insert, 1, thread.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 3, value.c_str(), -1, SQLITE_STATIC);
    ok = ok && sqlite3_step(insert) == SQLITE_DONE;
    ok = ok && sqlite3_step(commit) == SQLITE_DONE;
    for (sqlite3_stmt* st : {begin, insert, commit}) sqlite3_reset(st);
  }
  if (!ok) state.SkipWithError(sqlite3_errmsg(db));
  for (sqlite3_stmt* st : {begin, insert, commit}) sqlite3_finalize(st);
  sqlite3_close(db);
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
}
BENCHMARK(BM_SqliteCommitFloor);

}  // namespace
