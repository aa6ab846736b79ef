// PregelRun::Persist: what a checkpointed run keeps about its thread (internal to the pregel
// layer: input.cpp, restore.cpp, checkpointing.cpp and inspect.cpp, read by loop.cpp and
// runner.cpp). Touched on the consumer's thread, except the members whose mutex says otherwise
// (tasks save their writes from their own threads).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pregel/run.hpp"
#include "pregel/save_queue.hpp"
#include "superstep/checkpoint/saver.hpp"

namespace superstep::internal {

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

struct PregelRun::Persist {
  std::shared_ptr<CheckpointSaver> saver;
  CheckpointConfig current;                   // thread, namespace and the current checkpoint's id
  std::optional<CheckpointConfig> parent;
  json metadata = json::object();
  std::string created_at;
  bool has_checkpoint = false;
  int64_t loaded_step = -1;
  std::vector<uint64_t> saved_version;        // channel versions of the stored checkpoint
  std::vector<json> stored_version;           // per channel: its version as stored (an append's base), or null
  bool deltas = false;                        // the saver stores appends as deltas
  std::vector<uint64_t> interrupt_seen;       // versions_seen["__interrupt__"]
  json seen_cache = json::object();           // versions_seen of the nodes, as last stored
  bool seen_cache_valid = false;              // false: rebuild from seen_ at the next store
  // Version maps as changes (PutDeltas::versions_root): what the last checkpoint this run stored
  // had, so the next one sends only what differs from it.
  std::optional<std::string> maps_id;         // that checkpoint (unset: none, or maps unknown)
  std::string maps_root;                      // the first of its chain, stored with whole maps
  int maps_chain = 0;                         // checkpoints stored as changes since the root
  bool tasks_versioned = false;               // it had a __pregel_tasks version
  std::vector<uint64_t> saved_interrupt_seen; // its versions_seen["__interrupt__"]
  std::vector<PendingWrite> pending;          // the current checkpoint's pending writes
  json sends = nullptr;                       // the current checkpoint's __pregel_tasks (pending Sends), or null
  bool inspected_writes = false;              // snapshot() applied writes to the channels
  bool match_pending = false;                 // the next plan reuses writes of finished tasks
  std::mutex resume_mutex;                    // guards null_resume and resume_map
  std::optional<json> null_resume;
  bool resume_needs_task = false;             // a resume with no interrupt pending: stored if the first plan has a task
  bool resume_by_id_unmatched = false;        // ... and it answers interrupts by id (an error when a task runs)
  json resume_map = json::object();           // Command.resume by interrupt id (for subgraph tasks)
  std::vector<std::string> interrupt_before, interrupt_after;
  Durability durability = Durability::async;
  std::unique_ptr<SaveQueue> queue;
  bool paused = false;
  std::vector<Interrupt> interrupts;
  bool exit_dirty = false;                    // durability exit: the current checkpoint is not stored
  CheckpointConfig exit_parent;
  std::mutex exit_mutex;                      // guards exit_writes
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, json>>>> exit_writes;
  std::string run_id;
  bool locked = false;
  std::unique_ptr<ThreadClaim> claim;         // the saver's cross-process hold on the thread
  bool checkpoint_to_emit = false;
  bool finished = false;

  void put_writes(const std::string& checkpoint_id, const std::string& task_id,
                  std::vector<std::pair<std::string, json>> writes) {
    CheckpointConfig cfg{current.thread_id, current.checkpoint_ns, checkpoint_id};
    switch (durability) {
      case Durability::sync:
        saver->put_writes(cfg, writes, task_id);
        break;
      case Durability::async:
        queue->push([s = saver, cfg = std::move(cfg), w = std::move(writes), task_id] { s->put_writes(cfg, w, task_id); });
        break;
      case Durability::exit: {
        std::lock_guard lock(exit_mutex);
        exit_writes.emplace_back(task_id, std::move(writes));
        break;
      }
    }
  }
};

}  // namespace superstep::internal
