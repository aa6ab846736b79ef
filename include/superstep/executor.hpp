// ThreadPool: the persistent worker pool runs use. It knows nothing of graphs: it runs jobs.
// One process-wide pool (`ThreadPool::shared()`, one worker per core) serves every graph unless
// CompileOptions::executor names another. Thread-safe: submit may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace superstep {

class ThreadPool {
 public:
  using Job = std::function<void()>;
  /// Starts `workers` threads (at least one).
  explicit ThreadPool(std::size_t workers);
  /// Finishes the queued jobs, then joins the workers. May run in one of its own jobs (that job
  /// held its last owner): that worker then finishes the queued jobs itself and ends once its
  /// job returns.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Queues a job; it runs on one of the workers. Jobs must not throw.
  void submit(Job job);
  std::size_t size() const noexcept { return threads_.size(); }

  /// Whether the calling thread is one of this pool's workers.
  bool on_worker() const noexcept;
  /// For a job that must wait for other jobs of its own pool (a run waiting for its step's
  /// tasks, a coroutine's continuation among them): runs queued jobs on the calling worker until
  /// `done()` is true, instead of blocking the worker they may need. `done` is called under the
  /// pool's lock; whoever makes it true calls wake_helpers() afterwards.
  void help_until(const std::function<bool()>& done);
  /// Whether a worker is inside help_until() (a cheap check before wake_helpers()).
  bool has_helpers() const noexcept { return helpers_.load(std::memory_order_relaxed) > 0; }
  /// Wakes the workers inside help_until() to check their `done` again.
  void wake_helpers();

  /// The process-wide pool, created on first use with one worker per core (at least 2).
  static std::shared_ptr<ThreadPool> shared();

 private:
  void work();

  std::mutex mutex_;                 // guards queue_ and stopping_
  std::condition_variable ready_;    // a job was queued, or the pool stops, or wake_helpers()
  std::atomic<int> helpers_{0};      // workers inside help_until(); changed under mutex_
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace superstep
