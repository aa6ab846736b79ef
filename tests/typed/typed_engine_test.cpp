// The engine's behaviour tests in typed form: same graphs, same outcomes, typed state.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "test_util.hpp"
#include "typed/typed_states.hpp"

using namespace testing_util;
using U = sp::Update<Flow>;

namespace {
auto ttracer(std::string name) {
  return [name](const Flow&) { return U().set<&Flow::trace>(std::vector<std::string>{name}); };
}
}  // namespace

TEST(Typed, LinearChainUpdatesAndValuesInOrder) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", ttracer("a")).add_node("b", [](const Flow& s) {
    EXPECT_EQ(s.trace, (std::vector<std::string>{"a"}));
    return U().set<&Flow::trace>(std::vector<std::string>{"b"}).set<&Flow::n>(s.n + 1);
  });
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", sp::END);
  auto app = g.compile();
  Flow out = app.invoke(U().set<&Flow::n>(41));
  EXPECT_EQ(out.n, 42);
  EXPECT_EQ(out.trace, (std::vector<std::string>{"a", "b"}));
  json parts = collect(app.stream(U().set<&Flow::n>(1), {}, {sp::StreamMode::updates, sp::StreamMode::values}));
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0], json::parse(R"(["values", {"n":1,"total":10,"trace":[],"flag":true,"text":"start"}])"));
  EXPECT_EQ(parts[1], json::parse(R"(["updates", {"a": {"trace": ["a"]}}])"));
  EXPECT_EQ(parts[3], json::parse(R"(["updates", {"b": {"trace": ["b"], "n": 2}}])"));
  EXPECT_EQ(parts[4][1]["trace"], json({"a", "b"}));
}

TEST(Typed, FieldsCanBeSetToZeroFalseAndEmpty) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("zero", [](const Flow&) {
    return U().set<&Flow::n>(0).set<&Flow::flag>(false).set<&Flow::text>("").overwrite<&Flow::total>(0);
  });
  g.add_edge(sp::START, "zero");
  Flow out = g.compile().invoke(U().set<&Flow::n>(5));
  EXPECT_EQ(out.n, 0);
  EXPECT_FALSE(out.flag);
  EXPECT_EQ(out.text, "");
  EXPECT_EQ(out.total, 0);
}

TEST(Typed, ReducersFoldFromMemberDefaults) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) { return U().set<&Flow::total>(5); });
  g.add_node("b", [](const Flow&) { return U().set<&Flow::total>(7); });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  EXPECT_EQ(g.compile().invoke().total, 22);
  EXPECT_EQ(g.compile().invoke(U().set<&Flow::total>(1)).total, 23);  // input folds too
}

TEST(Typed, OverwriteBypassesTheReducer) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) {
    return U().overwrite<&Flow::trace>(std::vector<std::string>{"only"});
  });
  g.add_edge(sp::START, "a");
  EXPECT_EQ(g.compile().invoke(U().set<&Flow::trace>(std::vector<std::string>{"x", "y"})).trace,
            (std::vector<std::string>{"only"}));
}

TEST(Typed, FanOutFanInJoinRunsOnceAndParallelWritesFoldInNameOrder) {
  for (std::size_t workers : {1u, 2u, 8u}) {
    std::atomic<int> joins{0};
    sp::TypedStateGraph<Flow> g;
    for (std::string n : {"z", "m", "a"}) {
      int delay = n == "a" ? 20 : n == "m" ? 10 : 0;
      g.add_node(n, [n, delay](const Flow&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        return U().set<&Flow::trace>(std::vector<std::string>{n});
      });
      g.add_edge(sp::START, n);
    }
    g.add_node("join", [&](const Flow&) {
      ++joins;
      return U().set<&Flow::trace>(std::vector<std::string>{"join"});
    });
    g.add_edge({"z", "m", "a"}, "join");
    Flow out = g.compile({.executor = pool(workers)}).invoke();
    EXPECT_EQ(out.trace, (std::vector<std::string>{"a", "m", "z", "join"})) << workers;
    EXPECT_EQ(joins, 1);
  }
}

TEST(Typed, UnevenBranchesWithAndWithoutJoin) {
  for (bool join : {false, true}) {
    sp::TypedStateGraph<Flow> g;
    for (std::string n : {"a", "b", "b2", "c"}) g.add_node(n, ttracer(n));
    g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2");
    if (join) g.add_edge({"a", "b2"}, "c");
    else g.add_edge("a", "c").add_edge("b2", "c");
    auto expected = join ? std::vector<std::string>{"a", "b", "b2", "c"}
                         : std::vector<std::string>{"a", "b", "b2", "c", "c"};
    EXPECT_EQ(g.compile().invoke().trace, expected);
  }
}

TEST(Typed, ParallelLastValueConflictNamesFieldAndNodes) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("left", [](const Flow&) { return U().set<&Flow::n>(1); });
  g.add_node("right", [](const Flow&) { return U().set<&Flow::n>(2); });
  g.add_edge(sp::START, "left").add_edge(sp::START, "right");
  try {
    g.compile().invoke();
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("at key 'n'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'left', 'right'"), std::string::npos) << e.what();
  }
}

TEST(Typed, ConditionalEdgesSeeFreshStateOwnWritesOnly) {
  int seen_by_a = -1, seen_by_b = -1;
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) { return U().set<&Flow::n>(5).set<&Flow::total>(1); });
  g.add_node("b", [](const Flow&) { return U().set<&Flow::total>(100); });
  g.add_node("yes", ttracer("yes"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  g.add_conditional_edges("a", [&](const Flow& s) {
    seen_by_a = s.total;
    return s.n == 5 ? "go" : "stop";
  }, {{"go", "yes"}, {"stop", sp::END}});
  g.add_conditional_edges("b", [&](const Flow& s) {
    seen_by_b = s.n;
    return sp::END;
  });
  Flow out = g.compile().invoke();
  EXPECT_EQ(seen_by_a, 11);  // 10 + its own 1, not b's 100
  EXPECT_EQ(seen_by_b, 0);   // a's write to n is not visible to b's router
  EXPECT_EQ(out.total, 111);
  EXPECT_EQ(out.trace, (std::vector<std::string>{"yes"}));
}

TEST(Typed, SendMapReduceKeepsSendOrder) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("worker", [](const Flow& s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10 - s.n * 2));
    return U().set<&Flow::trace>(std::vector<std::string>{"w" + std::to_string(s.n)});
  });
  g.add_node("reduce", [](const Flow& s) { return U().set<&Flow::text>(std::to_string(s.trace.size())); });
  g.set_conditional_entry_point([](const Flow&) {
    std::vector<sp::Send> sends;
    for (int i = 1; i <= 4; ++i) {
      Flow arg;
      arg.n = i;
      sends.push_back(sp::send("worker", arg));
    }
    return sends;
  });
  g.add_edge("worker", "reduce");
  Flow out = g.compile().invoke();
  EXPECT_EQ(out.trace, (std::vector<std::string>{"w1", "w2", "w3", "w4"}));
  EXPECT_EQ(out.text, "4");
}

TEST(Typed, UpdateWithGoToActsAsCommand) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) {
    Flow arg;
    arg.n = 7;
    return U().set<&Flow::trace>(std::vector<std::string>{"a"}).go_to(sp::Route{std::string("b"), sp::send("c", arg)});
  }, {.ends = {"b", "c"}});
  g.add_node("b", ttracer("b"));
  g.add_node("c", [](const Flow& s) { return U().set<&Flow::trace>(std::vector<std::string>{"c" + std::to_string(s.n)}); });
  g.add_edge(sp::START, "a");
  EXPECT_EQ(g.compile().invoke().trace, (std::vector<std::string>{"a", "b", "c7"}));
}

TEST(Typed, RecursionLimitAtTheSameBoundaryAsJson) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow& s) { return U().set<&Flow::n>(s.n + 1); });
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const Flow& s) { return s.n >= 4 ? sp::END : "a"; });
  auto app = g.compile();
  EXPECT_EQ(app.invoke({}, {.recursion_limit = 5}).n, 4);
  EXPECT_THROW(app.invoke({}, {.recursion_limit = 4}), sp::GraphRecursionError);
}

TEST(Typed, RetryAndNodeError) {
  std::atomic<int> calls{0};
  sp::TypedStateGraph<Flow> g;
  g.add_node("flaky", [&](const Flow&) {
    if (++calls < 2) throw std::runtime_error("flaky");
    return U().set<&Flow::text>("ok");
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .jitter = false}});
  g.add_node("bad", [](const Flow&) -> U { throw std::runtime_error("bad"); });
  g.add_edge(sp::START, "flaky");
  EXPECT_EQ(g.compile().invoke().text, "ok");
  sp::TypedStateGraph<Flow> g2;
  g2.add_node("bad", [](const Flow&) -> U { throw std::runtime_error("bad"); });
  g2.add_edge(sp::START, "bad");
  try {
    g2.compile().invoke();
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "bad");
  }
}

TEST(Typed, DeferredNode) {
  sp::TypedStateGraph<Flow> g;
  for (std::string n : {"a", "a2", "b"}) g.add_node(n, ttracer(n));
  g.add_node("d", ttracer("d"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "a2").add_edge("a2", "d").add_edge("b", "d");
  EXPECT_EQ(g.compile().invoke().trace, (std::vector<std::string>{"a", "b", "a2", "d"}));
}

TEST(Typed, CoroutineNodeAndCustomStream) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("io", [](const Flow& s, sp::Runtime& rt) -> sp::Task<U> {
    rt.stream_writer("waiting");
    co_await sp::sleep_for(rt, std::chrono::milliseconds(2));
    co_return U().set<&Flow::n>(s.n * 2);
  });
  g.add_edge(sp::START, "io");
  auto app = g.compile();
  EXPECT_EQ(app.invoke(U().set<&Flow::n>(21)).n, 42);
  json parts = collect(app.stream(U().set<&Flow::n>(1), {}, {sp::StreamMode::custom, sp::StreamMode::updates}));
  EXPECT_EQ(parts, json::parse(R"([["custom", "waiting"], ["updates", {"io": {"n": 2}}]])"));
}

TEST(Typed, JsonAtTheBoundaryInAndOut) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow& s) { return U().set<&Flow::n>(s.n + 1); });
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  json out = app.json_graph().invoke(json{{"n", 1}, {"text", "hi"}});
  EXPECT_EQ(out, json::parse(R"({"n":2,"total":10,"trace":[],"flag":true,"text":"hi"})"));
  EXPECT_THROW(app.json_graph().invoke(json{{"nn", 1}}), sp::InvalidUpdateError);
  EXPECT_THROW(app.json_graph().invoke(json{{"n", "not a number"}}), sp::InvalidUpdateError);
}

TEST(Typed, InputKeysAreRejectedAtCompileTime) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", ttracer("a"), {.input_keys = {"n"}});
  g.add_edge(sp::START, "a");
  EXPECT_THROW(g.compile(), sp::GraphValidationError);
}

TEST(Typed, ManyInvocationsReuseChannelSetsWithoutLeakingState) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", ttracer("a"));
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  for (int i = 0; i < 20; ++i) {
    Flow out = app.invoke();
    ASSERT_EQ(out.trace, (std::vector<std::string>{"a"})) << i;
    ASSERT_EQ(out.total, 10);
  }
}
