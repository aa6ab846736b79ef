// Messages: LangChain dict form and OpenAI chat format, and add_messages' coercion of both
// (expected values from LangGraph.js 1.7.3's messagesStateReducer on the same input).
#include <gtest/gtest.h>

#include <superstep/messages/message.hpp>

#include "test_util.hpp"

namespace {

using sp::Message;
using sp::MessageType;

TEST(Message, LangChainDictRoundTripForEveryType) {
  std::vector<Message> all = {
      Message::system("be brief"),
      Message::human(json::array({{{"type", "text"}, {"text", "look: "}}, {{"type", "image_url"}, {"image_url", "u"}}})),
      Message::ai("", {sp::ToolCall{"c1", "add", {{"a", 1}}}}),
      Message::tool("2", "c1", "error"),
      Message::remove("m-9"),
  };
  all[1].id = "h1";
  all[2].name = "bot";
  for (const Message& m : all) EXPECT_EQ(Message::from_json(m.to_json()), m) << m.to_json().dump();
  EXPECT_EQ(all[2].to_json(), json::parse(R"({"type":"ai","content":"","name":"bot",
      "tool_calls":[{"id":"c1","name":"add","args":{"a":1},"type":"tool_call"}],"invalid_tool_calls":[]})"));
  // An AI message's invalid tool calls and token counts survive the round trip.
  Message counted = Message::ai("ok");
  counted.invalid_tool_calls = json::parse(
      R"([{"type":"invalid_tool_call","id":"c2","name":"add","args":"{\"a\":","error":"Malformed args."}])");
  counted.usage_metadata = json{{"input_tokens", 3}, {"output_tokens", 4}, {"total_tokens", 7}};
  EXPECT_EQ(Message::from_json(counted.to_json()), counted) << counted.to_json().dump();
  EXPECT_EQ(counted.to_json()["usage_metadata"]["total_tokens"], 7);
  EXPECT_EQ(all[3].to_json(), json::parse(R"({"type":"tool","content":"2","tool_call_id":"c1","status":"error"})"));
  EXPECT_EQ(all[1].text(), "look: ");
}

TEST(Message, OpenAIChatFormatBothWays) {
  json wire = json::parse(R"({"role":"assistant","content":null,
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"q\":\"lisbon\"}"}}]})");
  Message m = Message::from_json(wire);
  EXPECT_EQ(m.type, MessageType::ai);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0], (sp::ToolCall{"call_1", "search", {{"q", "lisbon"}}}));
  EXPECT_EQ(m.content, "");
  // LangChain.js sends an empty string where the model sent null.
  json sent = wire;
  sent["content"] = "";
  EXPECT_EQ(m.to_openai(), sent);
  EXPECT_EQ(Message::tool("sunny", "call_1").to_openai(), (json{{"role", "tool"}, {"content", "sunny"}, {"tool_call_id", "call_1"}}));
  EXPECT_EQ(Message::human("hi").to_openai(), (json{{"role", "user"}, {"content", "hi"}}));
  EXPECT_EQ(Message::system("s").to_openai(), (json{{"role", "system"}, {"content", "s"}}));
  EXPECT_EQ(Message::from_json(json{{"role", "developer"}, {"content", "d"}}).type, MessageType::system);
}

TEST(Message, BadMessagesAreClearErrors) {
  auto error_of = [](const json& j) {
    try {
      Message::from_json(j);
    } catch (const sp::InvalidUpdateError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(json{{"role", "robot"}, {"content", "x"}}).find("unknown type 'robot'"), std::string::npos);
  EXPECT_NE(error_of(json{{"role", "tool"}, {"content", "x"}}).find("needs tool_call_id"), std::string::npos);
  EXPECT_NE(error_of(json::parse(R"({"role":"assistant","tool_calls":[{"id":"c9","function":{"name":"f","arguments":"{oops"}}]})"))
                .find("tool call 'c9' (f) has arguments that are not JSON"),
            std::string::npos);
  EXPECT_NE(error_of(json(42)).find("a message must be"), std::string::npos);
}

TEST(Message, AddMessagesCoercesStringsPairsAndOpenAIDictsAsLangGraphDoes) {
  sp::StateGraph g(sp::messages_state());
  g.add_node("chat", [](const sp::State&) {
    return json{{"messages",
                 json::array({json{{"role", "user"}, {"content", "hi"}}, json::array({"assistant", "yo"}), "plain",
                              json::parse(R"({"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",
                                  "function":{"name":"add","arguments":"{\"a\":1}"}}]})"),
                              json{{"role", "tool"}, {"content", "2"}, {"tool_call_id", "c1"}},
                              json{{"type", "ai"}, {"content", "x"}, {"custom", true}}})}};
  });
  g.add_edge(sp::START, "chat");
  json out = g.compile().invoke(json{{"messages", json::array()}})["messages"];
  ASSERT_EQ(out.size(), 6u);
  std::vector<std::string> types;
  for (const json& m : out) {
    types.push_back(m["type"]);
    EXPECT_TRUE(m["id"].is_string() && !m["id"].get<std::string>().empty()) << m.dump();
  }
  EXPECT_EQ(types, (std::vector<std::string>{"human", "ai", "human", "ai", "tool", "ai"}));
  EXPECT_EQ(out[3]["tool_calls"], json::parse(R"([{"id":"c1","name":"add","args":{"a":1},"type":"tool_call"}])"));
  EXPECT_EQ(out[4]["tool_call_id"], "c1");
  EXPECT_EQ(out[5]["custom"], true) << "a message already in LangChain's form is kept as given";
  // Typed access to what the state holds.
  EXPECT_EQ(out[3].get<Message>().tool_calls.at(0).name, "add");
  EXPECT_THROW(g.compile().invoke(json{{"messages", json::array({json{{"type", "robot"}}})}}), sp::InvalidUpdateError);
}

}  // namespace
