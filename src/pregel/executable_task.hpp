// ExecutableTask: a task of the running step (LangGraph's PregelExecutableTask), with its input,
// its Runtime and, once it ran, its writes. Planning makes them, the runner runs them, the
// barrier (apply_writes) reads their writes. The public superstep::PregelTask is what a snapshot
// shows of a task.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pregel/program.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

class PregelLoop;
struct StepRun;

/// What an exception says (its what(), or "unknown exception").
inline std::string describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

/// Whether `e` holds an exception of type E (or derived from it).
template <class E>
bool holds(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// Interrupts as LangGraph lists them: [{id, value}, ...].
inline json interrupts_json(const std::vector<Interrupt>& list) {
  json out = json::array();
  for (const Interrupt& i : list) out.push_back(i.to_json());
  return out;
}

/// A task's path as LangGraph shows it: ["__pregel_pull", node] or ["__pregel_push", index].
class TaskContext;
json task_path(const TaskContext& t);

/// What Runtime reaches: the task's identity and its run.
class TaskContext {
 public:
  PregelLoop* run = nullptr;
  const NodeData* node = nullptr;
  int64_t step = 0;
  bool push = false;
  std::size_t push_index = 0;
  /// The deterministic task id (computed on first use; callers are ordered by the step).
  const std::string& id() const;
  void reset() {
    push = false;
    push_index = 0;
    id_.clear();
  }

 private:
  mutable std::string id_;
};

/// Reads a JSON graph's channels (a node's input), honouring the node's input_keys.
class ChannelView final : public StateSource {
 public:
  ChannelView(const Program& g, const std::vector<Channel*>& channels, const NodeData* node)
      : g_(&g), channels_(&channels), node_(node) {}
  const json* find(std::string_view key) const override;
  void for_each(const std::function<void(const std::string&, const json&)>& fn) const override;

 private:
  const Program* g_;
  const std::vector<Channel*>* channels_;
  const NodeData* node_;
};

/// A task of the running step, with its input and results (LangGraph's PregelExecutableTask; the
/// public superstep::PregelTask is what a snapshot shows of a task).
struct ExecutableTask : TaskContext {
  std::optional<json> send_arg;           // push tasks: the Send's argument is the input
  std::shared_ptr<const void> typed_arg;  // push tasks of typed graphs: the typed argument
  std::optional<ChannelView> view;        // pull tasks: the step's channels
  std::optional<State> input;
  std::optional<Runtime> runtime;
  int attempt = 1;
  int inner_runs = 0;  // graphs invoked inside this attempt of the node (CompiledStateGraph::invoke(input, rt))

  // Results, written by the task's thread, read by the barrier.
  std::vector<std::pair<int, Value>> writes;  // state channel id, value
  std::unique_ptr<TypedBatch, TypedBatch::Release> batch;  // typed field writes not yet flattened into `writes`
  std::vector<int> control;                   // branch / join channel ids
  std::vector<Send> sends;
  json stream_update;                         // what `updates` shows: the update or null
  std::exception_ptr error;
  bool error_from_node = false;               // wrap in NodeError (vs an engine error)
  Task<NodeResult> coro;
  StepRun* step_run = nullptr;             // the running step (owned by the runner)

  // Persistence.
  bool cached = false;                     // its writes were loaded from the checkpoint: not run again
  bool cache_hit = false;                  // ... or from the node cache (cached is set too)
  std::optional<std::string> cache_key;    // its node has a cache policy: the key of its input
  bool synthetic = false;                  // update_state's stand-in: consumes no trigger
  std::vector<json> resume;                // answers for its interrupt() calls, in call order
  std::size_t interrupt_calls = 0;
  std::vector<Interrupt> interrupts;       // set when it paused in interrupt()
  bool paused = false;                     // it paused: in interrupt(), or a subgraph stopped before/after a node
  std::vector<Interrupt> asked;            // the interrupts saved for it before (resume by id; get_state)
  std::optional<std::string> saved_error;  // get_state: the error saved for it

  /// Starts its next attempt under a retry policy: it asks its interrupts from the first again,
  /// so the answers they were given hold.
  void next_attempt() {
    ++attempt;
    interrupt_calls = 0;
    inner_runs = 0;
  }
  /// It paused (interrupt(), or a subgraph that stopped, with no interrupt values).
  void pause_on(const GraphInterrupt& g) {
    interrupts = g.interrupts();
    paused = true;
  }
  void clear_results() {
    writes.clear();
    batch.reset();
    control.clear();
    sends.clear();
    stream_update = nullptr;
  }
  /// Makes a finished task reusable for another step (keeps its buffers' capacity).
  void recycle() {
    TaskContext::reset();
    send_arg.reset();
    typed_arg.reset();
    view.reset();
    input.reset();
    runtime.reset();
    attempt = 1;
    inner_runs = 0;
    clear_results();
    error = nullptr;
    error_from_node = false;
    coro = {};
    step_run = nullptr;
    cached = false;
    cache_hit = false;
    cache_key.reset();
    synthetic = false;
    resume.clear();
    interrupt_calls = 0;
    interrupts.clear();
    paused = false;
    asked.clear();
    saved_error.reset();
  }
};

}  // namespace superstep::internal
