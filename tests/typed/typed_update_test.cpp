// sp::Update<S> in detail: a field set twice in one update, Overwrite next to a set, and
// add_messages on typed messages; each outcome must not depend on the path the engine takes
// (the step's only task folding its batch directly, the flattened path taken when a stream
// shows the writes, the grouped path of a step with several tasks).
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "typed/typed_states.hpp"

using namespace testing_util;
using U = sp::Update<Flow>;
using CU = sp::Update<TChat>;

namespace {
/// Runs `app` plainly, while streaming updates (flattened writes) and while streaming tasks.
template <class S>
std::vector<S> run_every_way(const sp::TypedCompiledGraph<S>& app, const std::function<sp::Update<S>()>& input) {
  std::vector<S> out;
  out.push_back(app.invoke(input()));
  for (auto mode : {sp::StreamMode::updates, sp::StreamMode::tasks}) {
    sp::json last;
    for (auto& part : app.stream(input(), {}, {mode, sp::StreamMode::values}))
      if (part.mode == sp::StreamMode::values) last = part.data;
    out.push_back(last.get<S>());
  }
  return out;
}
}  // namespace

void from_json(const sp::json& j, Flow& f) {
  f.n = j.at("n");
  f.total = j.at("total");
  f.trace = j.at("trace").get<std::vector<std::string>>();
  f.flag = j.at("flag");
  f.text = j.at("text");
}
void from_json(const sp::json& j, TChat& c) {
  c.messages = j.at("messages").get<std::vector<TMsg>>();
  c.turns = j.at("turns");
}

TEST(TypedUpdate, PlainFieldSetTwiceKeepsTheLaterValue) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) { return U().set<&Flow::n>(1).set<&Flow::text>("x").set<&Flow::n>(2); });
  g.add_edge(sp::START, "a");
  for (const Flow& out : run_every_way<Flow>(g.compile(), [] { return U(); })) {
    EXPECT_EQ(out.n, 2);
    EXPECT_EQ(out.text, "x");
  }
}

TEST(TypedUpdate, ReducerFieldSetTwiceFoldsBothInOrder) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) {
    return U()
        .set<&Flow::trace>(std::vector<std::string>{"1"})
        .set<&Flow::total>(5)
        .set<&Flow::trace>(std::vector<std::string>{"2", "3"})
        .set<&Flow::total>(7);
  });
  g.add_edge(sp::START, "a");
  for (const Flow& out : run_every_way<Flow>(g.compile(), [] { return U(); })) {
    EXPECT_EQ(out.trace, (std::vector<std::string>{"1", "2", "3"}));
    EXPECT_EQ(out.total, 22);
  }
}

TEST(TypedUpdate, WritesAfterAnOverwriteInTheSameStepAreIgnoredAsInLangGraph) {
  // LangGraph's BinaryOperatorAggregate: once a step's Overwrite is seen, later plain writes of
  // that step are dropped; a second Overwrite is an error.
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) {
    return U().overwrite<&Flow::trace>(std::vector<std::string>{"o"}).set<&Flow::trace>(std::vector<std::string>{"x"});
  });
  g.add_edge(sp::START, "a");
  for (const Flow& out :
       run_every_way<Flow>(g.compile(), [] { return U().set<&Flow::trace>(std::vector<std::string>{"in"}); }))
    EXPECT_EQ(out.trace, (std::vector<std::string>{"o"}));

  sp::TypedStateGraph<Flow> twice;
  twice.add_node("a", [](const Flow&) {
    return U().overwrite<&Flow::total>(1).overwrite<&Flow::total>(2);
  });
  twice.add_edge(sp::START, "a");
  try {
    twice.compile().invoke();
    ADD_FAILURE() << "two Overwrites of one field in one step must fail";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("at key 'total': can receive only one Overwrite value per step"),
              std::string::npos)
        << e.what();
  }
}

TEST(TypedUpdate, SeveralTasksWithBatchesFoldInNodeNameOrder) {
  sp::TypedStateGraph<Flow> g;
  g.add_node("b", [](const Flow&) { return U().set<&Flow::trace>(std::vector<std::string>{"b"}).set<&Flow::total>(2); });
  g.add_node("a", [](const Flow&) {
    return U().set<&Flow::trace>(std::vector<std::string>{"a1"}).set<&Flow::trace>(std::vector<std::string>{"a2"});
  });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  for (const Flow& out : run_every_way<Flow>(g.compile(), [] { return U(); })) {
    EXPECT_EQ(out.trace, (std::vector<std::string>{"a1", "a2", "b"}));
    EXPECT_EQ(out.total, 12);
  }
}

TEST(TypedUpdate, AddMessagesAssignsIdsAndUpsertsById) {
  sp::TypedStateGraph<TChat> g;
  g.add_node("first", [](const TChat&) {
    return CU().set<&TChat::messages>(std::vector<TMsg>{{"", "hello"}, {"m2", "draft"}}).set<&TChat::turns>(1);
  });
  g.add_node("second", [](const TChat& s) {
    EXPECT_EQ(s.messages.size(), 3u);
    // Replace "m2" in place, and the input message by its generated id; append a new one.
    return CU().set<&TChat::messages>(
        std::vector<TMsg>{{"m2", "final"}, {s.messages[0].id, "edited"}, {"", "appended"}});
  });
  g.add_edge(sp::START, "first").add_edge("first", "second");
  for (const TChat& out :
       run_every_way<TChat>(g.compile(), [] { return CU().set<&TChat::messages>(std::vector<TMsg>{{"", "in"}}); })) {
    ASSERT_EQ(out.messages.size(), 4u);
    EXPECT_EQ(out.messages[0].text, "edited");
    EXPECT_EQ(out.messages[1].text, "hello");
    EXPECT_EQ(out.messages[2], (TMsg{"m2", "final"}));
    EXPECT_EQ(out.messages[3].text, "appended");
    for (const auto& m : out.messages) EXPECT_EQ(m.id.size(), m.id == "m2" ? 2u : 36u);
    EXPECT_EQ(out.turns, 1);
  }
}

TEST(TypedUpdate, AddMessagesForgetsIdsAfterAnOverwrite) {
  // After an Overwrite drops "old", an update with id "old" appends: it must not replace
  // whatever now sits where "old" used to be.
  sp::TypedStateGraph<TChat> g;
  g.add_node("seed", [](const TChat&) {
    return CU().set<&TChat::messages>(std::vector<TMsg>{{"old", "1"}, {"keep", "2"}});
  });
  g.add_node("trim", [](const TChat&) {
    return CU().overwrite<&TChat::messages>(std::vector<TMsg>{{"x", "a"}, {"y", "b"}});
  });
  g.add_node("again", [](const TChat&) {
    return CU().set<&TChat::messages>(std::vector<TMsg>{{"old", "new"}, {"y", "B"}});
  });
  g.add_edge(sp::START, "seed").add_edge("seed", "trim").add_edge("trim", "again");
  for (const TChat& out : run_every_way<TChat>(g.compile(), [] { return CU(); })) {
    ASSERT_EQ(out.messages.size(), 3u);
    EXPECT_EQ(out.messages[0], (TMsg{"x", "a"}));
    EXPECT_EQ(out.messages[1], (TMsg{"y", "B"}));
    EXPECT_EQ(out.messages[2], (TMsg{"old", "new"}));
  }
}

TEST(TypedUpdate, AMovedFromUpdateIsEmptyAndReusable) {
  U a;
  a.set<&Flow::n>(3);
  U b = std::move(a);
  a.set<&Flow::text>("again");  // must not write into b's batch
  sp::TypedStateGraph<Flow> g;
  g.add_node("noop", [](const Flow&) { return U(); });
  g.add_edge(sp::START, "noop");
  auto app = g.compile();
  Flow fb = app.invoke(std::move(b));
  EXPECT_EQ(fb.n, 3);
  EXPECT_EQ(fb.text, "start");
  Flow fa = app.invoke(std::move(a));
  EXPECT_EQ(fa.n, 0);
  EXPECT_EQ(fa.text, "again");
}
