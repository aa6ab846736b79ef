// The C++ side of the differential suite (tests/differential/README.md): each scenario builds a
// graph with superstep and prints, through these helpers, the transcript lines its LangGraph.js
// twin (js/<scenario>.mjs, helpers js/transcript.mjs) prints: stream parts, results, errors by
// LangGraph's class name (a NodeError by its cause's message), snapshots, histories and
// update_state configs, one JSON value per line. normalize.mjs reduces both the same way.
#pragma once

#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <superstep/superstep.hpp>

namespace diff {

namespace sp = superstep;
using sp::json;
using Mode = sp::StreamMode;

/// What a scenario runs with: the saver (fresh per run; null for scenarios without one).
/// The one-worker executor every scenario's graphs run on (Ctx::plain, Ctx::opts). A step whose
/// parts are all streamed after it (only values, updates or checkpoints wanted) runs its tasks on
/// the consumer's thread and that worker together, so they may finish in either order; other
/// steps run their synchronous tasks in plan order on the worker. (normalize.mjs sorts runs of
/// `updates` parts: a scenario must not print anything else in completion order.)
std::shared_ptr<sp::ThreadPool> one_worker();

struct Ctx {
  std::shared_ptr<sp::CheckpointSaver> saver;
  std::string saver_name;
  /// Compile options with the saver and the one-worker executor (one_worker()).
  sp::CompileOptions opts(sp::CompileOptions o = {}) const;
  /// Same without the checkpointer (a scenario comparing with and without one).
  sp::CompileOptions plain(sp::CompileOptions o = {}) const;
};

struct Scenario {
  std::string name;
  bool checkpointed = false;
  std::function<void(Ctx&)> run;
  std::function<void(Ctx&)> typed;  ///< the same graph over a struct (`<name>.typed`), or empty
};

std::vector<Scenario>& registry();

/// Registers a scenario at static initialisation: `static diff::Register r{{"name", true, fn}};`
struct Register {
  explicit Register(Scenario s) { registry().push_back(std::move(s)); }
};

/// A RunConfig on thread `id`.
sp::RunConfig thread(const std::string& id = "t1");
/// `cfg` with RunConfig::subgraphs set.
sp::RunConfig with_subgraphs(sp::RunConfig cfg = thread());
/// The pending interrupts of the thread at `cfg`, their id by their (string) value.
std::map<std::string, std::string> ids_by_value(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg = thread());
/// The config naming checkpoint `c` (its thread, namespace and id).
sp::RunConfig at_config(const sp::CheckpointConfig& c);

void emit(const json& line);
/// {"error": {"name": <LangGraph class>}} or {"error": {"node_error": <cause>}}.
json error_line(std::exception_ptr e);
void note(const std::string& text);

/// Streams with `modes` and prints {"part": {mode, ns, data}} per part; an empty `modes` uses
/// the default mode and prints {"raw": data}. Errors are printed, not thrown.
void stream(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg, std::vector<Mode> modes);
void stream(const sp::CompiledStateGraph& app, const sp::Command& input, const sp::RunConfig& cfg, std::vector<Mode> modes);
/// Consumes an astream from a coroutine (the caller sync_waits), printing each part as stream()
/// does; returns how many parts came.
sp::Task<int> adrain(sp::AsyncStream s);
void invoke(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg = {});
void invoke(const sp::CompiledStateGraph& app, const sp::Command& input, const sp::RunConfig& cfg);
void state(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, bool subgraphs = false);
void history(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, const json& filter = nullptr,
             std::optional<std::string> before = std::nullopt, std::optional<std::size_t> limit = std::nullopt);
/// Prints {"config": ...} and returns the new config (nullopt after printing an error).
std::optional<sp::RunConfig> update(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, const json& values,
                                    const std::string& as_node = "");

/// The `trace` schema most scenarios use: `trace` appends (default []), `n` is a plain value.
sp::StateSchema trace_schema();
/// A node appending its name to `trace`.
sp::NodeFn tracer(const std::string& name);
/// A retry policy of `attempts` attempts with no wait to speak of and no jitter (as the JS
/// twins' quickRetry).
sp::RetryPolicy quick_retry(int attempts);
/// The state's `n` as text.
std::string n_of(const sp::State& s);
/// How many times each node ran, counted from the threads tasks run on (the engine runs a step's
/// tasks in its calling thread and on the executor at once).
class RunCounts {
 public:
  /// Counts one run of `key`; returns its runs so far.
  int count(const std::string& key) {
    std::lock_guard lock(mutex_);
    return ++counts_[key];
  }
  json to_json() const {
    std::lock_guard lock(mutex_);
    return json(counts_);
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> counts_;
};
/// a -> ask -> c over trace_schema(): ask interrupts with "q" and records the answer and `n`,
/// c records `n`.
sp::StateGraph ask_graph();

/// The typed twin of the trace state (`trace` appends, `n` is a plain value), for the
/// scenarios' typed variants.
struct Trace {
  std::vector<std::string> trace;
  int n = 0;
};

}  // namespace diff

SUPERSTEP_STATE(diff::Trace, SUPERSTEP_FIELD(diff::Trace, trace, superstep::typed::append{}),
                SUPERSTEP_FIELD(diff::Trace, n));
