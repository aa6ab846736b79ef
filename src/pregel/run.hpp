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

#include "graph/graph_data.hpp"
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

/// A task's path as LangGraph shows it: ["__pregel_pull", node] or ["__pregel_push", index].
class TaskContext;
json task_path(const TaskContext& t);

/// What Runtime reaches: the task's identity and its run.
class TaskContext {
 public:
  PregelRun* run = nullptr;
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

/// Reads the run's channels (a node's input), honouring the node's input_keys.
class ChannelView final : public StateSource {
 public:
  ChannelView(const PregelRun& run, const NodeData* node) : run_(&run), node_(node) {}
  const json* find(std::string_view key) const override;
  void for_each(const std::function<void(const std::string&, const json&)>& fn) const override;

 private:
  const PregelRun* run_;
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

  // Results, written by the task's thread, read by the barrier.
  std::vector<std::pair<int, Value>> writes;  // state channel id, value
  std::unique_ptr<TypedBatch, TypedBatch::Release> batch;  // typed field writes not yet flattened into `writes`
  std::vector<int> control;                   // branch / join channel ids
  std::vector<Send> sends;
  json stream_update;                         // what `updates` shows: the update or null
  std::exception_ptr error;
  bool error_from_node = false;               // wrap in NodeError (vs an engine error)
  Task<NodeResult> coro;
  StepRun* step_run = nullptr;             // the dispatched step (owned by the run's step_run_)

  // Persistence.
  bool cached = false;                     // its writes were loaded from the checkpoint: not run again
  bool synthetic = false;                  // update_state's stand-in: consumes no trigger
  std::vector<json> resume;                // answers for its interrupt() calls, in call order
  std::size_t interrupt_calls = 0;
  std::vector<Interrupt> interrupts;       // set when it paused in interrupt()
  bool paused = false;                     // it paused: in interrupt(), or a subgraph stopped before/after a node
  std::vector<Interrupt> asked;            // the interrupts saved for it before (resume by id; get_state)
  std::optional<std::string> saved_error;  // get_state: the error saved for it

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
    clear_results();
    error = nullptr;
    error_from_node = false;
    coro = {};
    step_run = nullptr;
    cached = false;
    synthetic = false;
    resume.clear();
    interrupt_calls = 0;
    interrupts.clear();
    paused = false;
    asked.clear();
    saved_error.reset();
  }
};

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
  PregelRun(std::shared_ptr<const GraphData> graph, const json& input, RunConfig config,
            const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// A Command input (resume, update, go_to) on a checkpointed thread.
  PregelRun(std::shared_ptr<const GraphData> graph, const Command& input, RunConfig config,
            const std::vector<StreamMode>& modes, const ParentLink* link = nullptr);
  /// Inspection (get_state, update_state): loads `tuple` (or starts empty) and runs nothing.
  struct Inspect {};
  PregelRun(std::shared_ptr<const GraphData> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
            const ParentLink* link = nullptr);
  /// Typed state: the input as field writes.
  PregelRun(std::shared_ptr<const GraphData> graph, WriteList input, RunConfig config,
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
  void* typed_state() { return g_->typed->mutable_state(*ch_[g_->holder_channel]); }

  // --- used by tasks, views and Runtime ---
  const GraphData& graph() const noexcept { return *g_; }
  const RunConfig& config() const noexcept { return config_; }
  const Channel* channel(int id) const noexcept { return ch_[id]; }
  /// A state channel of a JSON graph (every state channel of a JSON schema is a JsonChannel).
  const JsonChannel* json_channel(int id) const noexcept { return static_cast<const JsonChannel*>(ch_[id]); }
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
  NodeResult run_subgraph(ExecutableTask& t, const std::shared_ptr<const GraphData>& child, const State& state);
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
  static std::vector<StateSnapshot> history(const std::shared_ptr<const GraphData>& graph, const RunConfig& config,
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
  static void walk_history(const std::shared_ptr<const GraphData>& graph, const RunConfig& config,
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
  /// Command.update and Command.go_to as writes of no task (LangGraph's map_command), checked
  /// against the graph. Throws: EmptyInputError for an empty Command, InvalidUpdateError.
  std::vector<std::pair<std::string, json>> command_writes(const Command& command) const;
  /// Applies the saved writes of no task (a Command's, update_state's). Returns: whether it
  /// applied any write.
  bool apply_null_writes();
  /// Applies `t`'s decoded writes as the input step's. Returns: whether there were any.
  bool apply_input_task(ExecutableTask& t);
  void discard_tasks();
  void match_pending_writes();
  bool should_interrupt(const std::vector<std::string>& nodes, const std::vector<ExecutableTask*>& tasks) const;
  /// `from_tasks`: a task paused (interrupt(), or a subgraph paused before/after a node, with no
  /// values); otherwise the run stops before/after a node itself.
  void pause(std::vector<Interrupt> interrupts, bool from_tasks);
  void save_checkpoint(const char* source);
  void store_checkpoint();
  void save_task_writes(ExecutableTask& t);
  /// After planning a checkpointed step: interrupt_before and saved writes. True when the step
  /// is not dispatched (paused, or every task finished before).
  bool plan_checkpointed();
  void emit_checkpoint_part();
  void finish_run() noexcept;
  void finish_run_or_throw();
  json encode_writes(const ExecutableTask& t) const;
  void decode_write(ExecutableTask& t, const std::string& channel, const json& value);

  // algo.cpp
  /// LangGraph's prepare_next_tasks: the step's PUSH tasks (pending Sends) then PULL tasks.
  void prepare_next_tasks();
  void apply_writes();
  void bump(int channel, uint64_t version, bool& any_trigger_updated);
  void run_routers(ExecutableTask& t, const State& fresh);
  void apply_go_to(ExecutableTask& t, Route& go_to, const char* what);
  /// Routes one destination of task `t`: a Send is queued, a node name becomes a write to its
  /// trigger, END nothing. `what` is the node's result ("Command", "Update"), or null for a
  /// router. Throws: InvalidUpdateError naming an unknown node.
  void route_to(ExecutableTask& t, Destination& d, const char* what);
  /// The id of node `target` (0 for END). Throws: InvalidUpdateError "<who()> unknown node ...".
  template <class Who>
  int node_of(const std::string& target, const Who& who) const {
    if (target == END) return 0;
    int id = g_->find_node(target);
    if (id <= 0) unknown_node(target, who());
    return id;
  }
  [[noreturn]] void unknown_node(const std::string& target, const std::string& who) const;
  /// The channel id of state key `key`. Throws: InvalidUpdateError "<who()> unknown key ..."
  /// naming the schema's keys (an input, a node's update, Command.update, update_state).
  template <class Who>
  int key_of(std::string_view key, const Who& who) const {
    int id = g_->find_key(key);
    if (id < 0) unknown_key(key, who());
    return id;
  }
  [[noreturn]] void unknown_key(std::string_view key, const std::string& who) const;
  void init(const std::vector<StreamMode>& modes);
  bool distinct_keys(const std::vector<std::pair<int, Value>>& writes);
  /// Typed steps with several tasks: folds their batches per field. False when some task's
  /// writes are already pairs.
  bool apply_batches(const std::vector<ExecutableTask*>& order, uint64_t version);
  void apply_grouped(const std::vector<ExecutableTask*>& order, bool control, uint64_t version, bool& any_trigger);

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

  std::shared_ptr<const GraphData> g_;
  RunConfig config_;
  const ParentLink* parent_ = nullptr;        // set for a subgraph's run
  uint32_t modes_ = 0;
  bool inline_tasks_ = true;   // the consumer's thread may run tasks (no in-task parts to yield)

  std::vector<std::unique_ptr<Channel>> owned_;
  std::vector<Channel*> ch_;
  std::vector<uint64_t> version_;
  uint64_t max_version_ = 0;
  /// Versions this run hands out are above this (continue_versions_after_latest).
  uint64_t version_floor_ = 0;
  /// A new version for this step's writes.
  uint64_t next_version() { return max_version_ = std::max(max_version_, version_floor_) + 1; }
  std::vector<std::vector<uint64_t>> seen_;   // node id -> version seen, per trigger
  std::vector<int> updated_;                  // channels updated by the last step
  std::vector<int> live_volatile_;            // volatile channels holding a value
  std::vector<Send> pending_sends_;
  std::vector<uint32_t> chan_mark_;           // scratch: per channel, epoch of last mark
  std::vector<uint32_t> node_mark_;
  uint32_t epoch_ = 0;
  std::vector<std::vector<Value>> buckets_;   // scratch: writes grouped per channel
  std::vector<int> touched_;
  std::vector<TypedBatch*> batches_;          // scratch of apply_batches
  std::vector<uint32_t> dup_mark_;            // scratch of distinct_keys
  uint32_t dup_epoch_ = 0;

  int64_t step_ = 0;
  int64_t stop_ = 0;
  WriteList typed_input_;
  std::vector<TaskPtr> tasks_;
  std::vector<TaskPtr> spare_tasks_;                       // finished tasks, reused by later steps and runs
  std::vector<int> candidates_;                            // scratch of prepare_next_tasks
  StepRun* step_run_ = nullptr;                            // the running step (owned by spare_step_run_)
  std::shared_ptr<StepRun> spare_step_run_;                // reused when no pool job holds it
  void recycle_tasks();
  mutable std::mutex checkpoint_id_mutex_;    // guards checkpoint_id_ (made on first use per step)
  mutable std::string checkpoint_id_;
  std::vector<ExecutableTask*> order_;            // scratch: the step's tasks in path order
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
