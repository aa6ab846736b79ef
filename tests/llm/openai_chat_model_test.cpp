// OpenAIChatModel against the local OpenAI-compatible test server over real loopback HTTP:
// replies, streams, tool calls, retries, errors, timeouts, structured output, connection reuse.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/superstep.hpp>

#include "llm/openai_test_server.hpp"

namespace sp = superstep;
using sp::json;
using sp::testing::OpenAITestServer;
using sp::testing::ScriptedReply;
using namespace std::chrono_literals;

namespace {

sp::OpenAIChatModel model_for(const OpenAITestServer& s, int retries = 2) {
  return sp::OpenAIChatModel({.model = "test-model",
                              .base_url = s.base_url(),
                              .api_key = "sk-test",
                              .timeout = 5s,
                              .max_retries = retries,
                              .retry_initial = 5ms});
}

ScriptedReply text(std::string content) {
  ScriptedReply r;
  r.content = std::move(content);
  return r;
}

ScriptedReply calls(std::vector<sp::ToolCall> c) {
  ScriptedReply r;
  r.tool_calls = std::move(c);
  return r;
}

sp::Tool add_tool() {
  return sp::Tool("add", "Adds two numbers.",
                  {{"type", "object"},
                   {"properties", {{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}},
                   {"required", {"a", "b"}}},
                  [](const json& a) -> json { return a["a"].get<double>() + a["b"].get<double>(); });
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(OpenAIChatModel, InvokeSendsOpenAIChatFormatAndParsesTheReply) {
  OpenAITestServer server;
  server.push(text("Hello there"));
  auto llm = model_for(server).bind_tools({add_tool()}, "auto")->with_options({.temperature = 0.25, .max_tokens = 50});
  sp::Message reply = llm->invoke({sp::Message::system("be brief"), sp::Message::human("hi")});
  EXPECT_EQ(reply.type, sp::MessageType::ai);
  EXPECT_EQ(reply.text(), "Hello there");
  EXPECT_EQ(reply.id, "chatcmpl-1");
  EXPECT_EQ(reply.response_metadata["finish_reason"], "stop");
  EXPECT_EQ(reply.response_metadata["model_name"], "test-model");
  EXPECT_EQ(reply.response_metadata["usage"]["total_tokens"], 15);
  EXPECT_EQ(reply.response_metadata["model_provider"], "openai");
  // LangChain's token counts, as ChatOpenAI fills them.
  EXPECT_EQ(reply.usage_metadata, json::parse(R"({"input_tokens":10,"output_tokens":5,"total_tokens":15,
      "input_token_details":{},"output_token_details":{}})"));

  json req = server.requests().at(0);
  EXPECT_EQ(req["model"], "test-model");
  EXPECT_EQ(req["messages"], json::parse(R"([{"role":"system","content":"be brief"},{"role":"user","content":"hi"}])"));
  EXPECT_EQ(req["tools"][0]["function"]["name"], "add");
  EXPECT_EQ(req["tools"][0]["function"]["parameters"]["required"], json({"a", "b"}));
  EXPECT_EQ(req["tool_choice"], "auto");
  EXPECT_EQ(req["temperature"], 0.25);
  EXPECT_EQ(req["max_tokens"], 50);
  EXPECT_FALSE(req.contains("stream"));
}

TEST(OpenAIChatModel, ToolCallsAreParsedAndSentBackInOpenAIFormat) {
  OpenAITestServer server;
  server.push(calls({{"call_1", "add", {{"a", 2}, {"b", 3}}}, {"call_2", "add", {{"a", 1}, {"b", 1}}}}));
  server.push(text("5 and 2"));
  auto llm = model_for(server);
  sp::Message ask = sp::Message::human("add");
  sp::Message first = llm.invoke({ask});
  ASSERT_EQ(first.tool_calls.size(), 2u);
  EXPECT_EQ(first.tool_calls[0], (sp::ToolCall{"call_1", "add", {{"a", 2}, {"b", 3}}}));
  EXPECT_EQ(first.tool_calls[1].id, "call_2");
  EXPECT_EQ(first.response_metadata["finish_reason"], "tool_calls");

  llm.invoke({ask, first, sp::Message::tool("5", "call_1"), sp::Message::tool("2", "call_2")});
  json sent = server.requests().at(1)["messages"];
  EXPECT_EQ(sent[1]["role"], "assistant");
  EXPECT_EQ(sent[1]["tool_calls"][0]["function"]["arguments"], R"({"a":2,"b":3})");
  EXPECT_EQ(sent[2], json::parse(R"({"role":"tool","content":"5","tool_call_id":"call_1"})"));
}

TEST(OpenAIChatModel, StreamDeliversPiecesAsTheyArriveAndTheMergedMessage) {
  OpenAITestServer server;
  ScriptedReply r = text("The answer is 42.");
  r.piece_chars = 3;
  server.push(r);
  auto llm = model_for(server);
  sp::ChatStream stream = llm.stream({sp::Message::human("q")});
  std::vector<std::string> pieces;
  for (const sp::ChatChunk& c : stream) {
    pieces.push_back(c.content);
    EXPECT_EQ(c.id, "chatcmpl-1");
  }
  EXPECT_EQ(pieces, (std::vector<std::string>{"The", " an", "swe", "r i", "s 4", "2."}));
  EXPECT_EQ(stream.message().text(), "The answer is 42.");
  EXPECT_EQ(stream.message().response_metadata["usage"]["total_tokens"], 15);
  EXPECT_EQ(stream.message().usage_metadata["output_tokens"], 5);
  EXPECT_EQ(server.requests().at(0)["stream"], true);
  EXPECT_EQ(server.requests().at(0)["stream_options"]["include_usage"], true);
}

TEST(OpenAIChatModel, StreamedToolCallArgumentsAreAssembled) {
  OpenAITestServer server;
  server.push(calls({{"call_a", "add", {{"a", 20}, {"b", 22}}}, {"call_b", "add", {{"a", 1}, {"b", 2}}}}));
  auto llm = model_for(server);
  sp::ChatStream stream = llm.stream({sp::Message::human("q")});
  std::string args0;
  std::size_t pieces = 0;
  for (const sp::ChatChunk& c : stream)
    for (const json& tc : c.tool_call_chunks) {
      ++pieces;
      if (tc["index"] == 0) args0 += tc["args"].get<std::string>();
    }
  EXPECT_GT(pieces, 4u);
  EXPECT_EQ(json::parse(args0), json({{"a", 20}, {"b", 22}}));
  const sp::Message& m = stream.message();
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0], (sp::ToolCall{"call_a", "add", {{"a", 20}, {"b", 22}}}));
  EXPECT_EQ(m.tool_calls[1], (sp::ToolCall{"call_b", "add", {{"a", 1}, {"b", 2}}}));
}

TEST(OpenAIChatModel, RateLimitIsRetriedAfterRetryAfter) {
  OpenAITestServer server;
  ScriptedReply limited;
  limited.status = 429;
  limited.error_message = "Rate limit reached";
  limited.retry_after = "0.3";
  server.push(limited);
  server.push(text("ok"));
  auto llm = model_for(server);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(llm.invoke({sp::Message::human("q")}).text(), "ok");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 290ms);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(OpenAIChatModel, ServerErrorsAreRetriedThenReportedWithTheServersMessage) {
  OpenAITestServer server;
  for (int i = 0; i < 3; ++i) {
    ScriptedReply r;
    r.status = 503;
    r.error_message = "overloaded, try later";
    server.push(r);
  }
  server.push(text("never reached"));
  auto llm = model_for(server, /*retries=*/2);
  try {
    llm.invoke({sp::Message::human("q")});
    FAIL() << "expected ChatModelError";
  } catch (const sp::ChatModelError& e) {
    EXPECT_EQ(e.status(), 503);
    std::string what = e.what();
    EXPECT_NE(what.find("chat model 'test-model' at " + server.base_url()), std::string::npos) << what;
    EXPECT_NE(what.find("HTTP 503 (after 3 attempts): overloaded, try later"), std::string::npos) << what;
  }
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(OpenAIChatModel, ClientErrorsFailAtOnceWithTheServersMessage) {
  OpenAITestServer server;
  ScriptedReply r;
  r.status = 400;
  r.error_message = "Invalid 'messages[0].role': 'robot'";
  server.push(r);
  auto llm = model_for(server);
  std::string what = error_of([&] { llm.invoke({sp::Message::human("q")}); });
  EXPECT_NE(what.find("HTTP 400: Invalid 'messages[0].role': 'robot'"), std::string::npos) << what;
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAIChatModel, MalformedRepliesAreClearErrors) {
  OpenAITestServer server;
  auto llm = model_for(server);
  ScriptedReply bad_json;
  bad_json.raw_body = "{\"choices\": [";
  server.push(bad_json);
  EXPECT_NE(error_of([&] { llm.invoke({sp::Message::human("q")}); }).find("the reply is not JSON: {\"choices\": ["),
            std::string::npos);

  ScriptedReply no_choices;
  no_choices.raw_body = R"({"id": "x", "object": "chat.completion"})";
  server.push(no_choices);
  EXPECT_NE(error_of([&] { llm.invoke({sp::Message::human("q")}); }).find("no choices[0].message"), std::string::npos);

  ScriptedReply bad_args;
  bad_args.raw_body =
      R"({"id":"c","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,)"
      R"("tool_calls":[{"id":"call_9","type":"function","function":{"name":"add","arguments":"{\"a\": 1,"}}]}}]})";
  server.push(bad_args);
  // Arguments that are not JSON make an invalid tool call, as LangChain's: no tool runs it.
  sp::Message odd = llm.invoke({sp::Message::human("q")});
  EXPECT_TRUE(odd.tool_calls.empty());
  ASSERT_EQ(odd.invalid_tool_calls.size(), 1u) << odd.to_json().dump();
  EXPECT_EQ(odd.invalid_tool_calls[0], (json{{"type", "invalid_tool_call"}, {"id", "call_9"}, {"name", "add"},
                                             {"args", "{\"a\": 1,"}, {"error", "Malformed args."}}));

  ScriptedReply bad_event;
  bad_event.raw_events = {R"({"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]})", "{not json"};
  server.push(bad_event);
  std::string what = error_of([&] {
    for (auto& c : llm.stream({sp::Message::human("q")})) (void)c;
  });
  EXPECT_NE(what.find("the stream sent an event that is not JSON: {not json"), std::string::npos) << what;

  // Streamed: a call whose pieces do not make JSON is invalid, the one beside it is kept; a
  // text cut off at its end is closed, as LangChain.js reads its streamed pieces (partial JSON).
  ScriptedReply cut_args;
  cut_args.raw_events = {
      R"({"id":"s","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"add","arguments":"{\"a\": 1}}"}}]}}]})",
      R"({"id":"s","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"add","arguments":"{\"a\": 2, \"b\": 3}"}}]}}]})",
      R"({"id":"s","choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_c","type":"function","function":{"name":"add","arguments":"{\"a\": 4, \"b\": 5"}}]}}]})",
      R"({"id":"s","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})", "[DONE]"};
  server.push(cut_args);
  sp::ChatStream s = llm.stream({sp::Message::human("q")});
  std::vector<json> chunks;
  for (auto& c : s) chunks.push_back(c.to_json());
  ASSERT_EQ(s.message().tool_calls.size(), 2u);
  EXPECT_EQ(s.message().tool_calls[0].id, "call_b");
  EXPECT_EQ(s.message().tool_calls[1].id, "call_c");
  EXPECT_EQ(s.message().tool_calls[1].args, (json{{"a", 4}, {"b", 5}}));
  ASSERT_EQ(s.message().invalid_tool_calls.size(), 1u);
  EXPECT_EQ(s.message().invalid_tool_calls[0]["args"], "{\"a\": 1}}");
  // Each chunk's dict has the tool calls its own pieces make (LangChain's chunks do).
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0]["invalid_tool_calls"].size(), 1u);
  EXPECT_EQ(chunks[1]["tool_calls"], json::parse(R"([{"name":"add","args":{"a":2,"b":3},"id":"call_b","type":"tool_call"}])"));
  EXPECT_EQ(chunks[2]["tool_calls"][0]["args"], (json{{"a", 4}, {"b", 5}}));
}

TEST(OpenAIChatModel, CutStreamsAreErrorsNeverShortReplies) {
  OpenAITestServer server;
  auto llm = model_for(server);
  ScriptedReply cut = text("a long answer that is cut in the middle");
  cut.cut_stream = true;
  server.push(cut);
  std::string got;
  std::string what = error_of([&] {
    for (auto& c : llm.stream({sp::Message::human("q")})) got += c.content;
  });
  EXPECT_FALSE(got.empty());  // the pieces before the cut were delivered...
  EXPECT_NE(what.find("the stream was cut before its end"), std::string::npos) << what;  // ...then the error

  ScriptedReply dropped = text("another long answer, dropped mid-way by the server");
  dropped.drop_connection = true;
  server.push(dropped);
  what = error_of([&] {
    for (auto& c : llm.stream({sp::Message::human("q")})) (void)c;
  });
  EXPECT_NE(what.find("request failed"), std::string::npos) << what;
  EXPECT_EQ(server.request_count(), 2u);  // pieces were delivered: neither stream was retried
}

TEST(OpenAIChatModel, UnreachableServerFailsAfterRetries) {
  int port;
  {
    OpenAITestServer gone;
    port = gone.port();
  }
  sp::OpenAIChatModel llm({.model = "m", .base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1",
                           .max_retries = 1, .retry_initial = 1ms});
  std::string what = error_of([&] { llm.invoke({sp::Message::human("q")}); });
  EXPECT_NE(what.find("request failed (after 2 attempts): "), std::string::npos) << what;
}

TEST(OpenAIChatModel, SlowRepliesTimeOut) {
  OpenAITestServer server;
  ScriptedReply slow = text("late");
  slow.delay = 400ms;
  server.push(slow);
  sp::OpenAIChatModel llm({.model = "m", .base_url = server.base_url(), .timeout = 100ms, .max_retries = 0});
  std::string what = error_of([&] { llm.invoke({sp::Message::human("q")}); });
  EXPECT_NE(what.find("timed out"), std::string::npos) << what;
}

TEST(OpenAIChatModel, ConnectionsAreReused) {
  OpenAITestServer server;
  auto llm = model_for(server);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(llm.invoke({sp::Message::human("n" + std::to_string(i))}).text(), "echo: n" + std::to_string(i));
  EXPECT_EQ(server.request_count(), 5u);
  EXPECT_EQ(server.connection_count(), 1u);
}

TEST(OpenAIChatModel, StructuredOutputAsksForTheSchemaAndParsesIt) {
  OpenAITestServer server;
  server.push(text(R"({"city": "Paris", "population": 2100000})"));
  server.push(text("Paris, I think"));
  json schema = {{"type", "object"},
                 {"properties", {{"city", {{"type", "string"}}}, {"population", {{"type", "integer"}}}}},
                 {"required", {"city", "population"}},
                 {"additionalProperties", false}};
  auto structured = model_for(server).with_structured_output(schema, "city_info");
  json out = structured.invoke({sp::Message::human("largest city of France?")});
  EXPECT_EQ(out, json({{"city", "Paris"}, {"population", 2100000}}));
  json rf = server.requests().at(0)["response_format"];
  EXPECT_EQ(rf["type"], "json_schema");
  EXPECT_EQ(rf["json_schema"]["name"], "city_info");
  EXPECT_EQ(rf["json_schema"]["schema"], schema);
  EXPECT_THROW(structured.invoke({sp::Message::human("again")}), sp::OutputParserError);
}

TEST(OpenAIChatModel, MissingSettingsSayWhatToSet) {
  ::unsetenv("SUPERSTEP_MODEL");
  ::unsetenv("OPENAI_BASE_URL");
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_NE(error_of([] { sp::OpenAIChatModel m; }).find("set SUPERSTEP_MODEL"), std::string::npos);
  EXPECT_NE(error_of([] { sp::OpenAIChatModel m({.model = "gpt-4o-mini"}); }).find("set OPENAI_API_KEY"), std::string::npos);
  ::setenv("SUPERSTEP_MODEL", "llama3.1", 1);
  ::setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/", 1);
  sp::OpenAIChatModel local;  // a local server needs no key
  EXPECT_EQ(local.model_name(), "llama3.1");
  EXPECT_EQ(local.base_url(), "http://localhost:11434/v1");
  ::unsetenv("SUPERSTEP_MODEL");
  ::unsetenv("OPENAI_BASE_URL");
}

TEST(Tool, ArgumentsAreCheckedAgainstTheSchema) {
  sp::Tool add = add_tool();
  EXPECT_EQ(add.validate({{"a", 1}, {"b", 2.5}}), "");
  EXPECT_EQ(add.validate({{"a", 1}}), "missing required argument 'b'");
  EXPECT_EQ(add.validate({{"a", 1}, {"b", "two"}}), "argument 'b': expected number, got string");
  EXPECT_EQ(add.validate(json::array()), "arguments must be a JSON object, got array");
  EXPECT_EQ(add.invoke({{"a", 1}, {"b", 2}}), 3.0);
  EXPECT_THROW(add.invoke({{"a", 1}}), sp::ToolArgumentError);

  sp::Tool strict("pick", "", {{"type", "object"},
                               {"properties", {{"mode", {{"enum", {"fast", "slow"}}}},
                                               {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                                               {"n", {{"type", "integer"}}}}},
                               {"additionalProperties", false}},
                  [](const json&) -> json { return "ok"; });
  EXPECT_EQ(strict.validate({{"mode", "medium"}}), R"(argument 'mode': "medium" is not one of ["fast","slow"])");
  EXPECT_EQ(strict.validate({{"tags", {"a", 2}}}), "argument 'tags[1]': expected string, got integer");
  EXPECT_EQ(strict.validate({{"n", 1.5}}), "argument 'n': expected integer, got number");
  EXPECT_EQ(strict.validate({{"n", 2.0}}), "");
  EXPECT_EQ(strict.validate({{"color", "red"}}), "unexpected argument 'color'");
  EXPECT_THROW(sp::Tool("bad name", "", {{"type", "object"}}, [](const json&) -> json { return 1; }), sp::Error);
  EXPECT_THROW(sp::Tool("t", "", {{"type", "string"}}, [](const json&) -> json { return 1; }), sp::Error);
  EXPECT_EQ(sp::Tool::content_of("text"), "text");
  EXPECT_EQ(sp::Tool::content_of(json{{"x", 1}}), R"({"x":1})");
}

// --- typed_tool: the schema from a struct ---
#include <superstep/llm/typed_tool.hpp>

struct Place {
  std::string city;
  std::optional<std::string> country;
};
struct WeatherArgs {
  Place place;
  int days = 1;
  double min_temp = 0;
  bool hourly = false;
  std::vector<std::string> fields;
  std::optional<int> limit;
};
SUPERSTEP_STATE(Place, SUPERSTEP_FIELD(Place, city), SUPERSTEP_FIELD(Place, country));
SUPERSTEP_STATE(WeatherArgs, SUPERSTEP_FIELD(WeatherArgs, place), SUPERSTEP_FIELD(WeatherArgs, days),
                SUPERSTEP_FIELD(WeatherArgs, min_temp), SUPERSTEP_FIELD(WeatherArgs, hourly),
                SUPERSTEP_FIELD(WeatherArgs, fields), SUPERSTEP_FIELD(WeatherArgs, limit));

TEST(TypedTool, SchemaFromTheStructAndArgumentsConverted) {
  sp::Tool t = sp::typed_tool<WeatherArgs>(
      "weather", "Forecast.",
      [](const WeatherArgs& a) -> json {
        return a.place.city + "/" + a.place.country.value_or("?") + "/" + std::to_string(a.days) + "/" +
               std::to_string(a.fields.size()) + "/" + (a.limit ? std::to_string(*a.limit) : "none");
      },
      {{"days", "how many days"}});
  const json& p = t.parameters();
  EXPECT_EQ(p["required"], json({"place", "days", "min_temp", "hourly", "fields"}));
  EXPECT_EQ(p["properties"]["days"], json({{"type", "integer"}, {"description", "how many days"}}));
  EXPECT_EQ(p["properties"]["min_temp"]["type"], "number");
  EXPECT_EQ(p["properties"]["hourly"]["type"], "boolean");
  EXPECT_EQ(p["properties"]["fields"], json({{"type", "array"}, {"items", {{"type", "string"}}}}));
  EXPECT_EQ(p["properties"]["limit"]["type"], "integer");
  EXPECT_EQ(p["properties"]["place"]["required"], json({"city"}));
  EXPECT_EQ(p["additionalProperties"], false);
  json args = {{"place", {{"city", "Oslo"}}}, {"days", 3}, {"min_temp", -2.5}, {"hourly", true}, {"fields", {"wind", "rain"}}};
  EXPECT_EQ(t.invoke(args), "Oslo/?/3/2/none");
  args["limit"] = 5;
  args["place"]["country"] = "NO";
  EXPECT_EQ(t.invoke(args), "Oslo/NO/3/2/5");
  EXPECT_EQ(t.validate({{"place", {{"city", "Oslo"}}}, {"days", "3"}, {"min_temp", 0}, {"hourly", false}, {"fields", json::array()}}),
            "argument 'days': expected integer, got string");
  EXPECT_EQ(t.validate({{"place", json::object()}, {"days", 1}, {"min_temp", 0}, {"hourly", false}, {"fields", json::array()}}),
            "missing required argument 'place.city'");
}
