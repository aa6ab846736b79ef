// PregelRunner: runs one step's tasks (LangGraph's PregelRunner): on the pool's workers and, when
// the consumer may, on the consumer's own thread; plain and coroutine nodes, retries, each
// result collected into its task's write buffers, and the step's end told through the outbox.
//
// The loop hands it a planned step (start_step) and learns of its end from the outbox; the runner
// asks the loop only what RunnerHost declares: to save a finished task's writes and to stream
// what the task did. It reads the run's tasks, options and graph from RunState and never plans,
// applies writes or saves by itself.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "pregel/algo.hpp"
#include "pregel/executable_task.hpp"

namespace superstep::internal {

struct RunState;
class PregelRunner;

/// What the runner asks of the loop about a finished task (on the task's thread).
class RunnerHost {
 public:
  /// Saves the task's writes (its error or interrupts) before its siblings can see the step end.
  /// Throws when the saver refuses: the step then fails with that error.
  virtual void save_task_writes(ExecutableTask& t) = 0;
  /// Streams what a finished node did (messages, updates, tasks/debug results). Not called when
  /// the run streams no mode.
  virtual void stream_task_result(ExecutableTask& t) = 0;

 protected:
  ~RunnerHost() = default;
};

/// A dispatched step, shared with the pool jobs working on it.
struct StepRun {
  PregelRunner* runner = nullptr;
  std::vector<ExecutableTask*> tasks;
  // Each counter on its own cache line: workers hammer them from different cores.
  alignas(64) std::atomic<std::size_t> next{0};
  alignas(64) std::atomic<std::size_t> remaining{0};
  alignas(64) std::atomic<int> inflight{0};
  int max_concurrency = 0;
  ResultOptions options;  // what collect_writes keeps of a result in this run
  bool stream = false;    // some stream mode is wanted: the host streams each finished task
  bool solo = false;  // one plain task run on the consumer's thread, no pool job: no locking
  // Threads that may still read this StepRun outside a task of it (pool jobs, a coroutine's
  // thread filling the slot it freed): the consumer reuses it for the next step only at zero.
  // Each drops out with a release; the consumer's acquire load of zero then orders their reads
  // before its rewrite (a shared_ptr::use_count() check with a fence did the same, but
  // ThreadSanitizer does not model fences and reported a race).
  std::atomic<int> users{0};
  std::atomic<bool> cancel{false};  // the run is being stopped: tasks not started are skipped
  // A task failed: tasks still run (their writes are saved), Runtime::cancelled() tells them.
  std::atomic<bool> sibling_failed{false};
  /// Claims and runs tasks until none is left (or the concurrency cap is reached).
  void work();
};

class PregelRunner {
 public:
  PregelRunner(RunState& s, RunnerHost& host) : s_(s), host_(host) {}
  PregelRunner(const PregelRunner&) = delete;
  PregelRunner& operator=(const PregelRunner&) = delete;

  /// Starts the step's tasks that are not cached. `inline_tasks`: the consumer's thread may run
  /// tasks too (no part produced inside a task needs yielding while it runs). A step of one plain
  /// task the consumer may run is run right here, before this returns (solo()).
  void start_step(bool inline_tasks);
  /// The running step was run whole on the consumer's thread (see Outbox::done_inline).
  bool solo() const noexcept { return step_ && step_->solo; }
  /// The step's tasks have all finished and the loop applies its writes: no step is running.
  void end_step() noexcept { step_ = nullptr; }
  bool running() const noexcept { return step_ != nullptr; }
  /// A task of the running step failed, or the run is being stopped (a dropped stream,
  /// RunConfig::stop): Runtime::cancelled().
  bool cancelled() const noexcept;
  /// Stops the running step: tasks not started are skipped; those running see cancelled().
  void cancel() noexcept;
  /// cancel(), then waits for the step's tasks to end.
  void cancel_and_wait();

  /// Submits `fn` to the graph's pool; post_after: after `delay`.
  void post(std::function<void()> fn) const;
  void post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const;

 private:
  friend struct StepRun;
  void start_task(ExecutableTask& t);
  void run_start_task(ExecutableTask& t);
  void run_sync(ExecutableTask& t);
  void start_async(ExecutableTask& t);
  void on_async_done(ExecutableTask& t);
  void retry_async_later(ExecutableTask& t);
  bool should_retry(ExecutableTask& t) const;
  void task_finished(ExecutableTask& t);
  static void async_done(void* task);

  RunState& s_;
  RunnerHost& host_;
  StepRun* step_ = nullptr;               // the running step (owned by spare_step_)
  std::shared_ptr<StepRun> spare_step_;   // reused when no thread but the consumer uses it (StepRun::users)
};

}  // namespace superstep::internal
