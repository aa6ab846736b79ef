#include "pregel/timer.hpp"

#include <condition_variable>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace superstep::internal {
namespace {

class TimerThread {
 public:
  TimerThread() : thread_([this] { loop(); }) { thread_.detach(); }

  void add(std::chrono::steady_clock::time_point at, std::function<void()> fn) {
    {
      std::lock_guard lock(mutex_);
      queue_.push(Entry{at, seq_++, std::move(fn)});
    }
    changed_.notify_one();
  }

 private:
  struct Entry {
    std::chrono::steady_clock::time_point at;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (queue_.empty()) {
        changed_.wait(lock);
        continue;
      }
      auto at = queue_.top().at;
      if (std::chrono::steady_clock::now() < at) {
        changed_.wait_until(lock, at);
        continue;
      }
      auto fn = std::move(const_cast<Entry&>(queue_.top()).fn);
      queue_.pop();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mutex_;  // guards queue_ and seq_
  std::condition_variable changed_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  uint64_t seq_ = 0;
  std::thread thread_;
};

TimerThread& timer() {
  static auto* t = new TimerThread();  // never destroyed: its thread outlives static destruction
  return *t;
}

}  // namespace

void run_after(std::chrono::nanoseconds delay, std::function<void()> fn) {
  timer().add(std::chrono::steady_clock::now() + delay, std::move(fn));
}

}  // namespace superstep::internal
