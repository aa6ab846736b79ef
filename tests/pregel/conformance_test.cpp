// Behaviours a porting user meets first, each as LangGraph.js 1.7.3 shows it (run side by side;
// tests/differential runs the same graphs in both): when `values` parts are streamed, the default
// stream mode, a router's declared destinations, a Command as input without a checkpointer,
// interrupt() without one, and add_messages' ids. JSON and typed state alike. The same rules
// with a checkpointer, on every saver, are in persistence_test.cpp.
#include <gtest/gtest.h>

#include <superstep/messages/message.hpp>

#include "test_util.hpp"
#include "typed/typed_states.hpp"

using namespace testing_util;

namespace {
std::vector<std::string> modes_of(const json& parts) {
  std::vector<std::string> out;
  for (const json& p : parts) out.push_back(p[0]);
  return out;
}
}  // namespace

TEST(Conformance, ValuesArePartsOfStepsThatWroteToTheState) {
  // LangGraph streams `values` after a step only when one of its tasks wrote a state key: not
  // for an input that sets no key, nor after nodes returning {} or nothing.
  sp::StateGraph g(trace_schema());
  g.add_node("empty", [](const sp::State&) { return json::object(); });
  g.add_node("writes", [](const sp::State&) { return json{{"n", 1}}; });
  g.add_node("nothing", [](const sp::State&) {});
  g.add_node("same", [](const sp::State&) { return json{{"n", 1}}; });  // the same value is still a write
  g.add_edge(sp::START, "empty").add_edge("empty", "writes").add_edge("writes", "nothing").add_edge("nothing", "same");
  auto app = g.compile();
  EXPECT_EQ(collect(app.stream(json::object(), {}, {sp::StreamMode::values, sp::StreamMode::updates})),
            json::parse(R"([["updates", {"empty": {}}], ["updates", {"writes": {"n": 1}}], ["values", {"n": 1}],
                            ["updates", {"nothing": null}], ["updates", {"same": {"n": 1}}], ["values", {"n": 1}]])"));
  // An input that sets a key is a step that wrote: its state is the first part.
  EXPECT_EQ(modes_of(collect(app.stream(json{{"n", 0}}, {}, {sp::StreamMode::values}))),
            (std::vector<std::string>{"values", "values", "values"}));
  // "trace" has a reducer and no default: no value (no key) until a node writes it.
  EXPECT_EQ(app.invoke(json::object()), (json{{"n", 1}}));
}

TEST(Conformance, TypedValuesArePartsOfStepsThatWroteToTheState) {
  using U = sp::Update<Flow>;
  sp::TypedStateGraph<Flow> g;
  g.add_node("empty", [](const Flow&) { return U(); });
  g.add_node("writes", [](const Flow&) { return U().set<&Flow::n>(1); });
  g.add_edge(sp::START, "empty").add_edge("empty", "writes");
  auto app = g.compile();
  json parts = collect(app.stream(U(), {}, {sp::StreamMode::values, sp::StreamMode::updates}));
  // Typed fields always hold a value (docs/typed_state.md), so the one `values` part shows them all.
  ASSERT_EQ(modes_of(parts), (std::vector<std::string>{"updates", "updates", "values"}));
  EXPECT_EQ(parts[2][1]["n"], 1);
  EXPECT_EQ(parts[1][1], (json{{"writes", {{"n", 1}}}}));
}

TEST(Conformance, StreamingWithNoModesStreamsUpdates) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  std::vector<sp::StreamPart> parts;
  for (const sp::StreamPart& p : g.compile().stream(json{{"n", 1}})) parts.push_back(p);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].mode, sp::StreamMode::updates);
  EXPECT_EQ(parts[0].data, (json{{"a", {{"trace", {"a"}}}}}));

  sp::TypedStateGraph<Flow> t;
  t.add_node("a", [](const Flow&) { return sp::Update<Flow>().set<&Flow::n>(2); });
  t.add_edge(sp::START, "a");
  std::vector<sp::StreamMode> typed_modes;
  for (const sp::StreamPart& p : t.compile().stream()) typed_modes.push_back(p.mode);
  EXPECT_EQ(typed_modes, std::vector<sp::StreamMode>{sp::StreamMode::updates});
}

TEST(Conformance, ARouterGivenItsDestinationsMayReturnOnlyThose) {
  // As LangGraph: a list of destinations (no path map) is enforced, END included; a Send is not
  // a destination and may go anywhere.
  auto build = [](sp::RouterFn router) {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
    g.add_edge(sp::START, "a");
    g.add_conditional_edges("a", std::move(router), std::vector<std::string>{"b"});
    return g.compile();
  };
  EXPECT_EQ(build([](const sp::State&) { return sp::Route{"b"}; }).invoke(json::object())["trace"], json({"a", "b"}));
  for (const std::string& outside : std::vector<std::string>{"c", sp::END}) {
    try {
      build([outside](const sp::State&) { return sp::Route{outside}; }).invoke(json::object());
      FAIL() << outside;
    } catch (const sp::InvalidUpdateError& e) {
      EXPECT_NE(std::string(e.what()).find("router of node 'a' returned '" + outside +
                                           "', which is not among its declared destinations (b)"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(build([](const sp::State&) { return sp::Route{sp::Send{"c", json::object()}}; })
                .invoke(json::object())["trace"],
            json({"a", "c"}));
  // Without a list, a router may return any node.
  sp::StateGraph open(trace_schema());
  open.add_node("a", tracer("a")).add_node("c", tracer("c"));
  open.add_edge(sp::START, "a").add_conditional_edges("a", [](const sp::State&) { return sp::Route{"c"}; });
  EXPECT_EQ(open.compile().invoke(json::object())["trace"], json({"a", "c"}));
}

TEST(Conformance, TypedRoutersAndInterruptsFollowTheSameRules) {
  using U = sp::Update<Flow>;
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) { return U().set<&Flow::n>(1); });
  g.add_node("b", [](const Flow&) { return U().set<&Flow::n>(2); });
  g.add_node("c", [](const Flow&) { return U().set<&Flow::n>(3); });
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", [](const Flow&) { return sp::Route{"c"}; }, std::vector<std::string>{"b"});
  EXPECT_THROW(g.compile().invoke(U()), sp::InvalidUpdateError);

  sp::TypedStateGraph<Flow> asks;
  asks.add_node("ask", [](const Flow&, sp::Runtime& rt) { return U().set<&Flow::text>(sp::interrupt(rt, "?").get<std::string>()); });
  asks.add_edge(sp::START, "ask");
  EXPECT_THROW(asks.compile().invoke(U()), sp::GraphValueError);
}

TEST(Conformance, ACommandInputRunsWithoutACheckpointer) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"), {.ends = {"b"}}).add_node("b", tracer("b"));
  g.add_edge(sp::START, "a").add_edge("a", sp::END).add_edge("b", sp::END);
  auto app = g.compile();
  // update and go_to are the input step: its state is streamed, then the routed node runs.
  EXPECT_EQ(collect(app.stream(sp::Command{.update = json{{"n", 7}}, .go_to = sp::Route{"b"}}, {},
                               {sp::StreamMode::values, sp::StreamMode::updates})),
            json::parse(R"([["values", {"n": 7}], ["updates", {"b": {"trace": ["b"]}}],
                            ["values", {"n": 7, "trace": ["b"]}]])"));
  EXPECT_EQ(app.invoke(sp::Command{.update = json{{"n", 7}}}), (json{{"n", 7}}));  // nothing triggered
  EXPECT_EQ(app.invoke(sp::Command{.go_to = sp::Route{sp::Send{"b", json::object()}}}), (json{{"trace", {"b"}}}));
  // Bad Commands are named as with a checkpointer; a resume needs one.
  EXPECT_THROW(app.invoke(sp::Command{}), sp::EmptyInputError);
  EXPECT_THROW(app.invoke(sp::Command{.update = json{{"zz", 1}}}), sp::InvalidUpdateError);
  EXPECT_THROW(app.invoke(sp::Command{.go_to = sp::Route{"nope"}}), sp::InvalidUpdateError);
  try {
    app.invoke(sp::Command{.resume = "yes"});
    FAIL();
  } catch (const sp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Command.resume needs a checkpointer"), std::string::npos) << e.what();
  }

  // Typed state: the same, the update given as JSON.
  sp::TypedStateGraph<Flow> t;
  t.add_node("a", [](const Flow&) { return sp::Update<Flow>().set<&Flow::trace>(std::vector<std::string>{"a"}); },
             {.ends = {"b"}});
  t.add_node("b", [](const Flow& s) { return sp::Update<Flow>().set<&Flow::trace>(std::vector<std::string>{"b" + std::to_string(s.n)}); });
  t.add_edge(sp::START, "a").add_edge("a", sp::END).add_edge("b", sp::END);
  Flow out = t.compile().invoke(sp::Command{.update = json{{"n", 7}}, .go_to = sp::Route{"b"}}, {});
  EXPECT_EQ(out.trace, std::vector<std::string>{"b7"});
}

TEST(Conformance, AddMessagesIdsShowInTheNodesUpdatesPart) {
  sp::StateGraph g(sp::messages_state());
  g.add_node("ai", [](const sp::State&) {
    return json{{"messages", json::array({sp::Message::ai("x").to_json(), "raw"})}};
  });
  g.add_edge(sp::START, "ai");
  json parts = collect(g.compile().stream(json{{"messages", json::array({"hi"})}}, {},
                                          {sp::StreamMode::updates, sp::StreamMode::values}));
  ASSERT_EQ(parts.size(), 3u);
  const json& update = parts[1][1]["ai"]["messages"];
  const json& state = parts[2][1]["messages"];
  ASSERT_EQ(state.size(), 3u);
  // The message dict got its id before the part was made, and kept it in the state; a string is
  // shown as the node returned it (LangGraph coerces it into a new message at the barrier).
  ASSERT_TRUE(update[0].contains("id"));
  EXPECT_EQ(update[0]["id"], state[1]["id"]);
  EXPECT_EQ(update[1], "raw");
  EXPECT_EQ(state[2]["content"], "raw");
  EXPECT_TRUE(state[2]["id"].is_string());
}

TEST(Conformance, AddMessagesTakesASingleHeldMessageAndGivesHeldMessagesIds) {
  // A state whose messages key holds one message (not a list), or messages without ids (a
  // default, an Overwrite): the reducer treats it as a list and gives every message an id.
  for (const json& held : {json{{"type", "human"}, {"content", "single"}},
                           json::array({json{{"type", "human"}, {"content", "no id"}}})}) {
    sp::StateSchema s;
    s.field("messages", sp::reducers::add_messages, held);
    sp::StateGraph g(s);
    g.add_node("ai", [](const sp::State&) { return json{{"messages", sp::Message::ai("y").to_json()}}; });
    g.add_edge(sp::START, "ai");
    json out = g.compile().invoke(json::object())["messages"];
    ASSERT_EQ(out.size(), 2u) << held;
    EXPECT_EQ(out[0]["content"], held.is_array() ? held[0]["content"] : held["content"]);
    EXPECT_TRUE(out[0]["id"].is_string() && !out[0]["id"].get<std::string>().empty()) << out;
    EXPECT_EQ(out[1]["content"], "y");
  }
}

TEST(Conformance, TypedAddMessagesIdsShowInUpdatesAndHeldMessagesGetIds) {
  using U = sp::Update<TChat>;
  sp::TypedStateGraph<TChat> g;
  g.add_node("ai", [](const TChat&) { return U().set<&TChat::messages>(std::vector<TMsg>{{"", "x"}}); });
  g.add_edge(sp::START, "ai");
  auto app = g.compile();
  // The input overwrites the list with a message without an id (bypassing the reducer).
  json parts = collect(app.stream(U().overwrite<&TChat::messages>(std::vector<TMsg>{{"", "held"}}), {},
                                  {sp::StreamMode::updates, sp::StreamMode::values}));
  ASSERT_EQ(modes_of(parts), (std::vector<std::string>{"values", "updates", "values"}));
  const json& update = parts[1][1]["ai"]["messages"];
  const json& state = parts[2][1]["messages"];
  ASSERT_EQ(state.size(), 2u);
  EXPECT_FALSE(update[0]["id"].get<std::string>().empty());
  EXPECT_EQ(update[0]["id"], state[1]["id"]);
  EXPECT_FALSE(state[0]["id"].get<std::string>().empty()) << state;
}
