// IoThreads: the threads that run the server's io_context, and where runs start.
//
// A run's first stretch (its graph, its input checkpoint, every step up to its first await) is
// posted here by the thread that created it, not handed to the graphs' worker pool: a request
// that makes a run then answers from the thread it arrived on, with no wake-up of another
// thread in between. (On this project's machine a wake-up across cores costs ~25 us of CPU,
// about what the engine spends on a three-node run: docs/performance.md.) A run that awaits
// continues on the graphs' executor, as before.
//
// A node may block its thread (blocking I/O, a long computation). So that such a node cannot
// stop the server answering, post_run() marks the thread busy while the job runs, and a
// watchdog adds a thread to the io_context whenever every thread has been inside such a job
// for longer than kStall; an added thread leaves again once another thread is free.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace superstep::server {

class IoThreads {
 public:
  /// How long every thread must have been inside post_run() jobs before one is added.
  static constexpr std::chrono::milliseconds kStall{50};

  explicit IoThreads(boost::asio::io_context& io) : io_(io) {}
  ~IoThreads() { stop(); }
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  boost::asio::io_context& io() { return io_; }
  /// Starts `n` threads running io() (at least one) and the watchdog; at most `max_added`
  /// threads are added while they are all blocked.
  void start(std::size_t n, std::size_t max_added);
  /// Stops io() and joins every thread (the caller ends io()'s work first).
  void stop();
  /// Runs `job` on one of the threads; it may block (see above). Thread-safe.
  void post_run(std::function<void()> job);
  /// Threads running io() now (started plus added, not yet left).
  std::size_t size() const;
  /// Threads added since start (tests).
  std::size_t added_total() const { return added_total_.load(); }

 private:
  struct Slot {
    std::atomic<std::int64_t> busy_since{0};  // steady_clock ns inside a post_run job; 0: not
    bool alive = false;                       // guarded by mutex_
    bool added = false;
    std::thread thread;
  };
  void run_added(Slot& slot);
  void watch();
  std::size_t stuck_locked(std::int64_t now) const;

  boost::asio::io_context& io_;
  mutable std::mutex mutex_;  // guards slots_ membership, alive, stopping_
  std::condition_variable wake_;
  std::deque<Slot> slots_;    // stable addresses; a slot whose thread left is reused
  std::size_t max_added_ = 0;
  std::atomic<std::size_t> added_total_{0};
  bool stopping_ = false;
  bool started_ = false;
  std::thread watchdog_;
};

}  // namespace superstep::server
