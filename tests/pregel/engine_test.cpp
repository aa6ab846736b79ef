// The execution contract (docs/semantics.md), each case asserting the exact outcome.
#include <gtest/gtest.h>

#include <stop_token>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "test_util.hpp"

using namespace testing_util;

TEST(Engine, LinearChainStreamsUpdatesAndValuesInOrder) {
  sp::StateGraph g(trace_schema());
  g.add_sequence({{"a", tracer("a")}, {"b", tracer("b")}, {"c", tracer("c")}});
  g.add_edge(sp::START, "a").add_edge("c", sp::END);
  auto app = g.compile();
  json parts = collect(app.stream(json{{"n", 1}}, {}, {sp::StreamMode::updates, sp::StreamMode::values}));
  // "trace" has no default: as in LangGraph (an annotation without `default`), it has no value
  // until a node writes it.
  json expected = json::parse(R"([
    ["values", {"n": 1}],
    ["updates", {"a": {"trace": ["a"]}}], ["values", {"trace": ["a"], "n": 1}],
    ["updates", {"b": {"trace": ["b"]}}], ["values", {"trace": ["a","b"], "n": 1}],
    ["updates", {"c": {"trace": ["c"]}}], ["values", {"trace": ["a","b","c"], "n": 1}]
  ])");
  EXPECT_EQ(parts, expected);
  EXPECT_EQ(app.invoke(json{{"n", 1}}), (json{{"trace", {"a", "b", "c"}}, {"n", 1}}));
}

TEST(Engine, ReducersWithDefaults) {
  sp::StateSchema s;
  s.field("total", sp::reducers::add, 100)
      .field("words", sp::reducers::add, "")
      .field("tags", sp::reducers::merge)
      .field("custom", sp::Reducer([](json a, json b) { return a.get<int>() * b.get<int>(); }, "mul"), 1);
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State&) {
    return json{{"total", 5}, {"words", "hello"}, {"tags", {{"x", 1}}}, {"custom", 3}};
  });
  g.add_node("b", [](const sp::State& st) {
    EXPECT_EQ(st.get<int>("total"), 105);
    return json{{"total", 1.5}, {"words", " world"}, {"tags", {{"y", 2}}}, {"custom", 4}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "b");
  json out = g.compile().invoke(json::object());
  EXPECT_EQ(out, (json{{"total", 106.5}, {"words", "hello world"}, {"tags", {{"x", 1}, {"y", 2}}}, {"custom", 12}}));
}

TEST(Engine, InputGoesThroughReducers) {
  sp::StateSchema s;
  s.field("total", sp::reducers::add, 10);
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State&) { return json{{"total", 1}}; });
  g.add_edge(sp::START, "a");
  EXPECT_EQ(g.compile().invoke(json{{"total", 5}}), (json{{"total", 16}}));
}

TEST(Engine, FanOutFanInRunsJoinNodeOnce) {
  std::atomic<int> join_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_node("join", [&](const sp::State&) {
    ++join_runs;
    return json{{"trace", {"join"}}};
  });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
  g.add_edge({"a", "b", "c"}, "join");
  json out = g.compile().invoke(json::object());
  EXPECT_EQ(out["trace"], json({"a", "b", "c", "join"}));
  EXPECT_EQ(join_runs, 1);
}

TEST(Engine, FanInWithPlainEdgesOnEqualBranchesRunsOnce) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "c").add_edge("b", "c");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "c"}));
}

TEST(Engine, UnevenBranchesWithoutJoinRunTargetTwice) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("b2", tracer("b2")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge("a", "c").add_edge("b2", "c");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "b2", "c", "c"}));
}

TEST(Engine, UnevenBranchesWithJoinRunTargetOnce) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("b2", tracer("b2")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge({"a", "b2"}, "c");
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json::object())["trace"], json({"a", "b", "b2", "c"}));
  // The join resets: a second lap through the same graph joins again.
  EXPECT_EQ(app.invoke(json::object())["trace"], json({"a", "b", "b2", "c"}));
}

TEST(Engine, JoinInALoopFiresOncePerLap) {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append).field("laps", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("fork", [](const sp::State&) { return json{{"laps", 1}}; });
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("j", tracer("j"));
  g.add_edge(sp::START, "fork").add_edge("fork", "a").add_edge("fork", "b").add_edge({"a", "b"}, "j");
  g.add_conditional_edges("j", [](const sp::State& st) { return st.get<int>("laps") < 3 ? "fork" : sp::END; });
  json out = g.compile().invoke(json::object());
  EXPECT_EQ(out["trace"], json({"a", "b", "j", "a", "b", "j", "a", "b", "j"}));
}

TEST(Engine, ParallelLastValueConflictIsInvalidUpdateNamingKeyAndNodes) {
  sp::StateGraph g(trace_schema());
  g.add_node("left", [](const sp::State&) { return json{{"n", 5}}; });
  g.add_node("right", [](const sp::State&) { return json{{"n", 6}}; });
  g.add_edge(sp::START, "left").add_edge(sp::START, "right");
  try {
    g.compile().invoke(json{{"n", 1}});
    FAIL() << "expected InvalidUpdateError";
  } catch (const sp::InvalidUpdateError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("at key 'n'"), std::string::npos) << what;
    EXPECT_NE(what.find("'left', 'right'"), std::string::npos) << what;
    EXPECT_NE(what.find("[5,6]"), std::string::npos) << what;
  }
}

TEST(Engine, ParallelWritesToReducerKeyFoldInNodeNameOrder) {
  for (std::size_t workers : {1u, 2u, 8u}) {
    sp::StateGraph g(trace_schema());
    // Names chosen so completion order (z sleeps least) differs from name order.
    for (std::string name : {"z", "m", "a"}) {
      int delay = name == "a" ? 30 : name == "m" ? 15 : 0;
      g.add_node(name, [name, delay](const sp::State&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        return json{{"trace", {name}}};
      });
      g.add_edge(sp::START, name);
    }
    auto app = g.compile({.executor = pool(workers)});
    EXPECT_EQ(app.invoke(json::object())["trace"], json({"a", "m", "z"})) << workers << " workers";
  }
}

TEST(Engine, ConditionalEdgesWithPathMap) {
  sp::StateGraph g(trace_schema());
  g.add_node("start", tracer("start")).add_node("yes", tracer("yes")).add_node("no", tracer("no"));
  g.add_edge(sp::START, "start");
  g.add_conditional_edges("start", [](const sp::State& s) { return s.get<int>("n") > 0 ? "positive" : "other"; },
                          {{"positive", "yes"}, {"other", "no"}});
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json{{"n", 1}})["trace"], json({"start", "yes"}));
  EXPECT_EQ(app.invoke(json{{"n", -1}})["trace"], json({"start", "no"}));
}

TEST(Engine, ConditionalEdgesRouterKeyMissingFromPathMapIsAnError) {
  sp::StateGraph g(trace_schema());
  g.add_node("start", tracer("start")).add_node("yes", tracer("yes"));
  g.add_edge(sp::START, "start");
  g.add_conditional_edges("start", [](const sp::State&) { return "maybe"; }, {{"positive", "yes"}});
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("returned 'maybe', which is not in its path map (keys: positive)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Engine, ConditionalEdgesWithListEndAndMultipleDestinations) {
  sp::StateGraph g(trace_schema());
  g.add_node("r", tracer("r")).add_node("x", tracer("x")).add_node("y", tracer("y")).add_node("z", tracer("z"));
  g.add_edge(sp::START, "r");
  g.add_conditional_edges(
      "r",
      [](const sp::State& s) -> sp::Route {
        int n = s.get<int>("n");
        if (n == 0) return sp::END;
        if (n == 1) return std::vector<std::string>{"z", "x"};
        return "y";
      },
      std::vector<std::string>{"x", "y", "z", sp::END});
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json{{"n", 0}})["trace"], json({"r"}));
  EXPECT_EQ(app.invoke(json{{"n", 1}})["trace"], json({"r", "x", "z"}));  // same step, name order
  EXPECT_EQ(app.invoke(json{{"n", 2}})["trace"], json({"r", "y"}));
}

TEST(Engine, RouterToUnknownNodeIsAnErrorNamingIt) {
  sp::StateGraph g(trace_schema());
  g.add_node("r", tracer("r"));
  g.add_edge(sp::START, "r");
  g.add_conditional_edges("r", [](const sp::State&) { return "nowhere"; });
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("router of node 'r' returned unknown node 'nowhere'"), std::string::npos)
        << e.what();
  }
}

TEST(Engine, RouterSeesOwnWritesButNotSiblings) {
  json seen_by_a, seen_by_b;
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) { return json{{"n", 5}, {"trace", {"a"}}}; });
  g.add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  g.add_conditional_edges("a", [&](const sp::State& s) {
    seen_by_a = s.to_json();
    return sp::END;
  });
  g.add_conditional_edges("b", [&](const sp::State& s) {
    seen_by_b = s.to_json();
    return sp::END;
  });
  json out = g.compile().invoke(json{{"n", 1}});
  EXPECT_EQ(seen_by_a, (json{{"trace", {"a"}}, {"n", 5}}));
  EXPECT_EQ(seen_by_b, (json{{"trace", {"b"}}, {"n", 1}}));
  EXPECT_EQ(out, (json{{"trace", {"a", "b"}}, {"n", 5}}));
}

TEST(Engine, ConditionalEntryPoint) {
  sp::StateGraph g(trace_schema());
  g.add_node("x", tracer("x")).add_node("y", tracer("y"));
  g.set_conditional_entry_point([](const sp::State& s) { return s.get<int>("n") ? "x" : "y"; });
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json{{"n", 1}})["trace"], json({"x"}));
  EXPECT_EQ(app.invoke(json{{"n", 0}})["trace"], json({"y"}));
}

TEST(Engine, SendMapReduceKeepsSendOrder) {
  sp::StateSchema s;
  s.field("items").field("results", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("worker", [](const sp::State& st) {
    int i = st.get<int>("i");
    std::this_thread::sleep_for(std::chrono::milliseconds((10 - i) * 2));  // finish in reverse order
    return json{{"results", {i * 10}}};
  });
  g.add_node("reduce", [](const sp::State& st) {
    int sum = 0;
    for (const auto& v : st["results"]) sum += v.get<int>();
    return json{{"results", {sum}}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State& st) {
    std::vector<sp::Send> sends;
    for (const auto& i : st["items"]) sends.push_back({"worker", json{{"i", i}}});
    return sends;
  });
  g.add_edge("worker", "reduce");
  json out = g.compile().invoke(json{{"items", {1, 2, 3, 4, 5}}});
  EXPECT_EQ(out["results"], json({10, 20, 30, 40, 50, 150}));
}

TEST(Engine, PullTasksApplyBeforePushTasks) {
  // LangGraph sorts task paths: __pregel_pull < __pregel_push.
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("z", tracer("z"));
  g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + std::to_string(s.get<int>("i"))}}}; });
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State&) {
    return sp::Route{sp::Send{"w", {{"i", 1}}}, sp::Send{"w", {{"i", 2}}}, std::string("z"), std::string("b")};
  });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "z", "w1", "w2"}));
}

TEST(Engine, CommandGotoAndUpdate) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) {
    return sp::Command{.update = {{"trace", {"a"}}}, .go_to = {std::string("b"), sp::Send{"c", {{"n", 7}}}}};
  }, {.ends = {"b", "c"}});
  g.add_node("b", tracer("b"));
  g.add_node("c", [](const sp::State& s) { return json{{"trace", {"c" + std::to_string(s.get<int>("n"))}}}; });
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json::object())["trace"], json({"a", "b", "c7"}));
  json parts = collect(app.stream(json::object(), {}, {sp::StreamMode::updates}));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], json::parse(R"(["updates", {"a": {"trace": ["a"]}}])"));
  EXPECT_TRUE(app.warnings().empty());
}

TEST(Engine, CommandToUnknownNodeIsAnError) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) { return sp::Command{.go_to = "ghost"}; });
  g.add_edge(sp::START, "a");
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'a' returned Command going to unknown node 'ghost'"), std::string::npos)
        << e.what();
  }
}

// A node returning a list with a Command (LangGraph's array return; ToolNode's when tools return
// Commands). Each figure below is what LangGraph.js 1.7.3 prints for the same graph.
TEST(Engine, ANodeReturningAListWithACommandWritesEachItemInOrder) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&) -> sp::NodeResult {
    return std::vector<sp::ResultItem>{json{{"trace", {"x"}}},
                                       sp::Command{.update = {{"trace", {"y"}}, {"n", 1}}, .go_to = "b"}};
  }, {.ends = {"b"}});
  g.add_node("b", tracer("b"));
  g.add_node("c", [](const sp::State&) -> sp::NodeResult {
    return std::vector<sp::ResultItem>{json{{"n", 2}}, sp::Command{.update = {{"trace", {"c"}}}}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "c");
  auto app = g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg{.thread_id = "t"};
  json parts = collect(app.stream(json{{"n", 0}}, cfg, {sp::StreamMode::updates, sp::StreamMode::tasks}));
  json updates = json::array(), results = json::array();
  for (const json& p : parts)
    if (p[0] == "updates") updates.push_back(p[1]);
    else if (p[1].contains("result")) results.push_back(json::array({p[1]["name"], p[1]["result"]}));
  // `trace` written twice by `a`: one object per write; `c` wrote each key once: one object.
  // (The Command's writes come in its update's key order: "n" first here, where LangGraph.js
  // keeps the order the object was built in.) `b` and `c` run in one step, each streamed as it
  // finishes (as LangGraph): their order is the order they happened to finish in.
  ASSERT_EQ(updates.size(), 3u) << updates.dump();
  if (updates[1].contains("c")) std::swap(updates[1], updates[2]);
  EXPECT_EQ(updates, json::parse(R"([{"a": [{"trace": ["x"]}, {"n": 1}, {"trace": ["y"]}]},
                                     {"b": {"trace": ["b"]}}, {"c": {"n": 2, "trace": ["c"]}}])"))
      << updates.dump();
  json a_result = json::parse(R"({"trace": {"$writes": [["x"], ["y"]]}, "n": 1})");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0], json::array({"a", a_result}));
  EXPECT_EQ(app.get_state(cfg).values, (json{{"trace", {"x", "y", "b", "c"}}, {"n", 2}}));
  // The snapshot of the step `a` ran in shows the same result.
  bool seen = false;
  for (const sp::StateSnapshot& s : app.get_state_history(cfg))
    for (const sp::PregelTask& t : s.tasks)
      if (t.name == "a") {
        seen = true;
        EXPECT_EQ(t.result, a_result);
      }
  EXPECT_TRUE(seen);
}

TEST(Engine, AListWritingAPlainKeyTwiceOrHoldingNoCommandIsAnError) {
  auto run = [](std::vector<sp::ResultItem> r) {
    sp::StateGraph g(trace_schema());
    g.add_node("a", [r](const sp::State&) -> sp::NodeResult { return r; });
    g.add_edge(sp::START, "a");
    try {
      g.compile().invoke(json::object());
    } catch (const sp::InvalidUpdateError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string twice = run(std::vector<sp::ResultItem>{json{{"n", 1}}, sp::Command{.update = {{"n", 2}}}});
  EXPECT_NE(twice.find("'n'"), std::string::npos) << twice;
  std::string no_command = run(std::vector<sp::ResultItem>{json{{"n", 1}}, json{{"trace", {"q"}}}});
  EXPECT_NE(no_command.find("node 'a' returned a list holding no Command"), std::string::npos) << no_command;
  EXPECT_NE(run({}).find("holding no Command"), std::string::npos);
}

TEST(Engine, AListsCommandForTheParentGoesUpAndItsOtherItemsAreNotApplied) {
  sp::StateGraph sub(trace_schema());
  sub.add_node("s", [](const sp::State&) -> sp::NodeResult {
    return std::vector<sp::ResultItem>{json{{"trace", {"inner"}}},
                                       sp::Command{.update = {{"trace", {"up"}}}, .go_to = "z", .graph = sp::Command::PARENT}};
  });
  sub.add_edge(sp::START, "s");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", sub.compile(), {.ends = {"z"}});
  g.add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"up", "z"}));
}

namespace {
// A loop that runs `a` until n reaches 4: 5 supersteps in all (the __start__ step and 4 of a).
sp::CompiledStateGraph counting_loop() {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}}; });
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State& s) { return s.get<int>("n") >= 4 ? sp::END : "a"; });
  return g.compile();
}
}  // namespace

TEST(Engine, RecursionLimitAtTheExactBoundary) {
  auto app = counting_loop();
  // Same boundary as LangGraph.js 1.x: limit 5 succeeds, limit 4 fails.
  EXPECT_EQ(app.invoke(json{{"n", 0}}, {.recursion_limit = 5})["n"], 4);
  try {
    app.invoke(json{{"n", 0}}, {.recursion_limit = 4});
    FAIL() << "expected GraphRecursionError";
  } catch (const sp::GraphRecursionError& e) {
    EXPECT_NE(std::string(e.what()).find("Recursion limit of 4 reached"), std::string::npos) << e.what();
  }
  EXPECT_THROW(app.invoke(json{{"n", 0}}, {.recursion_limit = 0}), sp::Error);
}

TEST(Engine, RetryThenSuccess) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("flaky", [&](const sp::State&) {
    if (++calls < 3) throw std::runtime_error("temporary outage");
    return json{{"trace", {"ok"}}};
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 3, .jitter = false}});
  g.add_edge(sp::START, "flaky");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"ok"}));
  EXPECT_EQ(calls, 3);
}

TEST(Engine, RetryExhaustedRaisesNodeErrorWithCause) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("flaky", [&](const sp::State&) -> json {
    ++calls;
    throw std::runtime_error("still down");
  });
  g.add_edge(sp::START, "flaky");
  auto app = g.compile({.retry_policy = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 2, .jitter = false}});
  try {
    app.invoke(json::object());
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "flaky");
    EXPECT_EQ(e.step(), 1);
    EXPECT_EQ(e.task_id().size(), 36u);
    EXPECT_NE(std::string(e.what()).find("still down"), std::string::npos);
    EXPECT_THROW(std::rethrow_exception(e.cause()), std::runtime_error);
  }
  EXPECT_EQ(calls, 2);
}

TEST(Engine, RetryOnPredicateAndEngineErrorsAreNotRetried) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("bad", [&](const sp::State&) {
    ++calls;
    return json{{"nope", 1}};  // InvalidUpdateError: never retried
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 5}});
  g.add_edge(sp::START, "bad");
  EXPECT_THROW(g.compile().invoke(json::object()), sp::InvalidUpdateError);
  EXPECT_EQ(calls, 1);

  calls = 0;
  sp::StateGraph g2(trace_schema());
  g2.add_node("picky", [&](const sp::State&) -> json {
    ++calls;
    throw std::invalid_argument("bad argument");
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 5}});
  g2.add_edge(sp::START, "picky");
  EXPECT_THROW(g2.compile().invoke(json::object()), sp::NodeError);
  EXPECT_EQ(calls, 1);  // logic_error is not retried by default
}

TEST(Engine, DeferredNodeRunsWhenNothingElseWould) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("a2", tracer("a2")).add_node("b", tracer("b"));
  g.add_node("d", tracer("d"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "a2").add_edge("a2", "d").add_edge("b", "d");
  // Same as LangGraph.js: d runs once, after the longer branch.
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "a2", "d"}));
}

TEST(Engine, DeferredJoin) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("b2", tracer("b2")).add_node("b3", tracer("b3"));
  g.add_node("d", tracer("d"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge("b2", "b3");
  g.add_edge({"a", "b"}, "d");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "b2", "b3", "d"}));
}

TEST(Engine, UnknownKeyInUpdateNamesNodeAndKeys) {
  sp::StateGraph g(trace_schema());
  g.add_node("plan", [](const sp::State&) { return json{{"totl", 1}}; });
  g.add_edge(sp::START, "plan");
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'plan' wrote unknown key 'totl' (state keys: trace, n)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Engine, UnknownKeyInInputIsAnError) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  try {
    g.compile().invoke(json{{"nn", 1}});
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("input has unknown key 'nn'"), std::string::npos) << e.what();
  }
}

TEST(Engine, NodeReturningSomethingThatIsNotAnUpdate) {
  for (json bad : {json(42), json("text"), json::array({1})}) {
    sp::StateGraph g(trace_schema());
    g.add_node("odd", [bad](const sp::State&) { return bad; });
    g.add_edge(sp::START, "odd");
    try {
      g.compile().invoke(json::object());
      FAIL() << bad;
    } catch (const sp::InvalidUpdateError& e) {
      EXPECT_NE(std::string(e.what()).find("node 'odd' returned " + bad.dump() + ", expected an object"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Engine, NodeReturningNothingIsAnEmptyUpdate) {
  sp::StateGraph g(trace_schema());
  g.add_node("quiet", [](const sp::State&) {});
  g.add_edge(sp::START, "quiet");
  json parts = collect(g.compile().stream(json{{"n", 1}}, {}, {sp::StreamMode::updates, sp::StreamMode::values}));
  // As LangGraph: a step that wrote nothing streams no `values` part.
  EXPECT_EQ(parts, json::parse(R"([["values", {"n": 1}], ["updates", {"quiet": null}]])"));
}

TEST(Engine, NullInputIsEmptyInputErrorEmptyObjectIsFine) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  EXPECT_THROW(app.invoke(nullptr), sp::EmptyInputError);
  EXPECT_THROW(app.invoke(json(3)), sp::InvalidUpdateError);
  EXPECT_EQ(app.invoke(json::object()), (json{{"trace", {"a"}}}));
}

TEST(Engine, MissingKeyReadIsKeyErrorWrappedInNodeError) {
  sp::StateGraph g(trace_schema());
  g.add_node("reader", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}}; });
  g.add_edge(sp::START, "reader");
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_NE(std::string(e.what()).find("state has no value for key 'n'"), std::string::npos) << e.what();
    EXPECT_THROW(std::rethrow_exception(e.cause()), sp::KeyError);
  }
}

TEST(Engine, FailingTaskLetsItsSiblingsRunAndStepIsNotApplied) {
  std::atomic<int> started{0}, told{0};
  sp::StateGraph g(trace_schema());
  g.add_node("boom", [](const sp::State&) -> json { throw std::runtime_error("boom"); });
  for (int i = 0; i < 20; ++i) {
    std::string name = "w" + std::to_string(100 + i);
    g.add_node(name, [&](const sp::State&, sp::Runtime& rt) {
      ++started;
      if (rt.cancelled()) ++told;
      return json{{"trace", {"w"}}};
    });
    g.add_edge(sp::START, name);
    g.add_edge(name, "after");
  }
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "boom");
  auto app = g.compile({.executor = pool(1)});
  std::vector<sp::StreamPart> parts;
  try {
    for (auto& p : app.stream(json{{"n", 1}}, {.max_concurrency = 1}, {sp::StreamMode::values})) parts.push_back(p);
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "boom");
  }
  // "boom" sorts first and runs first with one worker; every sibling still runs (as in LangGraph,
  // which starts them all), told that the step failed; the step is not applied, so "after" never
  // runs and the only state seen is the input's.
  EXPECT_EQ(started, 20);
  EXPECT_EQ(told, 20);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].data, json({{"n", 1}}));
}

TEST(Engine, InputAndOutputKeySubsets) {
  sp::StateSchema s;
  s.field("public").field("secret").field("out");
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State& st) {
    EXPECT_FALSE(st.contains("secret"));
    return json{{"out", st["public"]}};
  }, {.input_keys = {"public"}, .output_keys = {"out"}});
  g.add_node("b", [](const sp::State&) { return json{{"secret", 1}}; }, {.output_keys = {"out"}});
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  EXPECT_EQ(app.invoke(json{{"public", 1}, {"secret", 2}}), (json{{"public", 1}, {"secret", 2}, {"out", 1}}));
  sp::StateGraph g2(s);
  g2.add_node("b", [](const sp::State&) { return json{{"secret", 1}}; }, {.output_keys = {"out"}});
  g2.add_edge(sp::START, "b");
  EXPECT_THROW(g2.compile().invoke(json::object()), sp::InvalidUpdateError);
}

TEST(Engine, ResultsIdenticalFor1And2And8Workers) {
  auto build = [](std::size_t workers) {
    sp::StateSchema s;
    s.field("log", sp::reducers::append).field("sum", sp::reducers::add, 0);
    sp::StateGraph g(s);
    for (int i = 0; i < 12; ++i) {
      std::string name = "n" + std::to_string(i);
      g.add_node(name, [name, i](const sp::State&) {
        std::this_thread::sleep_for(std::chrono::microseconds((12 - i) * 300));
        return json{{"log", {name}}, {"sum", i}};
      });
      g.add_edge(sp::START, name);
      g.add_edge(name, "fan");
    }
    g.add_node("fan", [](const sp::State& st) {
      std::vector<sp::Send> sends;
      return json{{"log", {"fan:" + std::to_string(st["log"].size())}}};
    });
    g.add_conditional_edges("fan", [](const sp::State& st) {
      std::vector<sp::Send> sends;
      if (st["log"].size() < 20)
        for (int k = 0; k < 5; ++k) sends.push_back({"leaf", json{{"k", k}}});
      return sends;
    });
    g.add_node("leaf", [](const sp::State& st) { return json{{"log", {"leaf" + st["k"].dump()}}, {"sum", 100}}; });
    return g.compile({.executor = pool(workers)});
  };
  json reference = build(1).invoke(json::object(), {.max_concurrency = 1});
  EXPECT_EQ(reference["sum"], 66 + 500);
  for (std::size_t w : {1u, 2u, 8u}) {
    for (int limit : {0, 1, 3}) {
      EXPECT_EQ(build(w).invoke(json::object(), {.max_concurrency = limit}), reference) << w << " workers, limit " << limit;
    }
  }
}

TEST(Engine, MaxConcurrencyCapsTasksInFlight) {
  std::atomic<int> now{0}, peak{0};
  sp::StateGraph g(trace_schema());
  for (int i = 0; i < 10; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [&](const sp::State&) {
      int v = ++now;
      int p = peak.load();
      while (v > p && !peak.compare_exchange_weak(p, v)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --now;
      return json{{"trace", {"x"}}};
    });
    g.add_edge(sp::START, name);
  }
  auto app = g.compile({.executor = pool(8)});
  app.invoke(json::object(), {.max_concurrency = 2});
  EXPECT_LE(peak, 2);
  EXPECT_GE(peak, 1);
}

TEST(Engine, CompiledGraphIsSafeToInvokeFromManyThreads) {
  auto app = counting_loop();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i)
        if (app.invoke(json{{"n", 0}})["n"] == 4) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 400);
}

TEST(Engine, NodesAndSubgraphNodesReadTheRunsContext) {
  std::vector<json> seen;
  std::mutex m;
  auto reader = [&](const std::string& name) {
    return [&, name](const sp::State&, sp::Runtime& rt) {
      std::lock_guard lock(m);
      seen.push_back({{"node", name}, {"context", rt.context()}});
      return json{};
    };
  };
  sp::StateGraph child(trace_schema());
  child.add_node("inner", reader("inner"));
  child.add_edge(sp::START, "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("outer", reader("outer")).add_node("sub", child.compile());
  g.add_edge(sp::START, "outer").add_edge("outer", "sub");
  auto app = g.compile();
  app.invoke(json::object(), {.context = {{"user_id", "u-7"}}});
  EXPECT_EQ(seen, (std::vector<json>{{{"node", "outer"}, {"context", {{"user_id", "u-7"}}}},
                                     {{"node", "inner"}, {"context", {{"user_id", "u-7"}}}}}));
  seen.clear();
  app.invoke(json::object());  // none given: an empty object
  EXPECT_EQ(seen.front()["context"], json::object());
}

TEST(Engine, AStopRequestedDuringAStepEndsTheRunAtTheNextBoundaryWithThatStepApplied) {
  std::stop_source stop;
  bool saw_cancelled = false;
  int c_ran = 0;
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("b", [&](const sp::State&, sp::Runtime& rt) {
    stop.request_stop();
    saw_cancelled = rt.cancelled();  // nodes may stop early
    return json{{"trace", {"b"}}};
  });
  g.add_node("c", [&](const sp::State&) {
    ++c_ran;
    return json{{"trace", {"c"}}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile();
  std::vector<json> values;
  try {
    for (const auto& part : app.stream(json::object(), {.stop = stop.get_token()}, {sp::StreamMode::values}))
      values.push_back(part.data);
    FAIL() << "the run was not stopped";
  } catch (const sp::RunCancelledError& e) {
    EXPECT_NE(std::string(e.what()).find("RunConfig::stop"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(saw_cancelled);
  EXPECT_EQ(c_ran, 0);
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(values.back()["trace"], json({"a", "b"}));  // b's step was applied and shown
}

TEST(Engine, AStopInsideASubgraphStopsTheParentWithTheSameError) {
  std::stop_source stop;
  int after_ran = 0;
  sp::StateGraph child(trace_schema());
  child.add_node("inner1", [&](const sp::State&) {
    stop.request_stop();
    return json{{"trace", {"inner1"}}};
  });
  child.add_node("inner2", tracer("inner2"));
  child.add_edge(sp::START, "inner1").add_edge("inner1", "inner2");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", child.compile()).add_node("after", [&](const sp::State&) {
    ++after_ran;
    return json{};
  });
  g.add_edge(sp::START, "sub").add_edge("sub", "after");
  // Not a NodeError of "sub": the run as a whole was stopped.
  EXPECT_THROW(g.compile().invoke(json::object(), {.stop = stop.get_token()}), sp::RunCancelledError);
  EXPECT_EQ(after_ran, 0);
}

TEST(Engine, AStopRequestedBeforeTheRunStartsRunsNoNodeAndOneAfterTheLastStepEndsNormally) {
  int ran = 0;
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) {
    ++ran;
    return json{{"trace", {"a"}}};
  });
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_THROW(app.invoke(json::object(), {.stop = stopped.get_token()}), sp::RunCancelledError);
  EXPECT_EQ(ran, 0);
  // Requested in the last step: nothing is left to plan, so the run simply ends.
  std::stop_source late;
  sp::StateGraph h(trace_schema());
  h.add_node("a", [&](const sp::State&) {
    late.request_stop();
    return json{{"trace", {"a"}}};
  });
  h.add_edge(sp::START, "a");
  EXPECT_EQ(h.compile().invoke(json::object(), {.stop = late.get_token()})["trace"], json({"a"}));
}

TEST(Engine, RuntimeExposesStepNodeTaskIdAndConfig) {
  json seen;
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&, sp::Runtime& rt) {
    seen = {{"step", rt.step()}, {"node", rt.node()}, {"id", rt.task_id()}, {"user", rt.config().configurable["user"]}};
    return json{};
  });
  g.add_edge(sp::START, "a");
  g.compile().invoke(json::object(), {.configurable = {{"user", "ada"}}});
  EXPECT_EQ(seen["step"], 1);
  EXPECT_EQ(seen["node"], "a");
  EXPECT_EQ(seen["user"], "ada");
  EXPECT_EQ(seen["id"].get<std::string>().size(), 36u);
}

// Node caching (cache.hpp); the stream parts of hits are checked against LangGraph.js by
// tests/differential (cache_node, cache_node_checkpointed).
TEST(NodeCache, AHitSkipsTheNodeByInputKeyUntilItsTtlOrAClear) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  auto other = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("slow", [runs](const sp::State& s) {
    ++*runs;
    return json{{"trace", {"slow" + std::to_string(s.get<int>("n"))}}};
  }, {.cache_policy = sp::CachePolicy{.ttl = 0.5}});
  // Keyed by `n` alone: the trace it is given does not matter.
  g.add_node("keyed", [other](const sp::State&) {
    ++*other;
    return json{{"trace", {"keyed"}}};
  }, {.cache_policy = sp::CachePolicy{.key_func = [](const json& in) { return in["n"].dump(); }}});
  g.add_edge(sp::START, "slow").add_edge("slow", "keyed");
  auto cache = std::make_shared<sp::InMemoryCache>();
  auto app = g.compile({.cache = cache});
  EXPECT_EQ(app.invoke(json{{"n", 1}})["trace"], json({"slow1", "keyed"}));
  EXPECT_EQ(app.invoke(json{{"n", 1}})["trace"], json({"slow1", "keyed"}));  // both from the cache
  EXPECT_EQ(runs->load(), 1);
  EXPECT_EQ(other->load(), 1);
  app.invoke(json{{"n", 2}});
  EXPECT_EQ(runs->load(), 2);
  EXPECT_EQ(other->load(), 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // slow's entries expired, keyed's not
  app.invoke(json{{"n", 1}});
  EXPECT_EQ(runs->load(), 3);
  EXPECT_EQ(other->load(), 2);
  app.clear_cache({"keyed"});
  app.invoke(json{{"n", 1}});
  EXPECT_EQ(runs->load(), 3);
  EXPECT_EQ(other->load(), 3);
  app.clear_cache();
  EXPECT_EQ(cache->size(), 0u);
  // Without a cache the policy does nothing.
  auto uncached = g.compile();
  uncached.invoke(json{{"n", 1}});
  uncached.invoke(json{{"n", 1}});
  EXPECT_EQ(runs->load(), 5);
}

TEST(NodeCache, FailuresAndInterruptsAreNotCachedButCommandsAre) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph g(trace_schema());
  g.add_node("a", [calls](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    ++*calls;
    if (s.get<int>("n") == 0) throw std::runtime_error("boom");
    if (s.get<int>("n") == 1) sp::interrupt(rt, "ok?");
    return sp::Command{.update = {{"trace", {"a"}}}, .go_to = "b"};
  }, {.ends = {"b"}, .cache_policy = sp::CachePolicy{}});
  g.add_node("b", tracer("b"));
  g.add_edge(sp::START, "a");
  auto app = g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>(), .cache = std::make_shared<sp::InMemoryCache>()});
  for (int i = 0; i < 2; ++i) EXPECT_THROW(app.invoke(json{{"n", 0}}, {.thread_id = "f" + std::to_string(i)}), sp::NodeError);
  EXPECT_EQ(calls->load(), 2);
  for (int i = 0; i < 2; ++i) app.invoke(json{{"n", 1}}, {.thread_id = "i" + std::to_string(i)});
  EXPECT_EQ(calls->load(), 4);
  EXPECT_EQ(app.invoke(json{{"n", 2}}, {.thread_id = "c1"})["trace"], json({"a", "b"}));
  EXPECT_EQ(app.invoke(json{{"n", 2}}, {.thread_id = "c2"})["trace"], json({"a", "b"}));  // the go_to too
  EXPECT_EQ(calls->load(), 5);
}

TEST(NodeCache, InMemoryCacheKeepsNamespacesApart) {
  sp::InMemoryCache c;
  c.set("a", "k", 1, std::nullopt);
  c.set("b", "k", 2, std::nullopt);
  EXPECT_EQ(c.get("a", "k"), json(1));
  c.clear("a");
  EXPECT_FALSE(c.get("a", "k"));
  EXPECT_EQ(c.get("b", "k"), json(2));
  c.set("b", "k", 3, 0.0);  // expires at once
  EXPECT_FALSE(c.get("b", "k"));
}
