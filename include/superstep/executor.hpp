// ThreadPool: the persistent worker pool runs use. It knows nothing of graphs: it runs jobs.
// One process-wide pool (`ThreadPool::shared()`, one worker per core) serves every graph unless
// CompileOptions::executor names another. Thread-safe: submit may be called from any thread.
#pragma once

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

  /// The process-wide pool, created on first use with one worker per core (at least 2).
  static std::shared_ptr<ThreadPool> shared();

 private:
  void work();

  std::mutex mutex_;                 // guards queue_ and stopping_
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace superstep
