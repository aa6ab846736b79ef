// Persistence: a checkpointed run's dealings with its thread (docs/persistence.md), owned by
// the loop (PregelLoop) when the graph has a checkpointer. It claims the thread and reads the
// input as LangGraph does (input.cpp), restores a checkpoint and walks the history
// (restore.cpp), saves each task's writes and a checkpoint per step, pauses and answers
// interrupts (checkpointing.cpp), and serves get_state and update_state (inspect.cpp). Command
// and resume mapping are pure functions (command.hpp), the writes as stored too (stored_writes.hpp).
//
// Threads: the consumer's thread, except save_task_writes, interrupt and subgraph_resume, which
// run on a task's thread (their members' mutexes say what they touch).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pregel/run_state.hpp"
#include "pregel/save_queue.hpp"
#include "superstep/state_update.hpp"
#include "superstep/checkpoint/saver.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/state_snapshot.hpp"

namespace superstep::internal {

/// Runs `fn`, a call to the saver for thread `thread` of graph `graph`; a failure it throws (a
/// saver's CheckpointError, or any exception that is not a superstep::Error) is rethrown as a
/// CheckpointError naming the graph, the thread and what was being done (`doing()`, called only
/// then), followed by the saver's message:
/// "graph 'g', thread 't': saving checkpoint '1f0...' (step 3) failed: sqlite: database or disk is full".
template <class F, class D>
auto name_saver_failure(const std::string& graph, const std::string& thread, D&& doing, F&& fn) {
  auto named = [&](const char* what) {
    return CheckpointError("graph '" + graph + "', thread '" + thread + "': " + std::string(doing()) + " failed: " + what);
  };
  try {
    return fn();
  } catch (const CheckpointError& e) {
    throw named(e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw named(e.what());
  }
}

/// Threads with a run in progress, per saver: a second concurrent run on a thread is refused
/// (in this process; see docs/persistence.md).
class ThreadLocks {
 public:
  static bool acquire(const void* saver, const std::string& thread, const std::string& ns) {
    std::lock_guard lock(mutex());
    return held().insert({saver, thread, ns}).second;
  }
  static void release(const void* saver, const std::string& thread, const std::string& ns) {
    std::lock_guard lock(mutex());
    held().erase({saver, thread, ns});
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::set<std::tuple<const void*, std::string, std::string>>& held() {  // guarded by mutex()
    static std::set<std::tuple<const void*, std::string, std::string>> s;
    return s;
  }
};

class PregelLoop;

class Persistence {
 public:
  /// `loop`: the run, which the tasks planned here belong to.
  Persistence(RunState& s, PregelLoop& loop);
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  // --- input.cpp ---
  /// Claims the thread, loads its checkpoint and applies the run's input (`input`, or `command`).
  void first(const json* input, const Command* command);

  // --- restore.cpp ---
  void restore(const CheckpointTuple& tuple);
  /// get_state_history: the snapshots of `tuples` (a list() read with CheckpointQuery::as_changes,
  /// newest first), in that order. A run walks them oldest first: a tuple left as changes is
  /// applied to the run of the one after it, so a history of N costs O(what the N steps changed)
  /// plus the values shown, not N whole restores. Walked on the calling thread
  /// (docs/perf-log/2026-11-24-history-reads-fourth-round.md has why not on the pool's).
  static std::vector<StateSnapshot> history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                            std::vector<CheckpointTuple> tuples, const ParentLink* link);

  // --- inspect.cpp ---
  /// get_state: the snapshot of the loaded checkpoint.
  /// `apply_pending`: show the saved writes of the step's finished tasks in the values (the
  /// latest checkpoint, as LangGraph's get_state) instead of listing those tasks as next.
  /// `subgraphs`: pending subgraph tasks carry the subgraph's snapshot.
  /// `take`: moves the checkpoint's metadata, time and parent into the snapshot (the run is
  /// restored again before any other use).
  StateSnapshot snapshot(bool apply_pending, bool subgraphs = false, bool take = false);
  /// update_state: applies `values` as `as_node` and stores a checkpoint. Returns its config.
  CheckpointConfig update(const json& values, const std::string& as_node);
  /// One superstep of updates, applied together (as parallel nodes' writes): one checkpoint.
  CheckpointConfig update(const std::vector<StateUpdate>& updates);

  // --- checkpointing.cpp: the loop's calls, in the order of a step ---
  /// After planning: the saved writes of tasks that finished before, a resume given with no
  /// interrupt pending (stored as a write of no task once a task may consume it), and the
  /// `checkpoints` part of the checkpoint the plan starts from.
  void after_plan();
  enum class Planned {
    run,         ///< dispatch the step
    paused,      ///< interrupt_before: the run ended paused
    all_cached,  ///< every task finished before: apply their saved writes
  };
  /// Before a planned step with tasks runs: interrupt_before, and the saved updates of finished tasks.
  Planned before_step();
  /// A finished task's writes (its error, its interrupts), stored for the step's checkpoint (a task's thread).
  /// With durability sync, a step's only task run on the consumer's thread has its writes held
  /// and stored with the step's checkpoint in one saver batch(); any other way out of the step
  /// (an error, a limit, the run dropped) stores them first (flush_held), as if not held.
  void save_task_writes(ExecutableTask& t);
  /// Stores the held input checkpoint, then held writes, now (none: nothing). Throws what the
  /// saver threw, named.
  void flush_held();
  /// Stores the held input checkpoint now (none: nothing); any thread.
  void flush_held_checkpoint();
  /// interrupt(): the answer for task `t`'s next interrupt() call, or throws GraphInterrupt (a task's thread).
  json interrupt(ExecutableTask& t, json value);
  /// A subgraph task being resumed: the Command.resume value meant for it (null when none).
  json subgraph_resume(ExecutableTask& t);
  /// After a step's writes are applied: stores its checkpoint.
  void save_step();
  /// Then interrupt_after: whether the run paused (it ended).
  bool pause_after_step();
  /// The run stops: a task paused (`from_tasks`: interrupt(), or a subgraph paused before or
  /// after a node, with no values), or the run stops before/after a node. Ends the run.
  void pause(std::vector<Interrupt> interrupts, bool from_tasks);
  /// The end of the run: stores what durability `exit` held back, drains the save queue and
  /// releases the thread. finish() swallows an error (the run already fails with its own).
  void finish_or_throw();
  void finish() noexcept;

  bool paused() const noexcept { return paused_; }
  const std::vector<Interrupt>& interrupts() const noexcept { return interrupts_; }
  const std::string& run_id() const noexcept { return run_id_; }

 private:
  // input.cpp
  void load_and_apply_input(const json* input, const Command* command);
  /// Stores a resume given with no interrupt pending, once the first plan has a task that may
  /// consume it, as a write of no task.
  void store_null_resume();
  /// Applies the saved writes of no task (a Command's, update_state's). Returns: whether it
  /// applied any write.
  bool apply_null_writes();
  void discard_tasks();

  // restore.cpp
  /// Before a run writes from a past checkpoint (replay, fork, update_state at a checkpoint_id):
  /// continues the channel versions after the newest checkpoint of the thread. Values are stored
  /// under (channel, version), so a version that a later checkpoint of another branch already
  /// holds would overwrite that branch's value.
  /// Returns whether the loaded checkpoint is superseded (the thread has a newer one).
  bool continue_versions_after_latest();
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
  /// Loads the pending Sends of sends_ into the channel state's pending Sends.
  void load_sends(const std::function<void(const std::string&)>& fail);

  // inspect.cpp
  /// update_state's node when none is named, chosen as LangGraph does (START on a thread no node
  /// has run on). Throws: InvalidUpdateError when the last step ran several nodes.
  std::string last_node_seen() const;

  // checkpointing.cpp
  void match_pending_writes();
  bool should_interrupt(const std::vector<std::string>& nodes) const;
  void save_checkpoint(const char* source);
  void store_checkpoint();
  /// Measures the state once (Limits::max_state_bytes): every tracked channel's value.
  void size_state();
  /// Checkpoint `c`'s versions_seen: every node's and __interrupt__'s, or (`maps_delta`) only
  /// what changed since the checkpoint this run stored last.
  void put_versions_seen(Checkpoint& c, bool maps_delta);
  void emit_checkpoint_part();
  void put_writes(const std::string& checkpoint_id, const std::string& task_id,
                  std::vector<std::pair<std::string, json>> writes);

  RunState& s_;
  PregelLoop& loop_;

  std::shared_ptr<CheckpointSaver> saver_;
  CheckpointConfig current_;                   // thread, namespace and the current checkpoint's id
  std::optional<CheckpointConfig> parent_;
  json metadata_ = json::object();
  std::string created_at_;
  bool has_checkpoint_ = false;
  int64_t loaded_step_ = -1;
  std::vector<uint64_t> saved_version_;        // channel versions of the stored checkpoint
  std::vector<std::size_t> state_size_;        // per channel: its value's measured size (Limits); empty: not yet
  std::size_t state_bytes_ = 0;                // their sum, plus sends_bytes_
  std::size_t sends_bytes_ = 0;                // the stored pending Sends' measured size
  std::vector<json> stored_version_;           // per channel: its version as stored (an append's base), or null
  bool deltas_ = false;                        // the saver stores appends as deltas
  std::vector<uint64_t> interrupt_seen_;       // versions_seen["__interrupt__"]
  json seen_cache_ = json::object();           // versions_seen of the nodes, as last stored
  bool seen_cache_valid_ = false;              // false: rebuild from the channel state at the next store
  // Version maps as changes (PutDeltas::versions_root): what the last checkpoint this run stored
  // had, so the next one sends only what differs from it.
  std::optional<std::string> maps_id_;         // that checkpoint (unset: none, or maps unknown)
  std::string maps_root_;                      // the first of its chain, stored with whole maps
  int maps_chain_ = 0;                         // checkpoints stored as changes since the root
  bool tasks_versioned_ = false;               // it had a __pregel_tasks version
  std::vector<uint64_t> saved_interrupt_seen_; // its versions_seen["__interrupt__"]
  std::vector<PendingWrite> pending_;          // the current checkpoint's pending writes
  // Durability sync, a step of one task run on the consumer's thread: its writes, held until
  // the step's checkpoint so both go to the saver in one batch() (one transaction in SqliteSaver).
  struct HeldWrites {
    CheckpointConfig config;
    std::string task_id;
    std::vector<std::pair<std::string, json>> writes;
  };
  std::optional<HeldWrites> held_;
  // Durability sync, a run given input: its `input` checkpoint, held until step 0's checkpoint
  // (the __start__ step, which runs no node of the user's) so the two, with step 0's writes, go
  // to the saver in one batch(). Anything that stores a write before that stores it first
  // (flush_held_checkpoint), as if never held: the saver never holds a write on a checkpoint it
  // does not have.
  struct HeldCheckpoint {
    CheckpointConfig parent;
    Checkpoint checkpoint;
    json metadata;
    json new_versions;
    PutDeltas deltas;
  };
  bool hold_next_checkpoint_ = false;          // the next store_checkpoint() is held (set for the input checkpoint)
  std::mutex held_checkpoint_mutex_;           // guards held_checkpoint_ (parallel tasks store their writes)
  std::optional<HeldCheckpoint> held_checkpoint_;
  std::optional<HeldCheckpoint> take_held_checkpoint();  // and leaves none held
  json sends_ = nullptr;                       // the current checkpoint's __pregel_tasks (pending Sends), or null
  bool inspected_writes_ = false;              // snapshot() applied writes to the channels
  bool match_pending_ = false;                 // the next plan reuses writes of finished tasks
  // A resume of a checkpoint the thread has moved past (as LangGraph): its finished tasks run
  // again instead of reusing their stored writes; stored answers to interrupts still count.
  bool rerun_done_tasks_ = false;
  std::mutex resume_mutex_;                    // guards null_resume_ and resume_map_
  std::optional<json> null_resume_;
  bool resume_needs_task_ = false;             // a resume with no interrupt pending: stored if the first plan has a task
  bool resume_by_id_unmatched_ = false;        // ... and it answers interrupts by id (an error when a task runs)
  json resume_map_ = json::object();           // Command.resume by interrupt id (for subgraph tasks)
  std::vector<std::string> interrupt_before_, interrupt_after_;
  Durability durability_ = Durability::async;
  std::unique_ptr<SaveQueue> queue_;
  bool paused_ = false;
  std::vector<Interrupt> interrupts_;
  bool exit_dirty_ = false;                    // durability exit: the current checkpoint is not stored
  CheckpointConfig exit_parent_;
  std::mutex exit_mutex_;                      // guards exit_writes_
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, json>>>> exit_writes_;
  std::string run_id_;
  bool locked_ = false;
  std::unique_ptr<ThreadClaim> claim_;         // the saver's cross-process hold on the thread
  bool checkpoint_to_emit_ = false;
  bool finished_ = false;
};

}  // namespace superstep::internal
