// What one superstep of the `checkpointed` chain costs a saver, without the engine: a put whose
// version maps are changes (`count` whole, a `trace` append, the next trigger's null), then the
// task's three pending writes. Arg: steps per batch (1 = each call its own transaction, as with
// durability sync; 16 = what async durability commits together when the saver is behind).
#include <benchmark/benchmark.h>
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

}  // namespace
