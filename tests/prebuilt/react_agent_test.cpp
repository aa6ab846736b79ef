// ToolNode, tools_condition and create_react_agent, with the model behind the real HTTP client
// (the local OpenAI-compatible test server).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <superstep/checkpoint/memory_saver.hpp>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/prebuilt/react_agent.hpp>
#include <superstep/superstep.hpp>

#include "llm/openai_test_server.hpp"

namespace sp = superstep;
using sp::json;
using sp::testing::OpenAITestServer;
using sp::testing::ScriptedReply;
using namespace std::chrono_literals;

namespace {

sp::Tool multiply() {
  return sp::Tool("multiply", "Multiplies two integers.",
                  {{"type", "object"},
                   {"properties", {{"a", {{"type", "integer"}}}, {"b", {{"type", "integer"}}}}},
                   {"required", {"a", "b"}}},
                  [](const json& a) -> json { return a["a"].get<int64_t>() * a["b"].get<int64_t>(); });
}

sp::Tool slow(std::string name, std::chrono::milliseconds delay, std::vector<std::string>* events, std::mutex* m) {
  return sp::Tool(std::move(name), "waits", {{"type", "object"}, {"properties", json::object()}},
                  [delay, events, m](json, const sp::Runtime& rt) -> sp::Task<json> {
                    {
                      std::lock_guard lock(*m);
                      events->push_back("start");
                    }
                    co_await sp::sleep_for(rt, delay);
                    std::lock_guard lock(*m);
                    events->push_back(std::to_string(delay.count()));
                    co_return json("slept " + std::to_string(delay.count()) + " ms");
                  });
}

/// A model that multiplies: "6 7" -> calls multiply(6, 7); a tool result -> "The answer is <it>."
ScriptedReply multiplying_model(const json& request) {
  const json& last = request["messages"].back();
  ScriptedReply r;
  if (last["role"] == "tool") {
    r.content = "The answer is " + last["content"].get<std::string>() + ".";
    return r;
  }
  std::istringstream in(last["content"].get<std::string>());
  int64_t a = 0, b = 0;
  in >> a >> b;
  r.tool_calls = {{"call_" + std::to_string(request["messages"].size()), "multiply", {{"a", a}, {"b", b}}}};
  return r;
}

std::shared_ptr<sp::OpenAIChatModel> model_for(const OpenAITestServer& s) {
  return std::make_shared<sp::OpenAIChatModel>(sp::OpenAIOptions{.model = "test-model", .base_url = s.base_url(), .timeout = 10s});
}

sp::State state_of(json values) {
  return sp::State(std::move(values));
}

sp::Message ai_calling(std::vector<sp::ToolCall> calls) { return sp::Message::ai("", std::move(calls)); }

json run_tool_node(const sp::ToolNode& node, const sp::Message& ai) {
  sp::StateGraph g(sp::messages_state());
  g.add_node("tools", [&node](const sp::State& s, sp::Runtime& rt) { return node(s, rt); });
  g.add_edge(sp::START, "tools");
  json out = g.compile().invoke(json{{"messages", {ai.to_json()}}});
  return json(std::vector<json>(out["messages"].begin() + 1, out["messages"].end()));
}

}  // namespace

TEST(ToolNode, RunsAllCallsAtOnceAndAnswersInCallOrder) {
  std::vector<std::string> events;
  std::mutex m;
  sp::ToolNode node({slow("slow", 400ms, &events, &m), slow("fast", 100ms, &events, &m)});
  json replies = run_tool_node(node, ai_calling({{"c1", "slow", json::object()}, {"c2", "fast", json::object()},
                                                 {"c3", "slow", json::object()}, {"c4", "fast", json::object()}}));
  ASSERT_EQ(replies.size(), 4u);
  ASSERT_EQ(events.size(), 8u);
  // All four started before any ended (in sequence, each would end before the next started)...
  EXPECT_EQ(std::vector<std::string>(events.begin(), events.begin() + 4), std::vector<std::string>(4, "start"));
  EXPECT_EQ(events[4], "100");  // ...the fast ones finished first...
  std::vector<std::string> ids;
  for (const json& r : replies) ids.push_back(r["tool_call_id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"c1", "c2", "c3", "c4"}));  // ...but answers keep call order
  EXPECT_EQ(replies[0]["content"], "slept 400 ms");
  EXPECT_EQ(replies[0]["type"], "tool");
  EXPECT_EQ(replies[0]["name"], "slow");
  EXPECT_EQ(replies[0]["status"], "success");
  EXPECT_EQ(replies[1]["content"], "slept 100 ms");
}

TEST(ToolNode, BadCallsBecomeErrorMessagesTheModelCanRead) {
  sp::Tool boom("boom", "fails", {{"type", "object"}}, [](const json&) -> json { throw std::runtime_error("disk full"); });
  sp::ToolNode node({multiply(), boom});
  json replies = run_tool_node(node, ai_calling({{"c1", "divide", {{"a", 1}}},
                                                 {"c2", "multiply", {{"a", 2}, {"b", "three"}}},
                                                 {"c3", "boom", json::object()},
                                                 {"c4", "multiply", {{"a", 2}, {"b", 3}}}}));
  ASSERT_EQ(replies.size(), 4u);
  // LangGraph.js' ToolNode's texts.
  EXPECT_EQ(replies[0]["content"], "Error: Tool \"divide\" not found.\n Please fix your mistakes.");
  EXPECT_EQ(replies[0]["status"], "error");
  EXPECT_EQ(replies[0]["name"], "divide");
  EXPECT_EQ(replies[0]["tool_call_id"], "c1");
  EXPECT_EQ(replies[1]["content"], "Error: Received tool input did not match expected schema\n Please fix your mistakes.");
  EXPECT_EQ(replies[1]["status"], "error");
  EXPECT_EQ(replies[2]["content"], "Error: disk full\n Please fix your mistakes.");
  EXPECT_EQ(replies[2]["status"], "error");
  EXPECT_EQ(replies[3]["content"], "6");
  EXPECT_EQ(replies[3]["status"], "success");

  // Without error handling, as LangGraph.js: every bad call fails the node, and says why.
  sp::ToolNode strict({multiply(), boom}, {.handle_tool_errors = false});
  auto failure = [&](std::vector<sp::ToolCall> calls) -> std::string {
    try {
      run_tool_node(strict, ai_calling(std::move(calls)));
    } catch (const sp::NodeError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(failure({{"c1", "boom", json::object()}}).find("disk full"), std::string::npos);
  EXPECT_NE(failure({{"c1", "divide", json::object()}}).find("Tool \"divide\" not found."), std::string::npos);
  EXPECT_NE(failure({{"c1", "multiply", {{"a", 2}, {"b", "three"}}}}).find("argument 'b': expected integer, got string"),
            std::string::npos);
  sp::ToolNode custom({boom}, {.format_error = [](const std::string& tool, const std::exception& e) {
                         return tool + " broke: " + e.what();
                       }});
  EXPECT_EQ(run_tool_node(custom, ai_calling({{"c1", "boom", json::object()}}))[0]["content"], "boom broke: disk full");
}

TEST(ToolNode, WithoutErrorHandlingAnUnknownToolFailsWithLangGraphJsText) {
  // The cause is LangGraph.js' own error ("Tool \"divide\" not found."); the NodeError around
  // it names the node (tests/differential ag_unknown_tool_unhandled).
  sp::ToolNode strict({multiply()}, {.handle_tool_errors = false});
  try {
    run_tool_node(strict, ai_calling({{"c1", "divide", json::object()}}));
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "tools");
    try {
      std::rethrow_exception(e.cause());
    } catch (const std::exception& cause) {
      EXPECT_STREQ(cause.what(), "Tool \"divide\" not found.");
    }
  }
}

TEST(ToolNode, AToolCanInterruptTheRunAndIsAnsweredOnResume) {
  // An async tool calls interrupt() with the Runtime it is given: the tools node pauses, and the
  // resume value reaches the tool when the node runs again (tests/differential ag_tool_interrupt).
  sp::Tool approve("approve", "asks", {{"type", "object"}, {"properties", {{"action", {{"type", "string"}}}}}},
                   [](json a, const sp::Runtime& rt) -> sp::Task<json> {
                     json answer = sp::interrupt(rt, json{{"approve", a["action"]}});
                     co_return json(a["action"].get<std::string>() + ": " + answer.get<std::string>());
                   });
  sp::ToolNode node({approve, multiply()});
  sp::StateGraph g(sp::messages_state());
  g.add_node("tools", [&node](const sp::State& s, sp::Runtime& rt) { return node(s, rt); });
  g.add_edge(sp::START, "tools");
  auto app = g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg{.thread_id = "t1"};
  json paused = app.invoke(
      json{{"messages", {ai_calling({{"c1", "multiply", {{"a", 2}, {"b", 3}}}, {"c2", "approve", {{"action", "deploy"}}}}).to_json()}}},
      cfg);
  ASSERT_TRUE(paused.contains("__interrupt__")) << paused.dump();
  EXPECT_EQ(paused["__interrupt__"][0]["value"], (json{{"approve", "deploy"}}));
  EXPECT_EQ(paused["messages"].size(), 1u);
  json out = app.invoke(sp::Command{.resume = "yes"}, cfg);
  ASSERT_EQ(out["messages"].size(), 3u) << out.dump();
  EXPECT_EQ(out["messages"][1]["content"], "6");
  EXPECT_EQ(out["messages"][2]["content"], "deploy: yes");
  EXPECT_EQ(out["messages"][2]["status"], "success");
}

TEST(ToolNode, RunsTheNewestAIMessagesCallsThatNoToolMessageAnswers) {
  sp::ToolNode node({multiply()});
  sp::StateGraph g(sp::messages_state());
  g.add_node("tools", [&node](const sp::State& s, sp::Runtime& rt) { return node(s, rt); });
  g.add_edge(sp::START, "tools");
  auto app = g.compile();
  // As LangGraph's: the newest AI message is found behind later messages, and a call already
  // answered (a tool message added by hand, say) does not run again.
  json answered = sp::Message::tool("by hand", "c1").to_json();
  json out = app.invoke(json{{"messages", {ai_calling({{"c1", "multiply", {{"a", 2}, {"b", 2}}},
                                                       {"c2", "multiply", {{"a", 3}, {"b", 3}}}}).to_json(),
                                           answered, "and then?"}}});
  ASSERT_EQ(out["messages"].size(), 4u) << out.dump();
  EXPECT_EQ(out["messages"][3]["tool_call_id"], "c2");
  EXPECT_EQ(out["messages"][3]["content"], "9");
  try {
    app.invoke(json{{"messages", {"hello"}}});
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_NE(std::string(e.what()).find("ToolNode: no AI message in 'messages' (the newest is a human message)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ToolsCondition, RoutesToToolsOnlyWhenTheLastAIMessageCallsTools) {
  EXPECT_EQ(sp::tools_condition(state_of({{"messages", {ai_calling({{"c", "multiply", json::object()}}).to_json()}}})), "tools");
  EXPECT_EQ(sp::tools_condition(state_of({{"messages", {sp::Message::ai("done").to_json()}}})), sp::END);
  EXPECT_EQ(sp::tools_condition(state_of({{"messages", {sp::Message::human("hi").to_json()}}})), sp::END);
  EXPECT_EQ(sp::tools_condition(state_of({{"messages", json::array()}})), sp::END);
}

TEST(ReactAgent, CallsToolsThenAnswers) {
  OpenAITestServer server(multiplying_model);
  auto agent = sp::create_react_agent(model_for(server), {multiply()}, {.prompt = "You multiply."});
  json out = agent.invoke(json{{"messages", {"6 7"}}});
  const json& msgs = out["messages"];
  ASSERT_EQ(msgs.size(), 4u) << msgs.dump(2);
  EXPECT_EQ(msgs[0]["type"], "human");
  EXPECT_EQ(msgs[1]["type"], "ai");
  EXPECT_EQ(msgs[1]["tool_calls"][0]["args"], json({{"a", 6}, {"b", 7}}));
  EXPECT_EQ(msgs[2]["type"], "tool");
  EXPECT_EQ(msgs[2]["content"], "42");
  EXPECT_EQ(msgs[2]["tool_call_id"], msgs[1]["tool_calls"][0]["id"]);
  EXPECT_EQ(msgs[3]["content"], "The answer is 42.");
  for (const json& m : msgs) EXPECT_FALSE(m["id"].get<std::string>().empty());

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["messages"][0], json({{"role", "system"}, {"content", "You multiply."}}));
  EXPECT_EQ(requests[0]["tools"][0]["function"]["name"], "multiply");
  EXPECT_EQ(requests[1]["messages"].size(), 4u);  // system, human, ai, tool
  EXPECT_EQ(agent.get_graph().draw_mermaid().find("agent") != std::string::npos, true);
}

TEST(ReactAgent, PausesBeforeToolsAndResumesWithMemory) {
  OpenAITestServer server(multiplying_model);
  auto saver = std::make_shared<sp::InMemorySaver>();
  auto agent = sp::create_react_agent(model_for(server), {multiply()},
                                      {.checkpointer = saver, .interrupt_before_tools = true});
  sp::RunConfig cfg{.thread_id = "t1"};
  agent.invoke(json{{"messages", {"3 5"}}}, cfg);
  sp::StateSnapshot paused = agent.get_state(cfg);
  EXPECT_EQ(paused.next, std::vector<std::string>{"tools"});
  EXPECT_EQ(paused.values["messages"].size(), 2u);
  json out = agent.invoke(nullptr, cfg);  // approve: run the tools
  EXPECT_EQ(out["messages"].back()["content"], "The answer is 15.");
  // Same thread, next turn: the conversation is remembered.
  agent.invoke(json{{"messages", {"2 2"}}}, cfg);
  out = agent.invoke(nullptr, cfg);
  EXPECT_EQ(out["messages"].size(), 8u);
  EXPECT_EQ(out["messages"].back()["content"], "The answer is 4.");
}

TEST(ReactAgent, ATooLongToolLoopIsARecursionErrorUnlessAStepBudgetStopsIt) {
  OpenAITestServer server([](const json& req) {
    ScriptedReply r;  // never satisfied: always asks for another multiplication
    r.tool_calls = {{"call_" + std::to_string(req["messages"].size()), "multiply", {{"a", 1}, {"b", 1}}}};
    return r;
  });
  // As LangGraph.js' agent: the recursion limit ends the loop with GraphRecursionError.
  auto unlimited = sp::create_react_agent(model_for(server), {multiply()});
  EXPECT_THROW(unlimited.invoke(json{{"messages", {"loop"}}}, {.recursion_limit = 8}), sp::GraphRecursionError);

  // A step budget answers politely instead (LangGraph Python's remaining-steps rule).
  auto budgeted = sp::create_react_agent(model_for(server), {multiply()}, {.step_budget = 6});
  json out = budgeted.invoke(json{{"messages", {"loop"}}});
  EXPECT_EQ(out["messages"].back()["content"], "Sorry, need more steps to process this request.");
  EXPECT_TRUE(out["messages"].back()["tool_calls"].empty());
}

TEST(ReactAgent, ANamedAgentSignsItsMessagesAndSkipsInvalidToolCalls) {
  int turn = 0;
  OpenAITestServer server([&turn](const json&) {
    ScriptedReply r;
    if (turn++ == 0) {
      r.tool_calls = {{"call_ok", "multiply", {{"a", 2}, {"b", 5}}}, {"call_bad", "multiply", json("{\"a\": 2,")}};
    } else {
      r.content = "10";
    }
    return r;
  });
  auto agent = sp::create_react_agent(model_for(server), {multiply()}, {.name = "calc"});
  json out = agent.invoke(json{{"messages", {"2 5"}}});
  const json& msgs = out["messages"];
  ASSERT_EQ(msgs.size(), 4u) << out.dump();
  // The bad call is an invalid tool call: not run, not answered, and not sent back to the model.
  EXPECT_EQ(msgs[1]["name"], "calc");
  ASSERT_EQ(msgs[1]["tool_calls"].size(), 1u);
  ASSERT_EQ(msgs[1]["invalid_tool_calls"].size(), 1u);
  EXPECT_EQ(msgs[1]["invalid_tool_calls"][0]["id"], "call_bad");
  EXPECT_EQ(msgs[2]["tool_call_id"], "call_ok");
  EXPECT_EQ(msgs[3]["content"], "10");
  EXPECT_EQ(msgs[3]["name"], "calc");
  json sent = server.requests().at(1)["messages"];
  EXPECT_EQ(sent[1]["name"], "calc");
  EXPECT_EQ(sent[1]["content"], "");
  ASSERT_EQ(sent[1]["tool_calls"].size(), 1u);
  EXPECT_EQ(sent[1]["tool_calls"][0]["id"], "call_ok");
}

TEST(ReactAgent, StreamsTokensFromTheAgentNode) {
  OpenAITestServer server(multiplying_model);
  auto agent = sp::create_react_agent(model_for(server), {multiply()});
  std::string text;
  std::set<std::string> nodes;
  for (const sp::StreamPart& p : agent.stream(json{{"messages", {"4 4"}}}, {}, {sp::StreamMode::messages})) {
    nodes.insert(p.data[1]["langgraph_node"].get<std::string>());
    if (p.data[0]["type"] == "AIMessageChunk") text += p.data[0]["content"].get<std::string>();
  }
  EXPECT_EQ(text, "The answer is 16.");
  EXPECT_EQ(nodes, (std::set<std::string>{"agent", "tools"}));  // tool messages are shown as the tools node returns them
}

namespace {
/// remember(name): a Command setting `user` beside its own tool message (LangGraph's "update
/// state from tools").
sp::Tool remember() {
  return sp::Tool("remember", "Remembers the user's name.",
                  {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}, {"required", {"name"}}},
                  [](const json& a, const sp::ToolRuntime& rt) -> sp::ToolResult {
                    sp::Message m = sp::Message::tool("saved " + a["name"].get<std::string>(), rt.tool_call_id());
                    return sp::Command{.update = {{"messages", {m.to_json()}}, {"user", a["name"]}}};
                  });
}
}  // namespace

TEST(ToolNode, ToolsReturningCommandsUpdateStateAndRouteBesidePlainTools) {
  sp::Tool count("count", "Counts.", {{"type", "object"}, {"properties", {{"by", {{"type", "integer"}}}}}},
                 [](const json& a, const sp::ToolRuntime& rt) -> sp::ToolResult {
                   return sp::Command{.update = {{"count", a["by"]}, {"messages", {sp::Message::tool("counted", rt.call.id).to_json()}}},
                                      .go_to = "after"};
                 });
  sp::Tool echo("echo", "Echoes.", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}},
                [](json a, sp::ToolRuntime rt) -> sp::Task<sp::ToolResult> {
                  sp::Message m = sp::Message::tool("echo " + a["text"].get<std::string>(), rt.call.id);
                  m.id = "mine";
                  co_return m;  // its own tool message, kept as it is
                });
  sp::StateSchema schema = sp::messages_state();
  schema.field("user").field("count", sp::reducers::add, 0).field("trace", sp::reducers::append, json::array());
  sp::StateGraph g(schema);
  g.add_node("tools", sp::ToolNode({remember(), multiply(), count, echo}), {.ends = {"after"}});
  g.add_node("after", [](const sp::State&) { return json{{"trace", {"after"}}}; });
  g.add_edge(sp::START, "tools");
  auto app = g.compile();
  sp::Message ai = ai_calling({{"c1", "remember", {{"name", "Ada"}}}, {"c2", "multiply", {{"a", 2}, {"b", 3}}},
                               {"c3", "count", {{"by", 2}}}, {"c4", "echo", {{"text", "hi"}}}});
  json updates = json::array();
  json last;
  for (const sp::StreamPart& p : app.stream(json{{"messages", {ai.to_json()}}}, {}, {sp::StreamMode::updates, sp::StreamMode::values})) {
    if (p.mode == sp::StreamMode::updates) updates.push_back(p.data);
    else last = p.data;
  }
  EXPECT_EQ(last["user"], "Ada");
  EXPECT_EQ(last["count"], 2);
  EXPECT_EQ(last["trace"], json({"after"}));  // the Command's go_to ran `after`
  std::vector<std::string> contents;
  for (const json& m : last["messages"]) contents.push_back(m["content"]);
  EXPECT_EQ(contents, (std::vector<std::string>{"", "saved Ada", "6", "counted", "echo hi"}));  // call order
  EXPECT_EQ(last["messages"][4]["id"], "mine");
  // The tools node wrote `messages` four times: its `updates` part lists each write.
  ASSERT_EQ(updates.size(), 2u);
  const json& tools = updates[0]["tools"];
  ASSERT_TRUE(tools.is_array()) << tools.dump();
  ASSERT_EQ(tools.size(), 6u) << tools.dump();
  EXPECT_EQ(tools[1], json({{"user", "Ada"}}));
  EXPECT_EQ(tools[2]["messages"][0]["content"], "6");
}

TEST(ToolNode, ACommandOnlyGoesThroughACallAndRunRefusesIt) {
  sp::Tool r = remember();
  EXPECT_TRUE(!r.is_async());
  EXPECT_THROW(r.invoke(json{{"name", "Ada"}}), sp::Error);  // a Command has no plain value
  EXPECT_THROW(r.invoke(json{{"name", 1}}), sp::ToolArgumentError);  // validated first
  sp::Tool plain("plain", "A value from a call-seeing tool.", {{"type", "object"}},
                 [](const json&, const sp::ToolRuntime& rt) -> sp::ToolResult { return "for " + rt.call.name; });
  EXPECT_EQ(plain.invoke(json::object()), "for plain");
  sp::ToolNode node({remember()});
  sp::StateGraph g(sp::messages_state());
  g.add_node("tools", [&node](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    const sp::Message ai = sp::Message::from_json(s["messages"].back());
    sp::Task<std::vector<sp::Message>> run = node.run(ai, rt);
    std::vector<sp::Message> out = co_await std::move(run);
    co_return json{{"messages", json::array()}};
  });
  g.add_edge(sp::START, "tools");
  try {
    g.compile().invoke(json{{"messages", {ai_calling({{"c1", "remember", {{"name", "Ada"}}}}).to_json()}}});
    FAIL();
  } catch (const sp::NodeError& e) {
    EXPECT_NE(std::string(e.what()).find("returned a Command"), std::string::npos) << e.what();
  }
}

TEST(ReactAgent, AStateSchemaOfItsOwnTakesToolCommandsAndMustHoldMessages) {
  sp::StateSchema bad;
  bad.field("user");
  OpenAITestServer unused(multiplying_model);
  EXPECT_THROW(sp::create_react_agent(model_for(unused), {remember()}, {.state_schema = bad}), sp::Error);

  OpenAITestServer server([](const json& request) {
    ScriptedReply r;
    if (request["messages"].back()["role"] == "tool") r.content = "Hello.";
    else r.tool_calls = {{"call_1", "remember", {{"name", "Ada"}}}};
    return r;
  });
  sp::StateSchema schema = sp::messages_state();
  schema.field("user");
  auto agent = sp::create_react_agent(model_for(server), {remember()}, {.state_schema = schema});
  json out = agent.invoke(json{{"messages", {"I am Ada"}}});
  EXPECT_EQ(out["user"], "Ada");
  ASSERT_EQ(out["messages"].size(), 4u) << out.dump();
  EXPECT_EQ(out["messages"][2]["content"], "saved Ada");
  EXPECT_EQ(out["messages"][3]["content"], "Hello.");
}

TEST(ToolNode, ACallSeeingToolReadsTheStateAndTheRunsContext) {
  sp::Tool who("who", "Reads the state.", {{"type", "object"}, {"properties", json::object()}},
               [](json, sp::ToolRuntime rt) -> sp::Task<sp::ToolResult> {
                 co_return "user " + (*rt.state)["user"].get<std::string>() + ", call " + rt.tool_call_id() + ", " +
                     rt.runtime->context()["x"].dump();
               });
  sp::StateSchema schema = sp::messages_state();
  schema.field("user");
  sp::StateGraph g(schema);
  g.add_node("tools", sp::ToolNode({who}));
  g.add_edge(sp::START, "tools");
  sp::RunConfig cfg;
  cfg.context = json{{"x", 1}};
  json out = g.compile().invoke(json{{"messages", {ai_calling({{"c1", "who", json::object()}}).to_json()}}, {"user", "Ada"}}, cfg);
  EXPECT_EQ(out["messages"][1]["content"], "user Ada, call c1, 1");
}
