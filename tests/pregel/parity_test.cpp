// Corner cases whose expected outcomes were taken by running the same graphs on
// @langchain/langgraph (JS) 1.x.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace testing_util;

namespace {
sp::StateSchema parity_schema() {
  sp::StateSchema s;
  s.field("n").field("total", sp::reducers::add, 10).field("trace", sp::reducers::append);
  return s;
}
sp::NodeFn send_tracer() {
  return [](const sp::State& s) { return json{{"trace", {"w" + std::to_string(s.get<int>("i"))}}}; };
}
}  // namespace

TEST(Parity, DeferredNodeFiresWhilePushTasksArePending) {
  // LangGraph.js: {"trace":["a","d","w1"]}: the pending Send does not hold back finish().
  sp::StateGraph g(parity_schema());
  g.add_node("a", tracer("a")).add_node("w", send_tracer()).add_node("d", tracer("d"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge("a", "d");
  g.add_conditional_edges("a", [](const sp::State&) { return sp::Send{"w", {{"i", 1}}}; });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "d", "w1"}));
}

TEST(Parity, RouterReturningSendAndEnd) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", tracer("a")).add_node("w", send_tracer());
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State&) { return sp::Route{sp::Send{"w", {{"i", 1}}}, sp::END}; });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "w1"}));
}

TEST(Parity, CommandGotoFromSendTasksRunsTargetOnce) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", tracer("a")).add_node("z", tracer("z"));
  g.add_node("w", [](const sp::State& s) {
    return sp::Command{.update = {{"trace", {"w" + std::to_string(s.get<int>("i"))}}}, .go_to = "z"};
  }, {.ends = {"z"}});
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"i", 1}}}, {"w", {{"i", 2}}}};
  });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "w1", "w2", "z"}));
}

TEST(Parity, StaticEdgeAndRouterToSameNodeRunItOnce) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge("a", "b");
  g.add_conditional_edges("a", [](const sp::State&) { return "b"; });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b"}));
}

TEST(Parity, JoinWaitsForBothSourcesWhateverTheirDepth) {
  sp::StateGraph g(parity_schema());
  for (std::string n : {"a", "a2", "b", "b2", "b3", "c"}) g.add_node(n, tracer(n));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "a2").add_edge("b", "b2").add_edge("b2", "b3");
  g.add_edge({"a2", "b"}, "c");
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "b", "a2", "b2", "b3", "c"}));
}

TEST(Parity, InputToReducerKeyFoldsIntoDefault) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", [](const sp::State&) { return json{{"total", 1}}; });
  g.add_edge(sp::START, "a");
  EXPECT_EQ(g.compile().invoke(json{{"total", 5}}), (json{{"total", 16}}));  // "trace" was never written
}

TEST(Parity, DeferredNodeAfterALoop) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", [](const sp::State& s) { return json{{"n", s.value("n", 0) + 1}, {"trace", {"a"}}}; });
  g.add_node("d", tracer("d"), {.defer = true});
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const sp::State& s) { return s.get<int>("n") < 3 ? "a" : "d"; });
  EXPECT_EQ(g.compile().invoke(json{{"n", 0}}), (json{{"n", 3}, {"total", 10}, {"trace", {"a", "a", "a", "d"}}}));
}

TEST(Parity, ConditionalStartWithPathMap) {
  sp::StateGraph g(parity_schema());
  g.add_node("x", tracer("x")).add_node("y", tracer("y"));
  g.add_conditional_edges(sp::START, [](const sp::State& s) { return s.get<int>("n") > 0 ? "pos" : "neg"; },
                          {{"pos", "x"}, {"neg", "y"}});
  EXPECT_EQ(g.compile().invoke(json{{"n", 1}})["trace"], json({"x"}));
}

TEST(Parity, RouterSeesOwnReducerWriteNotSiblings) {
  // LangGraph.js: a's router sees total 11 (10 + its own 1), final total 111.
  json seen;
  sp::StateGraph g(parity_schema());
  g.add_node("a", [](const sp::State&) { return json{{"total", 1}}; });
  g.add_node("b", [](const sp::State&) { return json{{"total", 100}}; });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  g.add_conditional_edges("a", [&](const sp::State& s) {
    seen = s["total"];
    return sp::END;
  });
  EXPECT_EQ(g.compile().invoke(json::object())["total"], 111);
  EXPECT_EQ(seen, 11);
}

TEST(Parity, TwoSendsToOneNodeThenEdgeRunsDownstreamOnce) {
  sp::StateGraph g(parity_schema());
  g.add_node("a", tracer("a")).add_node("w", send_tracer()).add_node("j", tracer("j"));
  g.add_edge(sp::START, "a").add_edge("w", "j");
  g.add_conditional_edges("a", [](const sp::State&) {
    return std::vector<sp::Send>{{"w", {{"i", 1}}}, {"w", {{"i", 2}}}};
  });
  EXPECT_EQ(g.compile().invoke(json::object())["trace"], json({"a", "w1", "w2", "j"}));
}
