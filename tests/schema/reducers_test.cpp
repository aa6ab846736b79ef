// The built-in reducers, through the channel that hosts them.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {
json fold(const sp::Reducer& r, std::optional<json> initial, std::vector<json> writes) {
  sp::BinaryOperatorAggregate ch("k", r, std::move(initial));
  ch.update(std::span<json>(writes));
  return ch.get();
}
}  // namespace

TEST(Reducers, AddNumbersStringsArrays) {
  EXPECT_EQ(fold(sp::reducers::add, 1, {2, 3}), 6);
  EXPECT_TRUE(fold(sp::reducers::add, 1, {2}).is_number_integer());
  EXPECT_EQ(fold(sp::reducers::add, 1, {0.5}), 1.5);
  EXPECT_EQ(fold(sp::reducers::add, "a", {"b", "c"}), "abc");
  EXPECT_EQ(fold(sp::reducers::add, json::array({1}), {json::array({2, 3})}), json::array({1, 2, 3}));
  EXPECT_THROW(fold(sp::reducers::add, 1, {"x"}), sp::InvalidUpdateError);
}

TEST(Reducers, AppendAndConcat) {
  EXPECT_EQ(fold(sp::reducers::append, json::array(), {1, json::array({2, 3}), json{{"a", 1}}}),
            json::parse(R"([1, 2, 3, {"a": 1}])"));
  EXPECT_EQ(fold(sp::reducers::concat, json::array(), {json::array({1}), json::array({2})}), json::array({1, 2}));
  EXPECT_THROW(fold(sp::reducers::concat, json::array(), {1}), sp::InvalidUpdateError);
  EXPECT_THROW(fold(sp::reducers::append, json(5), {1}), sp::InvalidUpdateError);
}

TEST(Reducers, MergeIsShallow) {
  EXPECT_EQ(fold(sp::reducers::merge, json{{"a", {{"x", 1}}}, {"b", 1}}, {json{{"a", {{"y", 2}}}, {"c", 3}}}),
            json::parse(R"({"a": {"y": 2}, "b": 1, "c": 3})"));
  EXPECT_THROW(fold(sp::reducers::merge, json::object(), {json::array()}), sp::InvalidUpdateError);
}

TEST(Reducers, CustomFunctionAndItsErrorsNameTheKey) {
  sp::Reducer mx([](json a, json b) { return std::max(a.get<int>(), b.get<int>()); }, "max");
  EXPECT_EQ(fold(mx, 3, {1, 7, 2}), 7);
  try {
    fold(mx, 3, {"x"});
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("at key 'k': reducer 'max' failed"), std::string::npos) << e.what();
  }
}

TEST(AddMessages, AssignsIdsAppendsAndReplacesById) {
  json v = fold(sp::reducers::add_messages, std::nullopt,
                {json::array({json{{"type", "human"}, {"content", "hi"}}}),
                 json{{"type", "ai"}, {"content", "hello"}, {"id", "m2"}}, json("plain text")});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0]["id"].get<std::string>().size(), 36u);
  EXPECT_EQ(v[1]["id"], "m2");
  EXPECT_EQ(v[2], (json{{"type", "human"}, {"content", "plain text"}, {"id", v[2]["id"]}}));

  sp::BinaryOperatorAggregate ch("messages", sp::reducers::add_messages, std::nullopt);
  std::vector<json> w1 = {json::array({json{{"id", "a"}, {"content", "1"}}, json{{"id", "b"}, {"content", "2"}}})};
  ch.update(std::span<json>(w1));
  std::vector<json> w2 = {json{{"id", "a"}, {"content", "1-edited"}}};
  ch.update(std::span<json>(w2));
  EXPECT_EQ(ch.get(), json::parse(R"([{"id":"a","content":"1-edited"},{"id":"b","content":"2"}])"));
}

TEST(AddMessages, RemoveByIdUnknownIdAndRemoveAll) {
  sp::BinaryOperatorAggregate ch("messages", sp::reducers::add_messages, json::array());
  std::vector<json> w1 = {json::parse(R"([{"id":"a","content":"1"},{"id":"b","content":"2"},{"id":"c","content":"3"}])")};
  ch.update(std::span<json>(w1));
  std::vector<json> w2 = {json::parse(R"([{"type":"remove","id":"b"}])")};
  ch.update(std::span<json>(w2));
  EXPECT_EQ(ch.get(), json::parse(R"([{"id":"a","content":"1"},{"id":"c","content":"3"}])"));
  // The index is rebuilt after a removal: replacing still finds the right message.
  std::vector<json> w3 = {json::parse(R"({"id":"c","content":"3!"})")};
  ch.update(std::span<json>(w3));
  EXPECT_EQ(ch.get()[1]["content"], "3!");
  std::vector<json> w4 = {json::parse(R"({"type":"remove","id":"zzz"})")};
  try {
    ch.update(std::span<json>(w4));
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot remove message with id 'zzz'"), std::string::npos) << e.what();
  }
  std::vector<json> w5 = {json::parse(R"([{"id":"x","content":"old"},{"type":"remove","id":"__remove_all__"},
                                          {"id":"n","content":"new"}])")};
  ch.update(std::span<json>(w5));
  EXPECT_EQ(ch.get(), json::parse(R"([{"id":"n","content":"new"}])"));
}

TEST(AddMessages, OverwriteResetsTheIndex) {
  sp::BinaryOperatorAggregate ch("messages", sp::reducers::add_messages, json::array());
  std::vector<json> w1 = {json::parse(R"([{"id":"a","content":"1"}])")};
  ch.update(std::span<json>(w1));
  std::vector<json> w2 = {json(sp::Overwrite{json::parse(R"([{"id":"z","content":"z"}])")})};
  ch.update(std::span<json>(w2));
  std::vector<json> w3 = {json::parse(R"({"id":"a","content":"again"})")};
  ch.update(std::span<json>(w3));
  EXPECT_EQ(ch.get(), json::parse(R"([{"id":"z","content":"z"},{"id":"a","content":"again"}])"));
}

TEST(AddMessages, InAGraphWithMessagesStateShape) {
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages);
  sp::StateGraph g(s);
  g.add_node("bot", [](const sp::State& st) {
    return json{{"messages", {{{"type", "ai"}, {"content", "echo: " + st["messages"].back()["content"].get<std::string>()}}}}};
  });
  g.add_edge(sp::START, "bot");
  json out = g.compile().invoke(json{{"messages", {"hi"}}});
  ASSERT_EQ(out["messages"].size(), 2u);
  EXPECT_EQ(out["messages"][0]["type"], "human");
  EXPECT_EQ(out["messages"][1]["content"], "echo: hi");
}
