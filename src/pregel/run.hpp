// PregelRun: one execution of a compiled graph (one invoke or stream call). It owns the run's
// channels, versions and tasks, and is driven by its consumer: each next() advances the
// superstep state machine until a stream part is ready or the run ends.
//
// Split (as LangGraph's _algo/_loop/_runner):
//   algo.cpp    planning (which tasks run) and apply_writes (the barrier): no threads
//   loop.cpp    the state machine: plan -> dispatch -> wait -> barrier, streaming
//   runner.cpp  executing tasks on the pool: sync and coroutine nodes, retries, completion
//
// Threads: the consumer's thread plans and applies writes; tasks run on pool workers (and on
// the consumer's thread when nobody is waiting for parts). During a step the channels are
// read-only; tasks write only to their own buffers. mutex_ guards the shared part queue and
// step_done_.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <vector>

#include "pregel/executable_task.hpp"
#include "pregel/program.hpp"
#include "pregel/subgraph.hpp"
#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/state_snapshot.hpp"
#include "superstep/config.hpp"
#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/stream.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

class PregelRun;
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

/// A dispatched step, shared with the pool jobs working on it.
struct StepRun {
  PregelRun* run = nullptr;
  std::vector<ExecutableTask*> tasks;
  // Each counter on its own cache line: workers hammer them from different cores.
  alignas(64) std::atomic<std::size_t> next{0};
  alignas(64) std::atomic<std::size_t> remaining{0};
  alignas(64) std::atomic<int> inflight{0};
  int max_concurrency = 0;
  bool solo = false;  // one plain task run on the consumer's thread, no pool job: no locking
  std::atomic<bool> cancel{false};  // the run is being stopped: tasks not started are skipped
  // A task failed: tasks still run (their writes are saved), Runtime::cancelled() tells them.
  std::atomic<bool> sibling_failed{false};
  /// Claims and runs tasks until none is left (or the concurrency cap is reached).
  void work();
};

class PregelRun {
 public:
  /// `link`: set for a subgraph's run (valid for the run's lifetime).
  PregelRun(std::shared_ptr<const Program> graph, const json& input, RunConfig config,
            const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// A Command input (resume, update, go_to) on a checkpointed thread.
  PregelRun(std::shared_ptr<const Program> graph, const Command& input, RunConfig config,
            const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// Inspection (get_state, update_state): loads `tuple` (or starts empty) and runs nothing.
  struct Inspect {};
  PregelRun(std::shared_ptr<const Program> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
            const ParentLink* link = nullptr);
  /// Typed state: the input as field writes.
  PregelRun(std::shared_ptr<const Program> graph, WriteList input, RunConfig config,
            const std::vector<StreamMode>& modes);
  ~PregelRun();
  PregelRun(const PregelRun&) = delete;
  PregelRun& operator=(const PregelRun&) = delete;

  /// The next stream part, or nullopt when the run has ended. Throws the run's error.
  /// `pending` (an asynchronous driver): instead of blocking while a step runs, returns nullopt
  /// with *pending = true; wake_when_step_done() then says when to call again.
  std::optional<StreamPart> next(bool* pending = nullptr);
  /// For an asynchronous driver: arranges for `wake` to be called (once, from the thread that
  /// finishes the step) when the running step is done. Returns false, without keeping `wake`,
  /// when it is done already.
  bool wake_when_step_done(std::function<void()> wake);
  /// The current state (every key with a value).
  json state_json() const;
  /// The final state, moved out of the channels (the run is over).
  json take_state();
  /// The result of invoke: the state, plus `__interrupt__` when the run paused. `take` moves
  /// the values out of the channels (the run is over).
  json result(bool take = true);
  /// Typed state: the run's struct.
  void* typed_state() { return g_->typed->mutable_state(*cs_.channels[g_->holder_channel]); }

  // --- used by tasks, views and Runtime ---
  const Program& graph() const noexcept { return *g_; }
  const RunConfig& config() const noexcept { return config_; }
  const Channel* channel(int id) const noexcept { return cs_.channels[id]; }
  /// A state channel of a JSON graph (every state channel of a JSON schema is a JsonChannel).
  const JsonChannel* json_channel(int id) const noexcept { return static_cast<const JsonChannel*>(cs_.channels[id]); }
  bool wants(StreamMode m) const noexcept { return (modes_ >> static_cast<int>(m)) & 1u; }
  void emit(StreamMode mode, json data);
  /// Parts yielded one after the other, with no other thread's part in between (those wanted).
  void emit_together(std::vector<StreamPart> parts);
  /// A part of a subgraph's run, yielded with its namespace when its mode is wanted.
  void emit_part(StreamPart part);
  const std::string& checkpoint_id() const;
  /// The step past which the recursion limit stops the run.
  int64_t stop_step() const noexcept { return stop_; }
  void post(std::function<void()> fn) const;
  void post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const;
  bool cancelled() const noexcept;

  // runner.cpp
  void start_task(ExecutableTask& t);
  /// Runtime::emit_message: a `messages` part of task `t`.
  void emit_message(const ExecutableTask& t, json chunk, const json& extra);
  json message_metadata(const ExecutableTask& t) const;
  void on_async_done(ExecutableTask& t);

  /// The long-term store: the graph's own, else (a subgraph) the parent's; may be null.
  BaseStore* store() const noexcept { return g_->store ? g_->store.get() : parent_ ? parent_->store : nullptr; }
  /// The checkpointer: the graph's own, else (a subgraph) the parent's; may be null.
  std::shared_ptr<CheckpointSaver> saver() const noexcept {
    return g_->checkpointer ? g_->checkpointer : parent_ ? parent_->saver : nullptr;
  }

  // subgraph.cpp
  /// Runs subgraph `child` as task `t`'s node, on the task's view of the state.
  NodeResult run_subgraph(ExecutableTask& t, const std::shared_ptr<const Program>& child, const State& state);
  /// The namespace of task `t`'s subgraph checkpoints.
  std::string task_ns(const ExecutableTask& t) const;

  // checkpointing.cpp
  struct Persist;
  bool checkpointing() const noexcept { return cp_ != nullptr; }
  /// A subgraph task being resumed: the Command.resume value meant for it (null when none).
  json subgraph_resume(ExecutableTask& t);
  /// interrupt(): the answer for task `t`'s next interrupt() call, or throws GraphInterrupt.
  json interrupt(ExecutableTask& t, json value);
  /// get_state: the snapshot of the loaded checkpoint.
  /// `apply_pending`: show the saved writes of the step's finished tasks in the values (the
  /// latest checkpoint, as LangGraph's get_state) instead of listing those tasks as next.
  /// `subgraphs`: pending subgraph tasks carry the subgraph's snapshot.
  /// `take`: moves the checkpoint's metadata, time and parent into the snapshot (the run is
  /// restored again before any other use).
  StateSnapshot snapshot(bool apply_pending, bool subgraphs = false, bool take = false);
  /// get_state_history: the snapshots of `tuples` (a list() read with CheckpointQuery::as_changes,
  /// newest first), in that order. A run walks them oldest first: a tuple left as changes is
  /// applied to the run of the one after it, so a history of N costs O(what the N steps changed)
  /// plus the values shown, not N whole restores. Walked on the calling thread (docs/performance.md,
  /// "History reads, fourth round", has why not on the pool's).
  static std::vector<StateSnapshot> history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                            std::vector<CheckpointTuple> tuples, const ParentLink* link);
  /// update_state: applies `values` as `as_node` and stores a checkpoint. Returns its config.
  CheckpointConfig update(const json& values, const std::string& as_node);
  /// update_state's node when none is named, chosen as LangGraph does (START on a thread no node
  /// has run on). Throws: InvalidUpdateError when the last step ran several nodes.
  std::string last_node_seen() const;
  /// Stores a resume given with no interrupt pending (Persist::resume_needs_task), once the first
  /// plan has a task that may consume it, as a write of no task.
  void store_null_resume();

 private:
  enum class Phase { plan, running, barrier, done };

  // loop.cpp
  void advance();
  void dispatch();
  void wait_for_step();
  void finish_step();
  /// Whether a task of the step wrote to a state key (LangGraph streams `values` only then).
  bool step_wrote_state() const;
  void emit_task_start(const ExecutableTask& t);
  void emit_task_result(const ExecutableTask& t);
  json task_input_json(const ExecutableTask& t) const;
  std::vector<std::string> trigger_names(const ExecutableTask& t) const;

  // checkpointing.cpp
  void start_persist();
  void first(const json* input, const Command* command);
  void load_and_apply_input(const json* input, const Command* command);
  void restore(const CheckpointTuple& tuple);
  /// Before a run writes from a past checkpoint (replay, fork, update_state at a checkpoint_id):
  /// continues the channel versions after the newest checkpoint of the thread. Values are stored
  /// under (channel, version), so a version that a later checkpoint of another branch already
  /// holds would overwrite that branch's value.
  void continue_versions_after_latest();
  /// get_state_history's walk of tuples[oldest] up to tuples[newest] (newest <= oldest) into
  /// `out`: tuples[oldest] restored whole, each newer one applied as changes where it can be.
  static void walk_history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                           std::vector<CheckpointTuple>& tuples, std::vector<StateSnapshot>& out, std::size_t newest,
                           std::size_t oldest, const ParentLink* link);
  /// Applies a tuple left as changes (CheckpointQuery::as_changes) to the restored parent,
  /// taking its values. Returns false, changing nothing, when a stored append does not extend
  /// the value the run holds.
  bool restore_changes(CheckpointTuple& tuple);
  /// What restore and restore_changes share once values and versions are in place; `metadata`
  /// and `pending` are the tuple's (moved in when the caller owns it).
  void restored(const CheckpointTuple& tuple, json metadata, std::vector<PendingWrite> pending);
  /// Sets the seen versions of each node (and of interrupts) named in `versions_seen` to its map.
  void load_seen(const json& versions_seen);
  /// Loads the pending Sends of p.sends into pending_sends_.
  void load_sends(const std::function<void(const std::string&)>& fail);
  /// Applies the saved writes of no task (a Command's, update_state's). Returns: whether it
  /// applied any write.
  bool apply_null_writes();
  void discard_tasks();
  void match_pending_writes();
  bool should_interrupt(const std::vector<std::string>& nodes, const std::vector<ExecutableTask*>& tasks) const;
  /// `from_tasks`: a task paused (interrupt(), or a subgraph paused before/after a node, with no
  /// values); otherwise the run stops before/after a node itself.
  void pause(std::vector<Interrupt> interrupts, bool from_tasks);
  void save_checkpoint(const char* source);
  void store_checkpoint();
  /// Checkpoint `c`'s versions_seen: every node's and __interrupt__'s, or (`maps_delta`) only
  /// what changed since the checkpoint this run stored last.
  void put_versions_seen(Checkpoint& c, bool maps_delta);
  void save_task_writes(ExecutableTask& t);
  /// After planning a checkpointed step: interrupt_before and saved writes. True when the step
  /// is not dispatched (paused, or every task finished before).
  bool plan_checkpointed();
  void emit_checkpoint_part();
  void finish_run() noexcept;
  void finish_run_or_throw();
  json encode_writes(const ExecutableTask& t) const;
  void decode_write(ExecutableTask& t, const std::string& channel, const json& value);

  // loop.cpp
  /// LangGraph's prepare_next_tasks: the step's PUSH tasks (pending Sends) then PULL tasks
  /// (triggered_nodes), as ExecutableTasks with their input and Runtime.
  void prepare_next_tasks();
  void init(const std::vector<StreamMode>& modes);

  // runner.cpp
  void run_start_task(ExecutableTask& t);
  void run_sync(ExecutableTask& t);
  void start_async(ExecutableTask& t);
  void process_result(ExecutableTask& t, NodeResult&& r);
  bool should_retry(ExecutableTask& t) const;
  void emit_returned_messages(const ExecutableTask& t);
  void task_finished(ExecutableTask& t);

  friend class ChannelView;
  friend struct StepRun;

  std::shared_ptr<const Program> g_;
  RunConfig config_;
  const ParentLink* parent_ = nullptr;        // set for a subgraph's run
  uint32_t modes_ = 0;
  bool inline_tasks_ = true;   // the consumer's thread may run tasks (no in-task parts to yield)

  ChannelState cs_;  // channels, versions, versions seen, pending Sends (algo.hpp plans over it)

  int64_t step_ = 0;
  int64_t stop_ = 0;
  WriteList typed_input_;
  std::vector<TaskPtr> tasks_;
  std::vector<TaskPtr> spare_tasks_;                       // finished tasks, reused by later steps and runs
  StepRun* step_run_ = nullptr;                            // the running step (owned by spare_step_run_)
  std::shared_ptr<StepRun> spare_step_run_;                // reused when no pool job holds it
  void recycle_tasks();
  mutable std::mutex checkpoint_id_mutex_;    // guards checkpoint_id_ (made on first use per step)
  mutable std::string checkpoint_id_;
  Phase phase_ = Phase::plan;

  std::unique_ptr<Persist> cp_;               // null without a checkpointer

  std::deque<StreamPart> ready_;              // consumer's thread only
  mutable std::mutex mutex_;                  // guards shared_parts_, streamed_ids_, wake_ and step_done_
  std::condition_variable cv_;
  std::deque<StreamPart> shared_parts_;
  std::unordered_set<std::string> streamed_ids_;  // messages mode: ids already sent
  std::function<void()> wake_;                    // an asynchronous driver's wake-up
  bool step_done_ = false;
};

}  // namespace superstep::internal
