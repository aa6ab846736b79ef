// PregelLoop: one execution of a compiled graph (one invoke or stream call), LangGraph's
// PregelLoop. It owns the run's state (RunState) and is driven by its consumer: each next()
// advances the superstep state machine, plan -> run -> barrier -> checkpoint, until a stream
// part is ready or the run ends.
//
// The parts of a run (src/README.md walks them in execution order):
//   algo.hpp         planning and apply_writes: pure functions of a Program and a ChannelState
//   loop.cpp         this state machine; stream_parts.cpp: the parts it streams about tasks
//   runner.hpp       PregelRunner: runs a step's tasks on the pool or inline, retries
//   persistence.hpp  Persistence: saving, pending writes, pauses, restore, history, get/update_state
//   subgraph.cpp     a compiled graph run as a node
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pregel/run_state.hpp"
#include "pregel/runner.hpp"
#include "superstep/state_update.hpp"
#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/config.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/state_snapshot.hpp"
#include "superstep/stream.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

class Persistence;

class PregelLoop final : private RunnerHost {
 public:
  /// `link`: set for a subgraph's run (valid for the run's lifetime).
  PregelLoop(std::shared_ptr<const Program> graph, const json& input, RunConfig config,
             const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// A Command input (resume, update, go_to) on a checkpointed thread.
  PregelLoop(std::shared_ptr<const Program> graph, const Command& input, RunConfig config,
             const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// Inspection (get_state, update_state): loads `tuple` (or starts empty) and runs nothing.
  struct Inspect {};
  PregelLoop(std::shared_ptr<const Program> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
             const ParentLink* link = nullptr);
  /// Typed state: the input as field writes.
  PregelLoop(std::shared_ptr<const Program> graph, WriteList input, RunConfig config,
             const std::vector<StreamMode>& modes);
  ~PregelLoop();
  PregelLoop(const PregelLoop&) = delete;
  PregelLoop& operator=(const PregelLoop&) = delete;

  /// The next stream part, or nullopt when the run has ended. Throws the run's error.
  /// `pending` (an asynchronous consumer): instead of blocking while a step runs with no part
  /// to yield, returns nullopt with *pending = true; wake_when_ready() then says when to call again.
  std::optional<StreamPart> next(bool* pending = nullptr);
  /// For an asynchronous consumer: arranges for `wake` to be called (once, from the thread that
  /// emits a part or finishes the step) when next() has something to do without blocking.
  /// Returns false, without keeping `wake`, when it has already.
  bool wake_when_ready(std::function<void()> wake) { return s_.out.wake_when_ready(std::move(wake)); }
  /// For an asynchronous consumer dropping the run: stops the running step without waiting for
  /// it (its tasks not started are skipped) and arranges for `then` to be called, once, by the
  /// thread that ends the step; the loop may then be destroyed without blocking. Returns false,
  /// keeping nothing, when no step is running or it has already ended.
  bool cancel_step_then(std::function<void()> then);
  /// The current state (every key with a value).
  json state_json() const { return s_.state_json(); }
  /// The result of invoke: the state, plus `__interrupt__` when the run paused. `take` moves
  /// the values out of the channels (the run is over).
  json result(bool take = true);
  /// Typed state: the run's struct.
  void* typed_state() { return s_.g->typed->mutable_state(*s_.cs.channels[s_.g->holder_channel]); }
  /// The run paused (interrupt(), interrupt_before/after); interrupts() lists what it paused on.
  bool paused() const noexcept;
  const std::vector<Interrupt>& interrupts() const;
  /// Null without a checkpointer.
  Persistence* persistence() noexcept { return cp_.get(); }

  // --- get_state / update_state / get_state_history (persistence.hpp has them whole) ---
  StateSnapshot snapshot(bool apply_pending, bool subgraphs = false, bool take = false);
  CheckpointConfig update(const json& values, const std::string& as_node);
  CheckpointConfig update(const std::vector<StateUpdate>& updates);
  static std::vector<StateSnapshot> history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                            std::vector<CheckpointTuple> tuples, const ParentLink* link);

  // --- what a task reaches (Runtime, ChannelView, interrupt(), subgraph nodes) ---
  const Program& graph() const noexcept { return *s_.g; }
  const RunConfig& config() const noexcept { return s_.config; }
  bool wants(StreamMode m) const noexcept { return s_.wants(m); }
  void emit(StreamMode mode, json data) { s_.out.emit(mode, std::move(data)); }
  /// A part of a subgraph's run, yielded with its namespace when its mode is wanted.
  void emit_part(StreamPart part) { s_.out.emit_part(std::move(part)); }
  const std::string& checkpoint_id() const { return s_.checkpoint_id(); }
  int64_t stop_step() const noexcept { return s_.stop; }
  BaseStore* store() const noexcept { return s_.store(); }
  /// The `updates` part of a task that did not run (its writes restored from the checkpoint or
  /// the node cache): its update, marked cached, as LangGraph.
  json cached_update_part(const ExecutableTask& t) const;
  bool cancelled() const noexcept { return runner_.cancelled(); }
  void post(std::function<void()> fn) const { runner_.post(std::move(fn)); }
  void post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const {
    runner_.post_after(delay, std::move(fn));
  }
  /// Runtime::emit_message: a `messages` part of task `t`.
  void emit_message(const ExecutableTask& t, json chunk, const json& extra);
  /// interrupt(): the answer for task `t`'s next interrupt() call, or throws GraphInterrupt.
  json interrupt(ExecutableTask& t, json value);
  /// Runs subgraph `child` as task `t`'s node, on the task's view of the state (subgraph.cpp):
  /// a coroutine, suspended while the subgraph's step waits (its coroutine nodes await), so the
  /// task holds no thread then.
  Task<NodeResult> run_subgraph(ExecutableTask& t, std::shared_ptr<const Program> child, const State& state);
  /// A graph invoked inside task `t`'s node (invoke_inner): its child run, with `input` unless
  /// the task ran it before (then it continues, with its resume value).
  std::unique_ptr<ChildRun> start_inner(ExecutableTask& t, const std::shared_ptr<const Program>& child, json input);
  /// A child's part that its loop queued itself, into this run's stream with its namespace.
  void forward_child_part(const ChildRun& c, StreamPart part);
  /// Runs child `c` to its end or pause, forwarding its parts; suspended (holding no thread)
  /// while its step runs with nothing to yield.
  Task<void> drive_child(ChildRun& c);
  /// An invoked child's output, or GraphInterrupt when it paused.
  static json inner_result(ChildRun& c);

 private:
  enum class Phase { plan, running, barrier, done };

  void init(const std::vector<StreamMode>& modes);
  /// Task `t`'s child run of `child`: linked to this run, continuing the task's earlier child
  /// run when its namespace has checkpoints, else starting on `input()` (subgraph.cpp).
  std::unique_ptr<ChildRun> start_child(ExecutableTask& t, std::shared_ptr<const Program> child,
                                        const std::function<json()>& input);
  /// Makes the run's Persistence (a checkpointer is set).
  Persistence& start_persistence();
  void advance();
  void plan();
  void collect_parts();
  void finish_step();
  void finish_run() noexcept;
  void finish_run_or_throw();

  // RunnerHost
  void save_task_writes(ExecutableTask& t) override;
  void stream_task_result(ExecutableTask& t) override;
  /// The entries of `update` that name output keys (a subgraph's run with an output schema).
  json output_keys_of(json update) const;

  // stream_parts.cpp: what the loop streams about tasks.
  void emit_task_start(const ExecutableTask& t);
  // Node caching (cache.hpp): the step's tasks whose writes the cache holds take them (their
  // `updates` parts are streamed); returns whether every task of the step is now done.
  bool match_node_cache();
  // Stores the writes of the step's tasks with a cache policy that ran and finished.
  void store_node_cache();
  void emit_task_result(const ExecutableTask& t);
  /// A task's `tasks` part and its `debug` twin (of `debug_type`), yielded one right after the other.
  void emit_task_parts(json payload, const char* debug_type);
  /// `messages` mode: the messages a task is given count as sent (before it runs).
  void mark_input_messages(const ExecutableTask& t);
  void emit_returned_messages(const ExecutableTask& t);
  json message_metadata(const ExecutableTask& t) const;
  json task_input_json(const ExecutableTask& t) const;
  std::vector<std::string> trigger_names(const ExecutableTask& t) const;

  RunState s_;
  PregelRunner runner_{s_, *this};
  std::unique_ptr<Persistence> cp_;  // null without a checkpointer
  Phase phase_ = Phase::plan;
  bool inline_tasks_ = true;  // the consumer's thread may run tasks (no in-task parts to yield)
};

}  // namespace superstep::internal
