// The partial-JSON reading of streamed tool calls, against LangChain.js itself: every expected
// value below is what @langchain/core 1.4.0 (tests/differential's lockfile) gives for the same
// input (parsePartialJson; AIMessageChunk's tool_calls and invalid_tool_calls; concat), printed
// by node when the test was written.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "messages/message_chunks.hpp"

using superstep::json;
using superstep::internal::collapse_tool_call_chunks;
using superstep::internal::concat_message_chunk;
using superstep::internal::parse_partial_json;

TEST(PartialJson, ReadsWhatLangChainJsReadsFromCutOffText) {
  // LangChain.js answers null both for a text it cannot read and for the value null.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"~~({"a": 1})~~", R"~~({"a": 1})~~"},
      {R"~~()~~", R"~~(null)~~"},
      {R"~~(   )~~", R"~~(null)~~"},
      {R"~~({"exp)~~", R"~~({})~~"},
      {R"~~({"expression": "1+)~~", R"~~({"expression": "1+"})~~"},
      {R"~~({"a": 1, )~~", R"~~({"a": 1})~~"},
      {R"~~({"a": [1, 2)~~", R"~~({"a": [1, 2]})~~"},
      {R"~~({"a": {"b": tr)~~", R"~~({"a": {"b": true}})~~"},
      {R"~~([1, 2,)~~", R"~~([1, 2])~~"},
      {R"~~({"a": -)~~", R"~~({"a": 0})~~"},
      {R"~~({"a": 1.)~~", R"~~({"a": 1})~~"},
      {R"~~({"a": 1e)~~", R"~~({"a": 1})~~"},
      {R"~~({"a": 12.5e+3)~~", R"~~({"a": 12500})~~"},
      {R"~~({"a": "x\)~~", R"~~({"a": "x\\"})~~"},
      {R"~~({"a": "\u00e9", "b": "\u00)~~", R"~~({"a": "é", "b": "u00"})~~"},
      {R"~~({"a": "\ud83d\ude00"}x)~~", R"~~(null)~~"},
      {R"~~(not json)~~", R"~~(null)~~"},
      {R"~~({"a" 1})~~", R"~~(null)~~"},
      {R"~~({"a": 01})~~", R"~~(null)~~"},
      {R"~~(nul)~~", R"~~(null)~~"},
      {R"~~(fa)~~", R"~~(false)~~"},
      {R"~~(  {"q": "we)~~", R"~~({"q": "we"})~~"},
      {R"~~({"a": "b"} trailing)~~", R"~~(null)~~"},
      {R"~~("just a string)~~", R"~~("just a string")~~"},
      {R"~~(-)~~", R"~~(0)~~"},
      {R"~~({"a": [)~~", R"~~({"a": []})~~"},
      {R"~~({"a": {}, "b": [{"c": nul)~~", R"~~({"a": {}, "b": [{"c": null}]})~~"},
      {R"~~({"k": "line
break)~~", R"~~({"k": "line\nbreak"})~~"},
      {R"~~(5)~~", R"~~(5)~~"},
      {R"~~([1])~~", R"~~([1])~~"},
      {R"~~({"a": .5})~~", R"~~(null)~~"}};
  for (const auto& [text, expected] : cases) {
    std::optional<json> got = parse_partial_json(text);
    EXPECT_EQ(got.value_or(json()), json::parse(expected)) << "input: " << text;
  }
}

TEST(PartialJson, ANumberCutBeforeItsFractionIsThatWholeNumber) {
  EXPECT_TRUE(parse_partial_json(R"({"a": 1.)")->at("a").is_number_integer());
  EXPECT_TRUE(parse_partial_json(R"({"a": 1.25)")->at("a").is_number_float());
  EXPECT_FALSE(parse_partial_json(R"({"a": "\u12x4"})").has_value());  // a bad escape
}

TEST(PartialJson, ToolCallPiecesCollapseAsLangChainJsCollapsesThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"~~([{"index": 0, "id": "call_1", "name": "search", "args": "{\"q\": \"we"}, {"index": 0, "args": "ather\"}"}, {"index": 1, "id": "call_2", "name": "calc", "args": "{\"x\": 1"}])~~", R"~~({"tool_calls": [{"name": "search", "args": {"q": "weather"}, "id": "call_1", "type": "tool_call"}, {"name": "calc", "args": {"x": 1}, "id": "call_2", "type": "tool_call"}], "invalid_tool_calls": []})~~"},
      {R"~~([{"index": 0, "args": "{\"exp"}])~~", R"~~({"tool_calls": [], "invalid_tool_calls": [{"name": "", "args": "{\"exp", "error": "Malformed args.", "type": "invalid_tool_call"}]})~~"},
      {R"~~([{"index": 0, "id": "c", "name": "f", "args": "not json"}])~~", R"~~({"tool_calls": [], "invalid_tool_calls": [{"name": "f", "args": "not json", "id": "c", "error": "Malformed args.", "type": "invalid_tool_call"}]})~~"},
      {R"~~([{"index": 0, "id": "c", "name": "f", "args": ""}])~~", R"~~({"tool_calls": [{"name": "f", "args": {}, "id": "c", "type": "tool_call"}], "invalid_tool_calls": []})~~"},
      {R"~~([{"index": 0, "id": "c", "name": "f", "args": "[1, 2]"}])~~", R"~~({"tool_calls": [], "invalid_tool_calls": [{"name": "f", "args": "[1, 2]", "id": "c", "error": "Malformed args.", "type": "invalid_tool_call"}]})~~"},
      {R"~~([{"id": "a", "name": "f", "args": "{\"x\":"}, {"id": "a", "args": " 2}"}, {"id": "b", "name": "g", "args": "{}"}])~~", R"~~({"tool_calls": [{"name": "f", "args": {"x": 2}, "id": "a", "type": "tool_call"}, {"name": "g", "args": {}, "id": "b", "type": "tool_call"}], "invalid_tool_calls": []})~~"},
      {R"~~([{"index": 0, "id": "a", "name": "f", "args": "{}"}, {"index": 0, "id": "b", "name": "g", "args": "{}"}])~~", R"~~({"tool_calls": [{"name": "f", "args": {}, "id": "a", "type": "tool_call"}, {"name": "g", "args": {}, "id": "b", "type": "tool_call"}], "invalid_tool_calls": []})~~"}};
  for (const auto& [pieces, expected] : cases)
    EXPECT_EQ(collapse_tool_call_chunks(json::parse(pieces)), json::parse(expected)) << "pieces: " << pieces;
}

TEST(PartialJson, ChunksConcatenateAsLangChainJsConcatenatesThem) {
  json acc;
  concat_message_chunk(acc, json::parse(R"~~({"type": "AIMessageChunk", "id": "m1", "content": "Hi",
      "tool_call_chunks": [{"index": 0, "id": "call_1", "name": "search", "args": "{\"q\": \"we", "type": "tool_call_chunk"}]})~~"));
  concat_message_chunk(acc, json::parse(R"~~({"type": "AIMessageChunk", "id": "m1", "content": " there",
      "tool_call_chunks": [{"index": 0, "args": "ather\"}", "type": "tool_call_chunk"},
                           {"index": 1, "id": "call_2", "name": "calc", "args": "{\"x\"", "type": "tool_call_chunk"}]})~~"));
  json expected = json::parse(R"~~({"content": "Hi there", "tool_call_chunks": [{"index": 0, "id": "call_1", "name": "search", "args": "{\"q\": \"weather\"}"}, {"index": 1, "id": "call_2", "name": "calc", "args": "{\"x\""}], "tool_calls": [{"name": "search", "args": {"q": "weather"}, "id": "call_1", "type": "tool_call"}, {"name": "calc", "args": {}, "id": "call_2", "type": "tool_call"}], "invalid_tool_calls": []})~~");
  EXPECT_EQ(acc["content"], expected["content"]);
  json pieces = acc["tool_call_chunks"];
  for (json& p : pieces) p.erase("type");  // LangChain.js' own pieces above were made without it
  EXPECT_EQ(pieces, expected["tool_call_chunks"]);
  EXPECT_EQ(acc["tool_calls"], expected["tool_calls"]);
  EXPECT_EQ(acc["invalid_tool_calls"], expected["invalid_tool_calls"]);
  EXPECT_EQ(acc["id"], "m1");
}
