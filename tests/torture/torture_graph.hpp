// The torture graph (tests/torture/README.md): parallel supersteps, a Send fan-out, a subgraph,
// an interrupt() answered automatically, retried nodes that fail on their first attempt, and a
// loop. Failures and interrupt answers are deterministic functions of (thread, task id,
// attempt) and the thread's seed, so every thread has an uninterrupted reference run.
// Every successful node execution appends one line to a records file (one write(2) on an
// O_APPEND descriptor) before the node returns, so executions are counted across processes
// that are killed at any instant.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <superstep/superstep.hpp>

namespace torture {

namespace sp = superstep;
using sp::json;

/// Writes the records file: `ok|fail <TAB> pid <TAB> thread <TAB> ns <TAB> task id <TAB> node
/// <TAB> step <TAB> attempt`, and `done <TAB> pid <TAB> thread` lines. Thread-safe.
class Recorder {
 public:
  explicit Recorder(const std::string& path);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Called first in every node: counts the attempt (per task, in this process) and throws the
  /// planned failure when (thread, task id, attempt) says so (recorded as `fail`).
  int begin(const sp::Runtime& rt);
  /// Called last in every node, right before it returns: records the execution as `ok`.
  void done(const sp::Runtime& rt, int attempt);
  /// Called by the worker when a thread's run returned finished: `done`, with this process's id.
  void finished(const std::string& thread);

 private:
  void write_line(bool ok, const sp::Runtime& rt, int attempt);
  int fd_ = -1;
  std::mutex mutex_;
  std::unordered_map<std::string, int> attempts_;
};

/// Whether attempt `attempt` of task `task_id` on `thread` fails (about one task in four fails
/// its first attempt; the retry policy's second attempt succeeds).
bool planned_failure(const std::string& thread, const std::string& task_id, int attempt);

/// The answer a thread's `ask` node gets for its interrupt.
json answer_for(const json& interrupt_value);

/// The torture graph, compiled with `options` (its checkpointer and executor; the name is
/// "torture").
sp::CompiledStateGraph build(sp::CompileOptions options, std::shared_ptr<Recorder> recorder);
/// The same on `saver` and `pool`.
sp::CompiledStateGraph build(std::shared_ptr<sp::CheckpointSaver> saver, std::shared_ptr<Recorder> recorder,
                             std::shared_ptr<sp::ThreadPool> pool);

/// Runs thread `thread_id` to its end from whatever is stored: starts it with `{"seed": seed}`
/// when it has no checkpoint, answers its interrupts (answer_for), resumes it otherwise.
/// Returns the final state.
json drive(const sp::CompiledStateGraph& app, const std::string& thread_id, int seed, sp::Durability durability);

}  // namespace torture
