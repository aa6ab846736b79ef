// ThreadPool (include/superstep/executor.hpp): jobs from many threads, and shutdown.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include <superstep/executor.hpp>

namespace {

using namespace std::chrono_literals;

bool eventually(const std::atomic<int>& n, int want) {
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (n.load() != want && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return n.load() == want;
}

TEST(ThreadPool, JobsSubmittedFromManyThreadsEachRunOnce) {
  for (std::size_t workers : {1, 2, 8}) {
    std::atomic<int> ran{0};
    {
      superstep::ThreadPool pool(workers);
      std::vector<std::thread> submitters;
      for (int t = 0; t < 4; ++t)
        submitters.emplace_back([&] {
          for (int i = 0; i < 500; ++i) pool.submit([&] { ++ran; });
        });
      for (auto& s : submitters) s.join();
    }  // the destructor finishes the queued jobs
    EXPECT_EQ(ran, 2000) << workers << " workers";
  }
}

TEST(ThreadPool, APoolWhoseLastOwnerIsOneOfItsJobsEndsCleanlyAndFinishesTheQueue) {
  // Regression: the last owner released inside a job ran ~ThreadPool on that job's worker,
  // which tried to join itself (std::system_error, "Resource deadlock avoided": terminate).
  // A dropped AsyncStream's run, released on the pool, can hold the pool's last owner.
  for (std::size_t workers : {1, 2}) {
    // Owned by the jobs too: the first job may still be returning when this iteration ends.
    struct Flags {
      std::atomic<bool> go{false};
      std::atomic<int> ran{0};
    };
    auto flags = std::make_shared<Flags>();
    auto pool = std::make_shared<superstep::ThreadPool>(workers);
    pool->submit([owner = pool, flags] {
      while (!flags->go) std::this_thread::sleep_for(100us);
    });
    for (int i = 0; i < 20; ++i) pool->submit([flags] { ++flags->ran; });
    pool.reset();  // the first job now holds the last owner
    flags->go = true;
    EXPECT_TRUE(eventually(flags->ran, 20)) << workers << " workers: " << flags->ran << " of 20 queued jobs ran";
  }
}

}  // namespace
