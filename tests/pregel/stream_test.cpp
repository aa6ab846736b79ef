// Streaming: modes, interleaving, parts yielded while a node still runs, dropping a stream.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <superstep/messages/message.hpp>

#include "test_util.hpp"

using namespace testing_util;

// `messages` mode: a message the node was given is not shown when the node returns it again
// (edited, same id), as LangGraph's handler marks a node's input messages seen when it starts.
TEST(Stream, MessagesANodeWasGivenAreNotShownWhenItReturnsThem) {
  sp::StateGraph g(sp::messages_state());
  g.add_node("bot", [](const sp::State&) {
    return json{{"messages", {{{"type", "human"}, {"content", "hello (edited)"}, {"id", "h-1"}},
                              {{"type", "ai"}, {"content", "hi"}, {"id", "ai-1"}}}}};
  });
  g.add_edge(sp::START, "bot");
  std::vector<std::string> shown;
  for (const sp::StreamPart& p : g.compile().stream(json{{"messages", {{{"type", "human"}, {"content", "hello"}, {"id", "h-1"}}}}},
                                                    {}, {sp::StreamMode::messages}))
    shown.push_back(p.data[0]["id"].get<std::string>());
  EXPECT_EQ(shown, std::vector<std::string>{"ai-1"});
}

TEST(Stream, CustomPartsInterleaveWithUpdatesInEmissionOrder) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer({{"progress", 0.5}});
    rt.stream_writer({{"progress", 1.0}});
    return json{{"trace", {"a"}}};
  });
  g.add_node("b", [](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer("b-working");
    return json{{"trace", {"b"}}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "b");
  json parts = collect(g.compile().stream(json::object(), {}, {sp::StreamMode::custom, sp::StreamMode::updates}));
  EXPECT_EQ(parts, json::parse(R"([
    ["custom", {"progress": 0.5}], ["custom", {"progress": 1.0}], ["updates", {"a": {"trace": ["a"]}}],
    ["custom", "b-working"], ["updates", {"b": {"trace": ["b"]}}]
  ])"));
}

TEST(Stream, OnlyRequestedModesAreYielded) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer("ignored");
    return json{{"trace", {"a"}}};
  });
  g.add_edge(sp::START, "a");
  json parts = collect(g.compile().stream(json::object(), {}, {sp::StreamMode::updates}));
  EXPECT_EQ(parts, json::parse(R"([["updates", {"a": {"trace": ["a"]}}]])"));
}

TEST(Stream, SlowNodeDoesNotHoldBackPartsAlreadyProduced) {
  // The node writes a custom part, then blocks until the consumer has received it: if the
  // stream held parts back until the node finished, this would deadlock (bounded by a timeout).
  std::mutex m;
  std::condition_variable cv;
  bool received = false;
  bool timed_out = false;
  sp::StateGraph g(trace_schema());
  g.add_node("slow", [&](const sp::State&, sp::Runtime& rt) {
    rt.stream_writer("started");
    std::unique_lock lock(m);
    timed_out = !cv.wait_for(lock, std::chrono::seconds(10), [&] { return received; });
    return json{{"trace", {"slow"}}};
  });
  g.add_edge(sp::START, "slow");
  auto stream = g.compile().stream(json::object(), {}, {sp::StreamMode::custom, sp::StreamMode::updates});
  std::vector<std::string> modes;
  for (const auto& p : stream) {
    modes.emplace_back(sp::to_string(p.mode));
    if (p.mode == sp::StreamMode::custom) {
      std::lock_guard lock(m);
      received = true;
      cv.notify_all();
    }
  }
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(modes, (std::vector<std::string>{"custom", "updates"}));
}

TEST(Stream, TasksAndDebugModesDescribeEachTask) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  json parts = collect(g.compile().stream(json{{"n", 3}}, {}, {sp::StreamMode::tasks, sp::StreamMode::debug}));
  ASSERT_EQ(parts.size(), 4u);
  const json& start = parts[0][1];
  EXPECT_EQ(parts[0][0], "tasks");
  EXPECT_EQ(start["name"], "a");
  EXPECT_EQ(start["input"], (json{{"n", 3}}));  // "trace" has no default: no value until written
  EXPECT_EQ(start["triggers"], json({"branch:to:a"}));
  EXPECT_EQ(parts[1][0], "debug");
  EXPECT_EQ(parts[1][1]["type"], "task");
  EXPECT_EQ(parts[1][1]["step"], 1);
  EXPECT_EQ(parts[1][1]["payload"], start);
  const json& result = parts[2][0] == "tasks" ? parts[2][1] : parts[3][1];
  EXPECT_EQ(result["id"], start["id"]);
  EXPECT_EQ(result["result"], (json{{"trace", {"a"}}}));
  EXPECT_EQ(result["error"], nullptr);
}

// Parallel tasks finishing at the same moment on different threads: each task's `tasks` part is
// followed right away by its `debug` twin, never by another task's part (a CI run of the server
// suite once saw two tasks' parts interleave).
TEST(Stream, EachTasksPartIsFollowedByItsDebugTwinWhenTasksFinishTogether) {
  sp::StateGraph g(trace_schema());
  std::vector<std::string> names;
  for (int i = 0; i < 8; ++i) {
    names.push_back("n" + std::to_string(i));
    g.add_node(names.back(), tracer(names.back()));
    g.add_edge(sp::START, names.back());
  }
  auto app = g.compile({.executor = pool(4)});
  for (int run = 0; run < 200; ++run) {
    json parts = collect(app.stream(json::object(), {}, {sp::StreamMode::tasks, sp::StreamMode::debug}));
    ASSERT_EQ(parts.size(), 32u);
    for (std::size_t i = 0; i < parts.size(); i += 2) {
      ASSERT_EQ(parts[i][0], "tasks") << "run " << run << ", part " << i;
      ASSERT_EQ(parts[i + 1][0], "debug") << "run " << run << ", part " << i + 1;
      ASSERT_EQ(parts[i + 1][1]["payload"], parts[i][1]) << "run " << run << ", part " << i + 1;
    }
  }
}

TEST(Stream, TaskErrorAppearsInTasksModeThenStreamThrows) {
  sp::StateGraph g(trace_schema());
  g.add_node("bad", [](const sp::State&) -> json { throw std::runtime_error("kaput"); });
  g.add_edge(sp::START, "bad");
  auto stream = g.compile().stream(json::object(), {}, {sp::StreamMode::tasks});
  std::vector<json> seen;
  EXPECT_THROW(
      {
        for (const auto& p : stream) seen.push_back(p.data);
      },
      sp::NodeError);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1]["error"], "kaput");
}

// As LangGraph.js 1.7.3: the result of a task that paused lists the interrupts it paused on.
TEST(Stream, TasksModeShowsTheInterruptsATaskPausedOn) {
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {"ask:" + sp::interrupt(rt, "ok?").get<std::string>()}}};
  });
  g.add_edge(sp::START, "ask");
  auto app = g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg;
  cfg.thread_id = "t";
  std::vector<json> parts;
  for (auto& p : app.stream(json::object(), cfg, {sp::StreamMode::tasks})) parts.push_back(p.data);
  ASSERT_EQ(parts.size(), 2u);  // the start, then the result
  EXPECT_EQ(parts[1]["result"], json::object());
  ASSERT_EQ(parts[1]["interrupts"].size(), 1u);
  EXPECT_EQ(parts[1]["interrupts"][0]["value"], "ok?");
  parts.clear();
  for (auto& p : app.stream(sp::Command{.resume = "yes"}, cfg, {sp::StreamMode::tasks})) parts.push_back(p.data);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1]["result"], (json{{"trace", {"ask:yes"}}}));
  EXPECT_EQ(parts[1]["interrupts"], json::array());
}

TEST(Stream, MultipleModesOnParallelStepKeepValuesAfterUpdates) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  json parts = collect(g.compile().stream(json{{"n", 0}}, {}, {sp::StreamMode::values, sp::StreamMode::updates}));
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], json::parse(R"(["values", {"n": 0}])"));
  std::set<std::string> updated;
  for (int i : {1, 2}) {
    EXPECT_EQ(parts[i][0], "updates");
    updated.insert(parts[i][1].begin().key());
  }
  EXPECT_EQ(updated, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(parts[3], json::parse(R"(["values", {"n": 0, "trace": ["a", "b"]}])"));
}

TEST(Stream, ResultAfterExhaustion) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  auto stream = g.compile().stream(json::object(), {}, {sp::StreamMode::updates});
  for (const auto& p : stream) (void)p;
  EXPECT_EQ(stream.result(), (json{{"trace", {"a"}}}));
}

TEST(Stream, DroppingAStreamMidRunStopsItCleanly) {
  std::atomic<int> runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("loop", [&](const sp::State&, sp::Runtime& rt) {
    ++runs;
    rt.stream_writer(runs.load());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return json{{"trace", {"x"}}};
  });
  g.add_edge(sp::START, "loop").add_edge("loop", "loop");
  {
    auto stream = g.compile().stream(json::object(), {.recursion_limit = 1000}, {sp::StreamMode::custom});
    int n = 0;
    for (const auto& p : stream) {
      (void)p;
      if (++n == 3) break;
    }
  }
  int after = runs;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(runs, after);  // nothing keeps running after the stream is gone
  EXPECT_LE(after, 4);
}
