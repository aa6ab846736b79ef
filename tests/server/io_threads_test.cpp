// IoThreads (src/server/io_threads.hpp): jobs that block every thread make the watchdog add
// threads, so other handlers still run; added threads leave once a thread is free; the bound.
#include "server/io_threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <thread>

namespace {

namespace asio = boost::asio;
using superstep::server::IoThreads;
using namespace std::chrono_literals;

template <class F>
bool eventually(F f, std::chrono::milliseconds within = 3s) {
  auto end = std::chrono::steady_clock::now() + within;
  while (!f()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

struct Fixture {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  IoThreads threads{io};
  std::atomic<bool> release{false};
  std::atomic<int> inside{0};
  ~Fixture() {
    release = true;
    work.reset();
    threads.stop();
  }
  void post_blocking() {
    threads.post_run([this] {
      ++inside;
      while (!release) std::this_thread::sleep_for(1ms);
      --inside;
    });
  }
  /// Whether a plain handler posted now runs within `within`. (A flag, not a std::promise:
  /// libstdc++'s future uses a fence ThreadSanitizer does not model.)
  bool handler_runs(std::chrono::milliseconds within) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    asio::post(io, [done] { *done = true; });
    return eventually([&] { return done->load(); }, within);
  }
};

TEST(IoThreads, ShortJobsRunOnTheThreadsAndAddNone) {
  Fixture fx;
  fx.threads.start(1, 8);
  std::atomic<int> ran{0};
  for (int i = 0; i < 1000; ++i) fx.threads.post_run([&] { ++ran; });
  ASSERT_TRUE(eventually([&] { return ran == 1000; }));
  EXPECT_EQ(fx.threads.size(), 1u);
  EXPECT_EQ(fx.threads.added_total(), 0u);
}

TEST(IoThreads, JobsBlockingEveryThreadMakeItAddOneSoHandlersStillRun) {
  Fixture fx;
  fx.threads.start(1, 8);
  fx.post_blocking();
  ASSERT_TRUE(eventually([&] { return fx.inside == 1; }));
  EXPECT_TRUE(fx.handler_runs(2s));  // on the added thread
  EXPECT_EQ(fx.threads.size(), 2u);
  fx.post_blocking();  // the added thread blocks too: another is added
  ASSERT_TRUE(eventually([&] { return fx.inside == 2; }));
  EXPECT_TRUE(fx.handler_runs(2s));
  EXPECT_EQ(fx.threads.size(), 3u);
  EXPECT_EQ(fx.threads.added_total(), 2u);
  // Released, the added threads leave again (each within its 200 ms slice once another is free).
  fx.release = true;
  EXPECT_TRUE(eventually([&] { return fx.threads.size() == 1; }));
  EXPECT_TRUE(fx.handler_runs(2s));
}

TEST(IoThreads, AtMostMaxAddedThreadsAreAdded) {
  Fixture fx;
  fx.threads.start(1, 1);
  fx.post_blocking();
  fx.post_blocking();
  fx.post_blocking();
  ASSERT_TRUE(eventually([&] { return fx.inside == 2; }));
  std::this_thread::sleep_for(300ms);  // several watchdog rounds: still 1 + 1 threads
  EXPECT_EQ(fx.threads.size(), 2u);
  EXPECT_EQ(fx.inside, 2);
  EXPECT_FALSE(fx.handler_runs(200ms));  // both threads blocked, no more may be added
  fx.release = true;
  EXPECT_TRUE(eventually([&] { return fx.inside == 0 && fx.threads.size() == 1; }));
}

TEST(IoThreads, StopJoinsAddedThreads) {
  auto fx = std::make_unique<Fixture>();
  fx->threads.start(2, 4);
  fx->post_blocking();
  fx->post_blocking();
  ASSERT_TRUE(eventually([&] { return fx->inside == 2 && fx->threads.size() == 3; }));
  fx.reset();  // releases, stops, joins: returns, and no thread outlives it
}

}  // namespace
