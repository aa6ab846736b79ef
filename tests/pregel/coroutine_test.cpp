// Coroutine nodes: they await without holding a worker thread, compose, fail and retry like
// plain nodes, and give the same results.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

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
