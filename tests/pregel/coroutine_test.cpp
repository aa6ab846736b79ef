// Coroutine nodes: they await without holding a worker thread, compose, fail and retry like
// plain nodes, and give the same results.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <latch>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_util.hpp"

using namespace testing_util;
using namespace std::chrono_literals;

TEST(Coroutine, NodeAwaitsAndReturnsAnUpdate) {
  sp::StateGraph g(trace_schema());
  g.add_node("wait", [](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 5ms);
    co_return json{{"n", s.get<int>("n") * 2}, {"trace", {"wait"}}};
  });
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "wait").add_edge("wait", "after");
  EXPECT_EQ(g.compile().invoke(json{{"n", 21}}), (json{{"n", 42}, {"trace", {"wait", "after"}}}));
}

TEST(Coroutine, ThousandWaitingNodesShareTwoWorkerThreads) {
  // 1000 Send tasks each wait 50 ms on two workers. Blocking, that is 25 s; awaiting, the waits
  // overlap. Asserted as behaviour: every node was suspended at the same time, and the worker
  // threads that ran them were at most the pool's two plus the caller's.
  constexpr int kTasks = 1000;
  std::atomic<int> waiting{0}, peak{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  sp::StateSchema s;
  s.field("done", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("io", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    int w = ++waiting;
    int p = peak.load();
    while (w > p && !peak.compare_exchange_weak(p, w)) {
    }
    co_await sp::sleep_for(rt, 50ms);
    --waiting;
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    co_return json{{"done", 1}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    std::vector<sp::Send> sends;
    for (int i = 0; i < kTasks; ++i) sends.push_back({"io", json::object()});
    return sends;
  });
  auto app = g.compile({.executor = pool(2)});
  EXPECT_EQ(app.invoke(json::object())["done"], kTasks);
  EXPECT_EQ(peak, kTasks);
  EXPECT_LE(threads.size(), 3u);
}

TEST(Coroutine, MaxConcurrencyCountsSuspendedCoroutines) {
  std::atomic<int> waiting{0}, peak{0};
  sp::StateSchema s;
  s.field("done", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("io", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    int w = ++waiting;
    int p = peak.load();
    while (w > p && !peak.compare_exchange_weak(p, w)) {
    }
    co_await sp::sleep_for(rt, 2ms);
    --waiting;
    co_return json{{"done", 1}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>(40, sp::Send{"io", json::object()});
  });
  auto app = g.compile({.executor = pool(2)});
  EXPECT_EQ(app.invoke(json::object(), {.max_concurrency = 5})["done"], 40);
  EXPECT_LE(peak, 5);
}

namespace {
/// Where `n` waiting nodes meet: each awaits arrive(); all resume once the n-th arrived, with
/// true. Tells "all were suspended at once" without a timer that must outlast starting them
/// (which a sanitizer build on a loaded machine may not). After 60 s it opens anyway, with
/// false, so a run that never arrives fails the test instead of hanging it.
class Gate {
 public:
  explicit Gate(int n) : n_(n), watchdog_([this] {
    std::unique_lock lock(mutex_);
    if (!opened_.wait_for(lock, 60s, [this] { return open_; })) open_locked(false);
  }) {}
  ~Gate() {
    {
      std::lock_guard lock(mutex_);
      open_locked(false);
    }
    watchdog_.join();
  }
  auto arrive(const sp::Runtime& rt) {
    return sp::await_callback<bool>(rt, [this](sp::Completion<bool> c) {
      std::lock_guard lock(mutex_);
      if (open_) return c.complete(false);
      waiting_.push_back(std::move(c));
      if (static_cast<int>(waiting_.size()) == n_) open_locked(true);
    });
  }

 private:
  void open_locked(bool all_came) {
    if (open_) return;
    open_ = true;
    for (auto& c : waiting_) c.complete(all_came);
    waiting_.clear();
    opened_.notify_all();
  }
  const int n_;
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
  std::vector<sp::Completion<bool>> waiting_;
  std::thread watchdog_;  // last: started once the members it reads exist
};

sp::Task<int> add_later(const sp::Runtime& rt, int a, int b) {
  co_await sp::sleep_for(rt, 1ms);
  co_return a + b;
}
}  // namespace

TEST(Coroutine, TasksCompose) {
  sp::StateGraph g(trace_schema());
  g.add_node("sum", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    int x = co_await add_later(rt, 2, 3);
    int y = co_await add_later(rt, x, 10);
    co_return json{{"n", y}};
  });
  g.add_edge(sp::START, "sum");
  EXPECT_EQ(g.compile().invoke(json::object())["n"], 15);
}

TEST(Coroutine, AwaitCallbackBridgesAnotherThread) {
  sp::StateGraph g(trace_schema());
  g.add_node("cb", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::string v = co_await sp::await_callback<std::string>(rt, [](sp::Completion<std::string> done) {
      std::thread([done] {
        std::this_thread::sleep_for(2ms);
        done.complete("from another thread");
      }).detach();
    });
    int immediate = co_await sp::await_callback<int>(rt, [](sp::Completion<int> done) { done.complete(7); });
    co_return json{{"trace", {v}}, {"n", immediate}};
  });
  g.add_edge(sp::START, "cb");
  EXPECT_EQ(g.compile().invoke(json::object()), (json{{"trace", {"from another thread"}}, {"n", 7}}));
}

TEST(Coroutine, ExceptionBecomesNodeErrorAndFailedCallbackRethrows) {
  sp::StateGraph g(trace_schema());
  g.add_node("bad", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::await_callback<int>(rt, [](sp::Completion<int> done) {
      done.fail(std::make_exception_ptr(std::runtime_error("connection reset")));
    });
    co_return json{};
  });
  g.add_edge(sp::START, "bad");
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "bad");
    EXPECT_NE(std::string(e.what()).find("connection reset"), std::string::npos);
  }
}

TEST(Coroutine, RetriedAfterFailure) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("flaky", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 1ms);
    if (++calls < 3) throw std::runtime_error("503");
    co_return json{{"trace", {"ok"}}};
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 3, .jitter = false}});
  g.add_edge(sp::START, "flaky");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"ok"}));
  EXPECT_EQ(calls, 3);
}

TEST(Coroutine, MixedWithPlainNodesInOneStepSameResultAnyWorkers) {
  for (std::size_t w : {1u, 2u, 8u}) {
    sp::StateGraph g(trace_schema());
    g.add_node("plain", tracer("plain"));
    g.add_node("async", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      co_await sp::sleep_for(rt, 3ms);
      co_return json{{"trace", {"async"}}};
    });
    g.add_node("join", tracer("join"));
    g.add_edge(sp::START, "plain").add_edge(sp::START, "async").add_edge({"plain", "async"}, "join");
    EXPECT_EQ(g.compile({.executor = pool(w)}).invoke(json::object())["trace"], json({"async", "plain", "join"}));
  }
}

TEST(Coroutine, CustomStreamFromCoroutine) {
  sp::StateGraph g(trace_schema());
  g.add_node("c", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    rt.stream_writer("before");
    co_await sp::sleep_for(rt, 1ms);
    rt.stream_writer("after");
    co_return json{};
  });
  g.add_edge(sp::START, "c");
  json parts = collect(g.compile().stream(json::object(), {}, {sp::StreamMode::custom}));
  EXPECT_EQ(parts, json::parse(R"([["custom", "before"], ["custom", "after"]])"));
}

// --- ainvoke: whole runs as coroutines ---

TEST(AsyncInvoke, SameResultAsInvoke) {
  sp::StateGraph g(trace_schema());
  g.add_node("wait", [](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 2ms);
    co_return json{{"n", s.get<int>("n") + 1}, {"trace", {"wait"}}};
  });
  g.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g.add_edge(sp::START, "wait").add_edge("wait", "a").add_edge("wait", "b");
  for (std::size_t workers : {1, 2, 8}) {
    auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(workers)});
    EXPECT_EQ(sp::sync_wait(app.ainvoke(json{{"n", 1}})), app.invoke(json{{"n", 1}})) << workers << " workers";
  }
}

TEST(AsyncInvoke, ThousandRunsWaitingAtOnceShareTwoThreads) {
  // Each run: a plain node, then a node waiting at a gate until all thousand wait there, then a
  // plain node. Driven by ainvoke, no run holds a thread while its node waits: the thousand
  // waits overlap (a run holding one of the two threads would keep the gate shut).
  constexpr int kRuns = 1000;
  std::atomic<int> waiting{0}, peak{0};
  Gate gate(kRuns);
  std::mutex m;
  std::set<std::thread::id> threads;
  sp::StateGraph g(trace_schema());
  g.add_node("before", tracer("before"));
  g.add_node("wait", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    int now = ++waiting;
    for (int p = peak.load(); now > p && !peak.compare_exchange_weak(p, now);) {
    }
    const bool all_came = co_await gate.arrive(rt);
    EXPECT_TRUE(all_came) << "the gate opened after 60 s: not every run got there";
    --waiting;
    // (The last to arrive opened the gate and went on without suspending, on whatever thread
    // ran it, maybe the test's own: a timer makes every node resume where the pool runs it.)
    co_await sp::sleep_for(rt, 1ms);
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    co_return json{{"trace", {"wait"}}};
  });
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "before").add_edge("before", "wait").add_edge("wait", "after");
  auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(2)});
  std::vector<sp::Task<json>> runs;
  for (int i = 0; i < kRuns; ++i) runs.push_back(app.ainvoke(json{{"n", i}}));
  std::vector<json> results = sp::sync_wait(sp::when_all(std::move(runs)));
  ASSERT_EQ(results.size(), static_cast<std::size_t>(kRuns));
  for (int i = 0; i < kRuns; ++i) EXPECT_EQ(results[i], (json{{"n", i}, {"trace", {"before", "wait", "after"}}}));
  EXPECT_EQ(peak.load(), kRuns);     // every run was waiting at the same time
  EXPECT_LE(threads.size(), 2u);     // and they resumed on the pool's two threads
}

TEST(AsyncInvoke, ErrorsAndInterruptsReachTheAwaiter) {
  sp::StateGraph g(trace_schema());
  g.add_node("boom", [](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 1ms);
    if (s.get<int>("n") < 0) throw std::runtime_error("negative");
    co_return json{{"trace", {"boom"}}};
  });
  g.add_edge(sp::START, "boom");
  auto app = g.compile();
  EXPECT_THROW(sp::sync_wait(app.ainvoke(json{{"n", -1}})), sp::NodeError);
  std::vector<sp::Task<json>> runs;
  runs.push_back(app.ainvoke(json{{"n", 1}}));
  runs.push_back(app.ainvoke(json{{"n", -1}}));
  EXPECT_THROW(sp::sync_wait(sp::when_all(std::move(runs))), sp::NodeError);
  EXPECT_THROW(sp::sync_wait(app.ainvoke(json{{"nope", 1}})), sp::InvalidUpdateError);

  sp::StateGraph h(trace_schema());
  h.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"trace", {sp::interrupt(rt, "ok?").get<std::string>()}}};
  });
  h.add_edge(sp::START, "ask");
  auto paused_app = h.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg{.thread_id = "t"};
  json paused = sp::sync_wait(paused_app.ainvoke(json{{"n", 1}}, cfg));
  EXPECT_EQ(paused["__interrupt__"][0]["value"], "ok?");
  json done = sp::sync_wait(paused_app.ainvoke(sp::Command{.resume = "yes"}, cfg));
  EXPECT_EQ(done["trace"], json({"yes"}));
}

// --- astream: the stream as a coroutine ---

namespace {
sp::Task<std::vector<sp::StreamPart>> drain(sp::AsyncStream s, std::function<void(const sp::StreamPart&)> seen = {}) {
  std::vector<sp::StreamPart> parts;
  while (std::optional<sp::StreamPart> part = co_await s.next()) {
    if (seen) seen(*part);
    parts.push_back(std::move(*part));
  }
  co_return parts;
}
}  // namespace

TEST(AStream, APartEmittedInsideANodeArrivesWhileTheNodeStillRuns) {
  // The node emits a custom part, then waits (awaiting, holding no thread) until the consumer has
  // received it: if parts reached the consumer only at the step's end, the node would time out.
  std::atomic<bool> received{false};
  sp::StateGraph g(trace_schema());
  g.add_node("talk", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    rt.stream_writer(json{{"said", "hello"}});
    for (int i = 0; i < 2000 && !received; ++i) co_await sp::sleep_for(rt, 1ms);
    co_return json{{"trace", {received ? "heard" : "timed out"}}};
  });
  g.add_edge(sp::START, "talk");
  auto app = g.compile({.executor = pool(2)});
  auto parts = sp::sync_wait(drain(app.astream(json::object(), {}, {sp::StreamMode::custom, sp::StreamMode::updates}),
                                   [&](const sp::StreamPart& p) {
                                     if (p.mode == sp::StreamMode::custom) received = true;
                                   }));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].mode, sp::StreamMode::custom);
  EXPECT_EQ(parts[0].data, (json{{"said", "hello"}}));
  EXPECT_EQ(parts[1].mode, sp::StreamMode::updates);
  EXPECT_EQ(parts[1].data, (json{{"talk", {{"trace", {"heard"}}}}}));
}

TEST(AStream, GivesTheSamePartsAsStreamAndReportsTheRunsError) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "c");
  auto app = g.compile({.executor = pool(2)});
  std::vector<json> sync_parts, async_parts;
  for (const auto& p : app.stream(json{{"n", 1}}, {}, {sp::StreamMode::values})) sync_parts.push_back(p.data);
  for (const auto& p : sp::sync_wait(drain(app.astream(json{{"n", 1}}, {}, {sp::StreamMode::values}))))
    async_parts.push_back(p.data);
  EXPECT_EQ(async_parts, sync_parts);
  EXPECT_EQ(async_parts.back()["trace"], json({"a", "b", "c"}));

  sp::StateGraph bad(trace_schema());
  bad.add_node("boom", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 1ms);
    throw std::runtime_error("disk on fire");
  });
  bad.add_edge(sp::START, "boom");
  auto failing = bad.compile({.executor = pool(2)});
  EXPECT_THROW(sp::sync_wait(drain(failing.astream(json::object()))), sp::NodeError);
}

TEST(AStream, HundredsOfOpenStreamsShareTwoWorkerThreads) {
  // Every stream's node awaits a gate that opens once all of them wait there; all are suspended
  // at once, consumers included, on a two-worker executor (a consumer blocking a worker would
  // keep the gate shut).
  constexpr int kStreams = 300;
  std::atomic<int> waiting{0}, peak{0};
  Gate gate(kStreams);
  sp::StateGraph g(trace_schema());
  g.add_node("io", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    int w = ++waiting;
    int p = peak.load();
    while (w > p && !peak.compare_exchange_weak(p, w)) {
    }
    rt.stream_writer(json{{"waiting", true}});
    const bool all_came = co_await gate.arrive(rt);
    EXPECT_TRUE(all_came) << "the gate opened after 60 s: not every stream got there";
    --waiting;
    co_return json{{"trace", {"io"}}};
  });
  g.add_edge(sp::START, "io");
  auto app = g.compile({.executor = pool(2)});
  std::vector<sp::Task<std::vector<sp::StreamPart>>> streams;
  for (int i = 0; i < kStreams; ++i)
    streams.push_back(drain(app.astream(json::object(), {}, {sp::StreamMode::custom, sp::StreamMode::updates})));
  auto all = sp::sync_wait(sp::when_all(std::move(streams)));
  EXPECT_EQ(peak, kStreams);
  for (const auto& parts : all) EXPECT_EQ(parts.size(), 2u);
}

TEST(Coroutine, AGraphInvokedFromANodeOnItsPoolsOnlyWorkerStillResumesItsCoroutines) {
  // The outer step's two nodes wait for each other, so one runs on the caller's thread and the
  // other on the pool's only worker. Each invokes a graph of the same pool whose coroutine node
  // resumes through that pool: the worker, waiting for that inner step, runs the pool's jobs
  // meanwhile (before, it slept, and the continuation queued behind it never ran).
  auto workers = pool(1);
  sp::StateGraph inner(trace_schema());
  inner.add_node("wait", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 2ms);
    co_return json{{"trace", {"wait"}}};
  });
  inner.add_node("plain", tracer("plain"));
  inner.add_edge(sp::START, "wait").add_edge(sp::START, "plain");
  auto inner_app = inner.compile({.executor = workers});
  std::latch both_started(2);
  auto caller = [&](std::string name) {
    return [&, name](const sp::State&) -> sp::NodeResult {
      both_started.arrive_and_wait();
      json out = inner_app.invoke(json::object());
      return json{{"trace", {name + ":" + std::to_string(out["trace"].size())}}};
    };
  };
  sp::StateGraph outer(trace_schema());
  outer.add_node("left", caller("left")).add_node("right", caller("right"));
  outer.add_edge(sp::START, "left").add_edge(sp::START, "right");
  auto app = outer.compile({.executor = workers});
  auto run = std::async(std::launch::async, [&] { return app.invoke(json::object()); });
  if (run.wait_for(10s) != std::future_status::ready) {  // a hung run never returns: fail now
    std::fprintf(stderr, "the run hung\n");
    std::abort();
  }
  json trace = run.get()["trace"];
  std::multiset<std::string> got(trace.begin(), trace.end());
  EXPECT_EQ(got, (std::multiset<std::string>{"left:2", "right:2"}));
}
