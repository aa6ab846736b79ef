#include <algorithm>

#include "superstep/executor.hpp"

namespace superstep {

ThreadPool::ThreadPool(std::size_t workers) {
  workers = std::max<std::size_t>(1, workers);
  threads_.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void ThreadPool::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

std::shared_ptr<ThreadPool> ThreadPool::shared() {
  // Never destroyed: runs may still be finishing while static destructors run.
  static auto* pool = new std::shared_ptr<ThreadPool>(
      std::make_shared<ThreadPool>(std::max(2u, std::thread::hardware_concurrency())));
  return *pool;
}

}  // namespace superstep
