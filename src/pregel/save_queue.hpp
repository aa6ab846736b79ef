// SaveQueue: runs a checkpointed run's saver calls in order, in the background (durability
// "async"). Jobs run one at a time on the pool; drain() waits for all of them, running them on
// the caller's thread when no pool job has started yet (so a full pool cannot stall a run).
// What queued up while jobs ran is run as one batch (one transaction in SqliteSaver), so a saver
// slower than the run commits less often instead of falling behind; and a checkpoint's push
// (`bounded`) waits while kMaxQueued jobs are queued, for them to be taken (or runs them itself
// when no pool job has started), so a long run on a slow saver holds a bounded backlog, not
// every checkpoint it made. (A step's task writes are never held back: the step holds them anyway.)
// Thread-safe: push may be called from any task's thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "superstep/executor.hpp"

namespace superstep::internal {

class SaveQueue {
 public:
  /// `batch(run)`: runs `run` (several jobs) as one unit of storage work (CheckpointSaver::batch).
  using Batch = std::function<void(const std::function<void()>&)>;
  explicit SaveQueue(std::shared_ptr<ThreadPool> pool, Batch batch = nullptr)
      : state_(std::make_shared<State>()), pool_(std::move(pool)) {
    state_->batch = std::move(batch);
  }
  ~SaveQueue() {
    try {
      drain();
    } catch (...) {  // a destructor cannot report it; drain() callers already saw it
    }
  }
  SaveQueue(const SaveQueue&) = delete;
  SaveQueue& operator=(const SaveQueue&) = delete;

  /// Jobs queued beyond which push() waits (about a thousand checkpoints or task writes).
  static constexpr std::size_t kMaxQueued = 1024;

  /// Queues `job`; jobs run in push order. With `bounded`, first waits while kMaxQueued jobs
  /// are queued. Once a job failed, the jobs after it are dropped (each builds on the one
  /// before: a checkpoint on its parent, appends on their base), and push throws that failure,
  /// so the run stops at its next save instead of running on unsaved.
  void push(std::function<void()> job, bool bounded = false) {
    std::unique_lock lock(state_->mutex);
    if (state_->error) std::rethrow_exception(state_->error);
    while (bounded && state_->jobs.size() >= kMaxQueued) {
      if (state_->running) state_->taken.wait(lock);
      else state_->run(lock);
    }
    if (state_->error) std::rethrow_exception(state_->error);
    state_->jobs.push_back(std::move(job));
    if (state_->running || state_->scheduled) return;
    state_->scheduled = true;
    pool_->submit([s = state_] {
      std::unique_lock lock(s->mutex);
      s->scheduled = false;
      if (!s->running) s->run(lock);
    });
  }
  /// Waits until every queued job ran (or was dropped after a failure). Throws: the first
  /// failure of a job since the last drain.
  void drain() {
    State& s = *state_;
    std::unique_lock lock(s.mutex);
    for (;;) {
      if (s.running) {
        s.idle.wait(lock);
        continue;
      }
      if (s.jobs.empty()) break;
      s.run(lock);
    }
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));
  }

 private:
  struct State {
    std::mutex mutex;  // guards everything below
    std::condition_variable idle;
    std::condition_variable taken;  // run() took the queued jobs
    std::deque<std::function<void()>> jobs;
    bool running = false;    // some thread is running jobs
    bool scheduled = false;  // a pool job is queued
    std::exception_ptr error;
    Batch batch;
    /// Runs the queued jobs, all that are queued at once as a batch. Requires: `lock` holds
    /// mutex and nobody else is running.
    void run(std::unique_lock<std::mutex>& lock) {
      running = true;
      while (!jobs.empty()) {
        std::deque<std::function<void()>> now;
        now.swap(jobs);
        taken.notify_all();
        lock.unlock();
        std::exception_ptr failed;
        auto run_all = [&] {
          for (auto& job : now) {
            if (failed) break;  // what follows builds on what failed
            try {
              job();
            } catch (...) {
              if (!failed) failed = std::current_exception();
            }
          }
        };
        try {
          if (batch && now.size() > 1) batch(run_all);
          else run_all();
        } catch (...) {
          if (!failed) failed = std::current_exception();
        }
        lock.lock();
        if (failed && !error) error = failed;
        if (error) jobs.clear();
      }
      running = false;
      idle.notify_all();
      taken.notify_all();
    }
  };
  std::shared_ptr<State> state_;
  std::shared_ptr<ThreadPool> pool_;
};

}  // namespace superstep::internal
