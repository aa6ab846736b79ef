// The event-stream parser and the OpenAI stream reader, fed in every possible split.
#include <gtest/gtest.h>

#include "llm/openai_stream.hpp"
#include "llm/openai_test_server.hpp"
#include "llm/sse_parser.hpp"
#include "superstep/errors.hpp"

using superstep::internal::OpenAIStreamReader;
using superstep::internal::SseParser;
using nlohmann::json;

namespace {
std::vector<std::pair<std::string, std::string>> parse(const std::vector<std::string_view>& pieces) {
  SseParser p;
  std::vector<std::pair<std::string, std::string>> out;
  for (auto piece : pieces) p.feed(piece, [&](std::string_view e, std::string_view d) { out.emplace_back(e, d); });
  return out;
}
}  // namespace

TEST(SseParser, EventsLinesCommentsAndMultiLineData) {
  std::string text = ": keep-alive\r\ndata: one\r\n\r\nevent: error\ndata: {\"a\":\ndata: 1}\n\ndata:no-space\n\nid: 5\n\n";
  auto events = parse({text});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], (std::pair<std::string, std::string>{"", "one"}));
  EXPECT_EQ(events[1], (std::pair<std::string, std::string>{"error", "{\"a\":\n1}"}));
  EXPECT_EQ(events[2], (std::pair<std::string, std::string>{"", "no-space"}));
}

TEST(SseParser, AnySplitOfTheBytesGivesTheSameEvents) {
  std::string text = "data: alpha\r\n\r\nevent: x\ndata: beta\ndata: gamma\n\ndata: [DONE]\n\n";
  auto whole = parse({text});
  ASSERT_EQ(whole.size(), 3u);
  for (std::size_t i = 0; i <= text.size(); ++i)
    for (std::size_t j = i; j <= text.size(); j += 3) {
      std::string_view v(text);
      EXPECT_EQ(parse({v.substr(0, i), v.substr(i, j - i), v.substr(j)}), whole) << i << "," << j;
    }
  // One byte at a time.
  std::vector<std::string_view> bytes;
  for (std::size_t i = 0; i < text.size(); ++i) bytes.push_back(std::string_view(text).substr(i, 1));
  EXPECT_EQ(parse(bytes), whole);
}

TEST(SseParser, AnUnfinishedEventIsPending) {
  SseParser p;
  int n = 0;
  p.feed("data: half", [&](auto, auto) { ++n; });
  EXPECT_TRUE(p.pending());
  p.feed("\n", [&](auto, auto) { ++n; });
  EXPECT_TRUE(p.pending());
  p.feed("\n", [&](auto, auto) { ++n; });
  EXPECT_FALSE(p.pending());
  EXPECT_EQ(n, 1);
}

TEST(OpenAIStreamReader, TheServersStreamSplitAnywhereGivesTheSameMessage) {
  superstep::testing::ScriptedReply r;
  r.content = "Hi there, friend";
  r.tool_calls = {{"call_1", "lookup", {{"q", "x y"}, {"n", 3}}}};
  std::string text = superstep::testing::OpenAITestServer::event_stream(r, "m");
  for (std::size_t cut = 0; cut <= text.size(); cut += 7) {
    OpenAIStreamReader reader;
    std::string content;
    auto on = [&](const superstep::ChatChunk& c) { content += c.content; };
    reader.feed(std::string_view(text).substr(0, cut), on);
    reader.feed(std::string_view(text).substr(cut), on);
    superstep::Message m = reader.finish();
    EXPECT_EQ(content, "Hi there, friend");
    EXPECT_EQ(m.text(), "Hi there, friend");
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].args, json({{"q", "x y"}, {"n", 3}}));
    EXPECT_EQ(m.id, "chatcmpl-bench");
  }
}

TEST(OpenAIStreamReader, UnusualEventsTakeTheFullParse) {
  // usage (the last chunk), content blocks, and an error event mid-stream.
  OpenAIStreamReader reader;
  std::string content;
  auto on = [&](const superstep::ChatChunk& c) { content += c.content; };
  reader.feed("data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", on);
  reader.feed("data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", on);
  reader.feed("data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}\n\n", on);
  reader.feed("data: [DONE]\n\n", on);
  superstep::Message m = reader.finish();
  EXPECT_EQ(content, "Hi");
  EXPECT_EQ(m.response_metadata["usage"]["total_tokens"], 4);
  EXPECT_EQ(m.response_metadata["finish_reason"], "stop");
  EXPECT_EQ(m.response_metadata["model_name"], "m");

  OpenAIStreamReader failing;
  failing.feed("data: {\"id\":\"c2\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n", on);
  try {
    failing.feed("data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n", on);
    FAIL() << "expected ChatModelError";
  } catch (const superstep::ChatModelError& e) {
    EXPECT_NE(std::string(e.what()).find("the server reported an error mid-stream: model overloaded"), std::string::npos);
  }
}
