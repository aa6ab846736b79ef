// What the torture driver checks after its kills (tests/torture/README.md): the stored
// checkpoints and writes read back through a saver, and the records file the nodes wrote.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <superstep/checkpoint/saver.hpp>

namespace torture {

namespace sp = superstep;

/// What a store holds for some threads at one instant (taken while no worker runs).
struct Snapshot {
  /// "thread|ns|task id" of every task whose writes are saved (writes that are not an error,
  /// an interrupt, a resume value or a scheduling mark: those tasks run again by design).
  std::set<std::string> saved;
  /// "thread|ns" -> the step (metadata) of its newest checkpoint.
  std::map<std::string, int64_t> newest_step;
};

Snapshot take_snapshot(sp::CheckpointSaver& saver, const std::vector<std::string>& threads);

/// Every problem found in the checkpoint history of `thread` (all namespaces): each namespace's
/// checkpoints must form one chain (one first checkpoint, every parent stored in the same
/// namespace, no checkpoint with two children, steps rising along the chain). Empty when valid.
std::vector<std::string> check_chain(sp::CheckpointSaver& saver, const std::string& thread);

/// One line of the records file.
struct Record {
  bool ok = false;
  long pid = 0;
  std::string thread, ns, task_id, node;
  int64_t step = 0;
  int attempt = 0;
  bool done = false;  ///< a `done` line: the thread's run returned finished in process `pid`
  std::string key() const { return thread + "|" + ns + "|" + task_id; }
};

/// The records of the file at `path`. `torn` (when given) counts records a kill cut short (their
/// start is dropped; the record written after one is read whole).
std::vector<Record> read_records(const std::string& path, int* torn = nullptr);

/// One worker process: the store when it started, and (when it was killed) right after.
struct WorkerRun {
  long pid = 0;
  bool killed = false;
  Snapshot before, after;
};

/// What the records of the workers say, against the snapshots.
struct Findings {
  long executions = 0;       ///< successful node executions
  long failed_attempts = 0;  ///< planned failures (retried)
  long lost = 0;             ///< executions whose writes a kill lost (they run again)
  long duplicates = 0;       ///< executions of a task whose writes were already saved
  long holes = 0;            ///< lost executions of a step older than one stored
  int max_lost_steps = 0;    ///< the most steps of one thread's namespace one kill lost
  int sync_violations = 0;   ///< kills that lost more than one step (durability sync)
  long after_return = 0;     ///< executions lost, or run again, after their thread's run returned
  std::vector<std::string> problems;
};

/// Checks the records of threads starting with `prefix`: no task whose writes were saved
/// before a worker started runs in it, none runs twice in one worker, what a kill loses is a
/// suffix of the run (no hole), with `sync` at most one step per thread and namespace, and
/// nothing of a thread whose run returned finished is lost or runs again.
Findings analyse(const std::vector<Record>& records, const std::vector<WorkerRun>& workers, const std::string& prefix,
                 bool sync);

}  // namespace torture
