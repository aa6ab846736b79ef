// RunConfig: per-call settings of invoke and stream (LangGraph's RunnableConfig).
#pragma once

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/limits.hpp"

namespace superstep {

/// When a checkpointed run writes its checkpoints (LangGraph's durability).
enum class Durability {
  sync,   ///< each step's checkpoint is stored before the next step starts
  async,  ///< stored in the background while the next step runs; all stored when the run returns
  exit,   ///< only when the run ends (done, interrupted or failed): fastest, a crash loses the run
};

struct RunConfig {
  std::string thread_id;                       ///< conversation thread (persistence)
  int recursion_limit = 25;                    ///< maximum supersteps of this run
  int max_concurrency = 0;                     ///< tasks run at once; 0 = no limit
  std::optional<std::string> checkpoint_id;    ///< replay / fork point (persistence)
  std::string checkpoint_ns;                   ///< namespace (subgraphs)
  json configurable = json::object();          ///< user values, readable by nodes
  /// The run's static context, readable by nodes as Runtime::context() (LangGraph's `context`
  /// of invoke and stream, `runtime.context` in a node); subgraphs see the same.
  json context = json::object();
  /// Stops the run at the next superstep boundary: once a stop is requested (the
  /// std::stop_source this token came from), the step running finishes, its writes are applied
  /// and checkpointed as usual, and the run ends with RunCancelledError instead of planning the
  /// next step (a run with a checkpointer continues from there when invoked again with null
  /// input). Nodes see it in Runtime::cancelled() and may stop early. LangGraph.js: `signal`.
  std::stop_token stop;
  std::string run_id;                          ///< set by the caller or generated
  json metadata = json::object();              ///< merged into each checkpoint's metadata
  Durability durability = Durability::async;   ///< with a checkpointer
  /// stream(): also yield the parts of subgraphs (a compiled graph used as a node), each with
  /// its namespace in StreamPart::ns (LangGraph's `subgraphs: true`).
  bool subgraphs = false;
  /// Per call, replacing the compiled graph's lists when set ("*" = every node).
  std::optional<std::vector<std::string>> interrupt_before;
  std::optional<std::vector<std::string>> interrupt_after;
  /// Replaces CompileOptions::limits for this run and its subgraphs, e.g. to continue a thread
  /// that stopped on a LimitError with a raised limit.
  std::optional<Limits> limits;
};

}  // namespace superstep
