// Stress tests of the engine's lock-free paths, meant to be watched by ThreadSanitizer (the tsan
// preset runs them; docs/reliability.md, "ThreadSanitizer"): the step's claim counter
// (StepRun::next), single-task steps run inline on the consumer's thread (StepRun::solo), the
// StepRun reused from one step to the next, the async durability queue (SaveQueue), and runs
// stopped from outside (streams dropped mid-run). Each also asserts the exact outcome, so a lost,
// doubled or misplaced write fails it without a sanitizer. Each runs in well under a second in
// the debug build.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <superstep/checkpoint/sqlite_saver.hpp>

#include "test_util.hpp"

using namespace testing_util;
using namespace std::chrono_literals;

namespace {

constexpr int kSends = 8;  // the mixed graph's Send fan-out

/// The shapes a run meets, in one graph: START -> a, b, c in parallel (a step of three PULL
/// tasks) -> join (a barrier; a single-task step) -> kSends PUSH tasks of `worker` (Send fan-out)
/// -> tail1 -> tail2 (single-task steps, run inline on the consumer's thread when it may).
/// For input n the result is exact: sum = 6n + (0 + ... + kSends-1) + 2000, and the trace lists
/// the nodes in path order.
sp::CompiledStateGraph mixed_graph(std::shared_ptr<sp::ThreadPool> pool,
                                   std::shared_ptr<sp::CheckpointSaver> saver = nullptr) {
  sp::StateSchema s;
  s.field("n").field("sum", sp::reducers::add, 0).field("trace", sp::reducers::append);
  sp::StateGraph g(s);
  auto branch = [](const std::string& name, int k) {
    return [name, k](const sp::State& st) {
      return json{{"sum", k * st.get<int>("n")}, {"trace", {name}}};
    };
  };
  g.add_node("a", branch("a", 1)).add_node("b", branch("b", 2)).add_node("c", branch("c", 3));
  g.add_node("join", tracer("join"));
  g.add_node("worker", [](const sp::State& st) {
    int i = st.get<int>("i");
    return json{{"sum", i}, {"trace", {"w" + std::to_string(i)}}};
  });
  g.add_node("tail1", [](const sp::State&) { return json{{"sum", 1000}, {"trace", {"tail1"}}}; });
  g.add_node("tail2", [](const sp::State&) { return json{{"sum", 1000}, {"trace", {"tail2"}}}; });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
  g.add_edge({"a", "b", "c"}, "join");
  g.add_conditional_edges("join", [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i = 0; i < kSends; ++i) sends.push_back({"worker", json{{"i", i}}});
    return sends;
  });
  g.add_edge("worker", "tail1").add_edge("tail1", "tail2");
  return g.compile({.executor = std::move(pool), .checkpointer = std::move(saver)});
}

json mixed_expected(int n) {
  json trace = {"a", "b", "c", "join"};
  for (int i = 0; i < kSends; ++i) trace.push_back("w" + std::to_string(i));
  trace.push_back("tail1");
  trace.push_back("tail2");
  return json{{"n", n}, {"sum", 6 * n + kSends * (kSends - 1) / 2 + 2000}, {"trace", trace}};
}

/// `threads` threads each invoke `app` `runs` times with their own inputs (and thread ids when
/// `config` names a durability); returns how many results were exactly right.
int invoke_from_many_threads(const sp::CompiledStateGraph& app, int threads, int runs,
                             std::optional<sp::Durability> durability = std::nullopt) {
  std::atomic<int> right{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < threads; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < runs; ++r) {
        int n = t * 1000 + r;
        sp::RunConfig config;
        if (durability) {
          config.thread_id = "t" + std::to_string(n);
          config.durability = *durability;
        }
        json out = app.invoke(json{{"n", n}}, config);
        if (out == mixed_expected(n)) ++right;
        else ADD_FAILURE() << "run " << n << " gave " << out.dump();
      }
    });
  for (auto& c : callers) c.join();
  return right;
}

class StressWorkers : public testing::TestWithParam<std::size_t> {};

TEST_P(StressWorkers, ManyThreadsInvokeOneCompiledGraphAndEachGetsItsOwnResult) {
  auto app = mixed_graph(pool(GetParam()));
  EXPECT_EQ(invoke_from_many_threads(app, 8, 25), 8 * 25);
}

TEST_P(StressWorkers, ManyThreadsInvokeOneCheckpointedGraphInEveryDurability) {
  auto saver = std::make_shared<sp::InMemorySaver>();
  auto app = mixed_graph(pool(GetParam()), saver);
  for (sp::Durability d : {sp::Durability::sync, sp::Durability::async, sp::Durability::exit}) {
    SCOPED_TRACE(static_cast<int>(d));
    EXPECT_EQ(invoke_from_many_threads(app, 6, 8, d), 6 * 8);
    // Every run's last checkpoint is stored by the time invoke returned.
    for (int n : {0, 5007}) {
      sp::RunConfig config{.thread_id = "t" + std::to_string(n)};
      EXPECT_EQ(app.get_state(config).values, mixed_expected(n));
    }
    for (int t = 0; t < 6; ++t)
      for (int r = 0; r < 8; ++r) saver->delete_thread("t" + std::to_string(t * 1000 + r));
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, StressWorkers, testing::Values(1, 2, 8),
                         [](const auto& info) { return std::to_string(info.param) + "_workers"; });

TEST(Stress, ManyThreadsShareOneSqliteSaverThroughOneGraph) {
  auto path = std::filesystem::temp_directory_path() /
              ("superstep-stress-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto saver = std::make_shared<sp::SqliteSaver>(path.string());
    auto app = mixed_graph(pool(8), saver);
    EXPECT_EQ(invoke_from_many_threads(app, 4, 5, sp::Durability::async), 4 * 5);
    EXPECT_EQ(app.get_state({.thread_id = "t3004"}).values, mixed_expected(3004));
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  std::filesystem::remove(path.string() + "-shm");
}

TEST(Stress, TheClaimCounterGivesEachOfManyTasksToExactlyOneThread) {
  // One step of 200 Send tasks on eight workers plus the consumer, run many times: each task
  // runs exactly once, whichever thread claims it, and the writes apply in Send order.
  constexpr int kTasks = 200;
  std::array<std::atomic<int>, kTasks> ran{};
  sp::StateSchema s;
  s.field("out", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("w", [&](const sp::State& st) {
    int i = st.get<int>("i");
    ran[i].fetch_add(1);
    return json{{"out", {i}}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i = 0; i < kTasks; ++i) sends.push_back({"w", json{{"i", i}}});
    return sends;
  });
  auto app = g.compile({.executor = pool(8)});
  json expected = json::array();
  for (int i = 0; i < kTasks; ++i) expected.push_back(i);
  constexpr int kRuns = 20;
  for (int r = 0; r < kRuns; ++r) EXPECT_EQ(app.invoke(json::object())["out"], expected);
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(ran[i].load(), kRuns) << "task " << i;
}

TEST(Stress, MaxConcurrencyHoldsUnderManyClaimingThreads) {
  // The claim counter with the in-flight cap (StepRun::inflight): never more than the cap at
  // once, every task still run once.
  constexpr int kTasks = 64, kCap = 3;
  std::atomic<int> running{0}, peak{0}, ran{0};
  sp::StateSchema s;
  s.field("out", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("w", [&](const sp::State& st) {
    int now = ++running;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
    std::this_thread::sleep_for(100us);
    --running;
    ++ran;
    return json{{"out", st.get<int>("i")}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i = 0; i < kTasks; ++i) sends.push_back({"w", json{{"i", i}}});
    return sends;
  });
  auto app = g.compile({.executor = pool(8)});
  for (int r = 0; r < 5; ++r) EXPECT_EQ(app.invoke(json::object(), {.max_concurrency = kCap})["out"], kTasks * (kTasks - 1) / 2);
  EXPECT_EQ(ran, 5 * kTasks);
  EXPECT_LE(peak, kCap);
  EXPECT_GE(peak, 1);
}

TEST(Stress, OneRunsStepsAlternatingFanOutAndSingleTasksReuseTheStepsBatch) {
  // A loop of 60 steps alternating a fan-out of 12 Sends (pool jobs hold the step's StepRun)
  // and a single task run inline (StepRun::solo), so each step reuses or replaces the StepRun
  // while jobs of the step before may still hold it. Each step's writes must all land.
  constexpr int kLaps = 30, kFan = 12;
  sp::StateSchema s;
  s.field("lap", sp::reducers::add, 0).field("sum", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("spread", [](const sp::State&) { return json{{"lap", 1}}; });
  g.add_node("w", [](const sp::State& st) { return json{{"sum", st.get<int>("i")}}; });
  g.add_conditional_edges("spread", [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i = 1; i <= kFan; ++i) sends.push_back({"w", json{{"i", i}}});
    return sends;
  });
  g.add_conditional_edges("w", [](const sp::State& st) -> std::string {
    return st.get<int>("lap") < kLaps ? "spread" : sp::END;
  });
  g.add_edge(sp::START, "spread");
  for (std::size_t workers : {1, 2, 8}) {
    auto app = g.compile({.executor = pool(workers)});
    for (int r = 0; r < 10; ++r) {
      json out = app.invoke(json::object(), {.recursion_limit = 2 * kLaps + 5});
      EXPECT_EQ(out["lap"], kLaps);
      EXPECT_EQ(out["sum"], kLaps * kFan * (kFan + 1) / 2) << workers << " workers";
    }
  }
}

/// A graph whose nodes record, per caller slot (RunConfig::context "slot"), how many of them
/// are running: once a dropped stream's destructor returns, none of its run's nodes may run.
struct Abandoned {
  static constexpr int kSlots = 8;
  std::array<std::atomic<int>, kSlots> running{};
  std::array<std::atomic<int>, kSlots> after_drop{};  // nodes started after the stream was gone
  std::array<std::atomic<bool>, kSlots> dropped{};
  std::atomic<int> started{0};
  sp::CompiledStateGraph app;

  explicit Abandoned(std::shared_ptr<sp::CheckpointSaver> saver = nullptr, std::size_t workers = 4)
      : app(build(std::move(saver), workers)) {}

  sp::CompiledStateGraph build(std::shared_ptr<sp::CheckpointSaver> saver, std::size_t workers) {
    sp::StateGraph g(trace_schema());
    auto node = [this](const std::string& name) {
      return [this, name](const sp::State&, sp::Runtime& rt) {
        int slot = rt.context()["slot"].get<int>();
        if (dropped[slot]) ++after_drop[slot];
        ++started;
        ++running[slot];
        rt.stream_writer(json{{"node", name}});
        std::this_thread::sleep_for(50us);
        --running[slot];
        return json{{"trace", {name}}};
      };
    };
    g.add_node("x", node("x")).add_node("y", node("y")).add_node("z", node("z"));
    g.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge({"x", "y"}, "z").add_edge("z", "x").add_edge("z", "y");
    return g.compile({.executor = pool(workers), .checkpointer = std::move(saver)});
  }
};

TEST(Stress, StreamsDroppedMidRunFromManyThreadsStopTheirRunsAndNothingElse) {
  for (bool checkpointed : {false, true}) {
    SCOPED_TRACE(checkpointed ? "checkpointed" : "no checkpointer");
    Abandoned graph(checkpointed ? std::make_shared<sp::InMemorySaver>() : nullptr);
    std::vector<std::thread> callers;
    for (int slot = 0; slot < Abandoned::kSlots; ++slot)
      callers.emplace_back([&, slot] {
        for (int r = 0; r < 10; ++r) {
          graph.dropped[slot] = false;
          sp::RunConfig config{.recursion_limit = 1000, .context = json{{"slot", slot}}};
          if (checkpointed) config.thread_id = "s" + std::to_string(slot);
          {
            auto stream = graph.app.stream(json::object(), config, {sp::StreamMode::custom, sp::StreamMode::updates});
            int seen = 0;
            for (const auto& part : stream) {
              (void)part;
              if (++seen == 1 + (slot + r) % 7) break;
            }
          }
          graph.dropped[slot] = true;
          EXPECT_EQ(graph.running[slot], 0) << "a node of a dropped stream still runs";
        }
      });
    for (auto& c : callers) c.join();
    for (int slot = 0; slot < Abandoned::kSlots; ++slot) EXPECT_EQ(graph.after_drop[slot], 0) << slot;
    if (checkpointed) {
      // Each dropped run released its thread: the next run on it is not refused, and continues
      // from what the dropped one checkpointed.
      sp::RunConfig config{.thread_id = "s3", .recursion_limit = 1000, .context = json{{"slot", 3}}};
      EXPECT_FALSE(graph.app.get_state(config).values["trace"].empty());
      int parts = 0;
      for (const auto& part : graph.app.stream(json::object(), config, {sp::StreamMode::updates})) {
        (void)part;
        if (++parts == 2) break;
      }
      EXPECT_EQ(parts, 2);
    }
  }
}

/// Reads `parts` parts, then drops the stream mid-run, on the thread the coroutine resumed on
/// (a pool worker once it has waited for a part).
sp::Task<int> read_some(sp::AsyncStream s, int parts) {
  sp::AsyncStream stream = std::move(s);  // destroyed at co_return, not with the frame
  int seen = 0;
  while (seen < parts) {
    std::optional<sp::StreamPart> p = co_await stream.next();
    if (!p) break;
    ++seen;
  }
  co_return seen;
}

/// Waits until no node of `graph` runs and none has started for a while: a dropped astream's
/// step ends in the background. False after five seconds.
bool quiesces(const Abandoned& graph) {
  auto deadline = std::chrono::steady_clock::now() + 5s;
  int last = -1;
  while (std::chrono::steady_clock::now() < deadline) {
    int running = 0;
    for (const auto& r : graph.running) running += r;
    int started = graph.started;
    if (running == 0 && started == last) return true;
    last = started;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(Stress, AsyncStreamsDroppedMidRunOnTheWorkersStopTheirRuns) {
  // Eight astream consumers on a two-worker pool drop their streams after a few parts, while a
  // step runs (the part comes from inside a node), on the pool's workers. The drop does not
  // wait for the step; its tasks not started are skipped and the runs end in the background.
  Abandoned graph(nullptr, 2);
  for (int round = 0; round < 5; ++round) {
    std::vector<sp::Task<int>> readers;
    for (int slot = 0; slot < Abandoned::kSlots; ++slot) {
      sp::RunConfig config{.recursion_limit = 1000, .context = json{{"slot", slot}}};
      readers.push_back(read_some(graph.app.astream(json::object(), config, {sp::StreamMode::custom}), 1 + slot));
    }
    std::vector<int> seen = sp::sync_wait(sp::when_all(std::move(readers)));
    for (int slot = 0; slot < Abandoned::kSlots; ++slot) EXPECT_EQ(seen[slot], 1 + slot);
    EXPECT_TRUE(quiesces(graph)) << "a dropped run kept running";
  }
  // The pool is free again: a new run goes step after step until its recursion limit (the
  // graph loops forever).
  EXPECT_THROW(graph.app.invoke(json::object(), {.recursion_limit = 4, .context = json{{"slot", 0}}}),
               sp::GraphRecursionError);
}

TEST(Stress, AnAsyncStreamDroppedOnTheOnlyWorkerWhileItsCoroutineNodesSleepDoesNotDeadlock) {
  // Regression: ~AsyncStream waited for the running step on the thread dropping it. Dropped by
  // a consumer resumed on the pool's only worker while the step's coroutine nodes slept, that
  // wait held the worker their wake-up needed: the process hung.
  sp::StateGraph g(trace_schema());
  auto node = [](const std::string& name) {
    return [name](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      rt.stream_writer(json{{"node", name}});
      co_await sp::sleep_for(rt, 2ms);
      co_return json{{"trace", {name}}};
    };
  };
  g.add_node("x", node("x")).add_node("y", node("y"));
  g.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge("x", "x").add_edge("y", "y");
  for (std::size_t workers : {1, 2}) {
    auto app = g.compile({.executor = pool(workers)});
    std::vector<sp::Task<int>> readers;
    for (int i = 0; i < 4; ++i)
      readers.push_back(read_some(app.astream(json::object(), {.recursion_limit = 1000}, {sp::StreamMode::custom}), 3));
    std::vector<int> seen = sp::sync_wait(sp::when_all(std::move(readers)));
    EXPECT_EQ(seen, std::vector<int>(4, 3)) << workers << " workers";
  }
}

/// A saver whose writes take a while: async durability's queue is still draining when a run's
/// last step ends.
class SlowSaver final : public sp::ForwardingSaver {
 public:
  SlowSaver() : ForwardingSaver(std::make_shared<sp::InMemorySaver>()) {}
  bool stores_deltas() const override { return false; }  // every checkpoint through put() below
  sp::CheckpointConfig put(const sp::CheckpointConfig& config, const sp::Checkpoint& checkpoint, const json& metadata,
                           const json& new_versions) override {
    std::this_thread::sleep_for(300us);
    ++puts;
    return ForwardingSaver::put(config, checkpoint, metadata, new_versions);
  }
  void put_writes(const sp::CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    std::this_thread::sleep_for(100us);
    ForwardingSaver::put_writes(config, writes, task_id, task_path);
  }

  std::atomic<int> puts{0};
};

TEST(Stress, AGraphDestroyedRightAfterItsAsyncCheckpointWritesDrainLeavesEveryCheckpointStored) {
  // Async durability queues each step's checkpoint on the pool; the graph, and the stream, are
  // destroyed as soon as the run returns (or is dropped), from several threads at once. What
  // was queued is stored, nothing runs after, and the saver outlives them all.
  auto saver = std::make_shared<SlowSaver>();
  // How many checkpoints a whole run stores (input, then one per step).
  std::size_t per_run = 0;
  {
    auto app = mixed_graph(pool(2), saver);
    app.invoke(json{{"n", 1}}, {.thread_id = "reference", .durability = sp::Durability::sync});
    per_run = saver->list({.thread_id = "reference"}).size();
    ASSERT_GE(per_run, 6u);
  }
  std::vector<std::thread> callers;
  constexpr int kCallers = 4, kRuns = 6;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRuns; ++r) {
        std::string thread = "g" + std::to_string(c) + "-" + std::to_string(r);
        sp::RunConfig config{.thread_id = thread, .durability = sp::Durability::async};
        if (r % 2 == 0) {
          auto app = std::make_unique<sp::CompiledStateGraph>(mixed_graph(pool(2), saver));
          json out = app->invoke(json{{"n", r}}, config);
          app.reset();
          EXPECT_EQ(out, mixed_expected(r));
          // Every checkpoint of the run was stored when invoke returned.
          EXPECT_EQ(saver->list({.thread_id = thread}).size(), per_run) << thread;
        } else {
          auto app = std::make_unique<sp::CompiledStateGraph>(mixed_graph(pool(2), saver));
          {
            auto stream = app->stream(json{{"n", r}}, config, {sp::StreamMode::updates});
            int seen = 0;
            for (const auto& part : stream) {
              (void)part;
              if (++seen == 3) break;
            }
          }
          app.reset();
          // The dropped run's newest stored checkpoint is one the run reached: a step of the
          // loop, never a torn one.
          auto latest = saver->get_tuple({.thread_id = thread});
          ASSERT_TRUE(latest.has_value()) << thread;
          int step = latest->metadata["step"].get<int>();
          EXPECT_GE(step, -1) << thread;
          EXPECT_LT(step, static_cast<int>(per_run) - 2) << thread << ": a dropped run stored its last step";
        }
      }
    });
  for (auto& c : callers) c.join();
  int puts = saver->puts;
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(saver->puts, puts) << "a checkpoint was stored after every graph was gone";
}

}  // namespace

