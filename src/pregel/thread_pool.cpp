#include <algorithm>

#include "superstep/executor.hpp"

namespace superstep {

ThreadPool::ThreadPool(std::size_t workers) {
  workers = std::max<std::size_t>(1, workers);
  threads_.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

namespace {
// Set on a worker whose job destroyed the worker's own pool (a job may hold the pool's last
// owner: a dropped AsyncStream's run, released on the pool, holds its graph, which holds the
// pool): the worker then returns without touching the pool again.
thread_local bool* t_pool_gone = nullptr;
thread_local const ThreadPool* t_worker_of = nullptr;  // the pool whose worker this thread is
}  // namespace

bool ThreadPool::on_worker() const noexcept { return t_worker_of == this; }

void ThreadPool::help_until(const std::function<bool()>& done) {
  std::unique_lock lock(mutex_);
  helpers_.fetch_add(1, std::memory_order_relaxed);
  while (!done()) {
    if (queue_.empty()) {
      ready_.wait(lock);
      continue;
    }
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what the job owned goes before the lock is taken again
    lock.lock();
  }
  helpers_.fetch_sub(1, std::memory_order_relaxed);
}

void ThreadPool::wake_helpers() {
  std::lock_guard lock(mutex_);
  ready_.notify_all();
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  const std::thread::id self = std::this_thread::get_id();
  for (auto& t : threads_) {
    if (t.get_id() != self) {
      t.join();
      continue;
    }
    // This runs in a job of this pool, on one of its workers, which cannot join itself: it
    // finishes what is still queued, then leaves the thread to end on its own.
    for (;;) {
      Job job;
      {
        std::lock_guard lock(mutex_);
        if (queue_.empty()) break;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
    *t_pool_gone = true;
    t.detach();
  }
}

void ThreadPool::submit(Job job) {
  // Notified under the lock: once the job is queued, a worker may run it at once, and what it
  // runs may release the pool's last owner (a run that ends destroys its graph, which may own
  // the pool) while this thread, a thread outside the pool, would still be signalling the
  // destroyed condition variable (ThreadSanitizer saw it: MessagesStream.TwoHundredWaiting...).
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(job));
  ready_.notify_one();
}

void ThreadPool::work() {
  bool gone = false;
  t_pool_gone = &gone;
  t_worker_of = this;
  for (;;) {
    {
      Job job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping and drained
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }  // the job, and what it owned, is destroyed here: that may have destroyed this pool
    if (gone) return;
  }
}

std::shared_ptr<ThreadPool> ThreadPool::shared() {
  // Never destroyed: runs may still be finishing while static destructors run.
  static auto* pool = new std::shared_ptr<ThreadPool>(
      std::make_shared<ThreadPool>(std::max(2u, std::thread::hardware_concurrency())));
  return *pool;
}

}  // namespace superstep
