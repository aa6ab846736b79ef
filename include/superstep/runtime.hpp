// Runtime: what a running node can reach besides the state: the run's config, its step and
// task identity, the custom stream writer, and the executor coroutine nodes resume on.
// A Runtime is owned by the engine and valid until the node's call (or coroutine) finishes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "superstep/config.hpp"
#include "superstep/json.hpp"
#include "superstep/stream.hpp"

namespace superstep {
class BaseStore;
namespace internal {
class TaskContext;
}

class Runtime {
 public:
  explicit Runtime(internal::TaskContext& ctx) : ctx_(&ctx) {}

  /// Sends `chunk` to the "custom" stream mode at once (dropped when nobody streams "custom").
  void stream_writer(json chunk) const;
  /// The config of the run this node belongs to.
  const RunConfig& config() const;
  /// The superstep this task runs in.
  int64_t step() const;
  /// The node's name.
  const std::string& node() const;
  /// The task's deterministic id.
  std::string task_id() const;
  /// True when the run streams `mode` (a model called with this Runtime streams its tokens
  /// only when `messages` is wanted).
  bool streams(StreamMode mode) const;
  /// Sends a message chunk (a LangChain message or AIMessageChunk dict) to the "messages"
  /// stream mode as [chunk, metadata]: LangGraph's metadata of this task (langgraph_step,
  /// langgraph_node, langgraph_triggers, langgraph_path, langgraph_checkpoint_ns,
  /// checkpoint_ns) plus `extra`. A message whose id was sent this way is not sent again when
  /// the node returns it.
  void emit_message(json chunk, const json& extra = nullptr) const;
  /// LangGraph's RemainingSteps: supersteps this invocation may still take before the
  /// recursion limit stops it (counting this one).
  int64_t remaining_steps() const;
  /// The long-term memory store (CompileOptions::store; a subgraph without one uses its
  /// parent's), or nullptr when the graph has none.
  BaseStore* store() const;
  /// True once the run is being stopped (the stream was dropped, or RunConfig::stop was
  /// requested) or a task of this step failed (the task still runs to the end and its writes
  /// are kept; a long one may stop early).
  bool cancelled() const;

  /// Low level, for awaitables: runs `fn` on the run's executor.
  void post(std::function<void()> fn) const;
  /// Low level, for awaitables: runs `fn` on the run's executor after `delay`.
  void post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const;

  /// The run's context (RunConfig::context; LangGraph's `runtime.context`): static values of
  /// the run, such as a user id or a database handle's name. A subgraph sees its parent's.
  const json& context() const { return config().context; }

  /// The engine's task behind this Runtime (internal).
  internal::TaskContext& task_context() const { return *ctx_; }

 private:
  internal::TaskContext* ctx_;
};

}  // namespace superstep
