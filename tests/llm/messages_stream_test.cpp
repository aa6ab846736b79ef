// Models inside nodes: the `messages` stream mode (tokens while the node runs, with LangGraph's
// metadata; returned messages not streamed before), coroutine model calls holding no thread.
#include <gtest/gtest.h>

#include <chrono>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/superstep.hpp>

#include "llm/openai_test_server.hpp"

namespace sp = superstep;
using sp::json;
using sp::testing::OpenAITestServer;
using sp::testing::ScriptedReply;
using namespace std::chrono_literals;

namespace {
sp::OpenAIChatModel model_for(const OpenAITestServer& s) {
  return sp::OpenAIChatModel({.model = "test-model", .base_url = s.base_url(), .timeout = 10s});
}
}  // namespace

TEST(MessagesStream, TokensArriveWhileTheNodeRunsWithTheTasksMetadata) {
  OpenAITestServer server;
  ScriptedReply r;
  r.content = "Hello world!";
  r.piece_chars = 4;
  server.push(r);
  auto llm = model_for(server);

  sp::StateGraph g(sp::messages_state());
  g.add_node("greet", [](const sp::State&) -> sp::NodeResult {
    return json{{"messages", {{{"type", "ai"}, {"content", "Let me ask."}, {"id", "greet-1"}}}}};
  });
  g.add_node("agent", [&](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    sp::Message reply = co_await llm.ainvoke(sp::to_messages(s["messages"]), rt);
    co_await sp::sleep_for(rt, 300ms);  // the node keeps running after the model replied
    co_return json{{"messages", {reply}}};
  });
  g.add_edge(sp::START, "greet");
  g.add_edge("greet", "agent");
  auto app = g.compile();

  std::vector<std::string> order;
  std::vector<std::string> tokens;
  std::chrono::steady_clock::time_point first_token, agent_update;
  json meta;
  for (const sp::StreamPart& p : app.stream(json{{"messages", {"hi"}}}, {}, {sp::StreamMode::messages, sp::StreamMode::updates})) {
    if (p.mode == sp::StreamMode::updates) {
      order.push_back("update:" + p.data.begin().key());
      if (p.data.contains("agent")) agent_update = std::chrono::steady_clock::now();
      continue;
    }
    const json& chunk = p.data[0];
    if (chunk["type"] == "AIMessageChunk") {
      if (tokens.empty()) {
        first_token = std::chrono::steady_clock::now();
        meta = p.data[1];
      }
      tokens.push_back(chunk["content"]);
      order.push_back("token");
    } else {
      order.push_back("message:" + chunk["id"].get<std::string>());
      EXPECT_EQ(p.data[1]["langgraph_node"], "greet");
    }
  }
  EXPECT_EQ(tokens, (std::vector<std::string>{"Hell", "o wo", "rld!"}));
  // greet's returned message is shown once; agent's reply was streamed, so it is not repeated.
  EXPECT_EQ(order, (std::vector<std::string>{"message:greet-1", "update:greet", "token", "token", "token", "update:agent"}));
  EXPECT_GE(agent_update - first_token, 150ms);  // the node sleeps 300 ms after the reply (a consumer that read the first token late narrows the gap)
  EXPECT_EQ(meta["langgraph_node"], "agent");
  EXPECT_EQ(meta["langgraph_step"], 2);
  EXPECT_EQ(meta["langgraph_triggers"], json({"branch:to:agent"}));
  EXPECT_EQ(meta["langgraph_path"], json({"__pregel_pull", "agent"}));
  EXPECT_EQ(meta["ls_provider"], "openai");
  EXPECT_EQ(meta["ls_model_name"], "test-model");
  EXPECT_TRUE(meta["langgraph_checkpoint_ns"].get<std::string>().starts_with("agent:"));
  EXPECT_EQ(meta["checkpoint_ns"], meta["langgraph_checkpoint_ns"]);
  EXPECT_EQ(server.requests().at(0)["stream"], true);
}

TEST(MessagesStream, WithoutMessagesModeTheModelIsNotStreamed) {
  OpenAITestServer server;
  auto llm = model_for(server);
  sp::StateGraph g(sp::messages_state());
  g.add_node("agent", [&](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"messages", {llm.invoke(sp::to_messages(s["messages"]), rt)}}};
  });
  g.add_edge(sp::START, "agent");
  json out = g.compile().invoke(json{{"messages", {"ping"}}});
  EXPECT_EQ(out["messages"][1]["content"], "echo: ping");
  EXPECT_FALSE(server.requests().at(0).contains("stream"));
}

TEST(MessagesStream, BlockingInvokeInsideANodeStreamsToo) {
  OpenAITestServer server;
  auto llm = model_for(server);
  sp::StateGraph g(sp::messages_state());
  g.add_node("agent", [&](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"messages", {llm.invoke(sp::to_messages(s["messages"]), rt)}}};
  });
  g.add_edge(sp::START, "agent");
  std::string text;
  int parts = 0;
  for (const sp::StreamPart& p : g.compile().stream(json{{"messages", {"ping pong"}}}, {}, {sp::StreamMode::messages})) {
    text += p.data[0]["content"].get<std::string>();
    ++parts;
  }
  EXPECT_EQ(text, "echo: ping pong");
  EXPECT_GT(parts, 2);
}

TEST(MessagesStream, TwoHundredWaitingModelCallsShareTwoThreads) {
  OpenAITestServer server([](const json&) {
    ScriptedReply r;
    r.content = "ok";
    r.delay = 200ms;
    return r;
  }, 256);
  auto llm = model_for(server);
  sp::StateSchema schema;
  schema.field("done", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  g.add_node("ask", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::vector<sp::Message> ask{sp::Message::human("q")};  // (GCC 12: no braced list in a coroutine call)
    sp::Message m = co_await llm.ainvoke(std::move(ask), rt);
    co_return json{{"done", m.text() == "ok" ? 1 : 0}};
  });
  g.add_conditional_edges(sp::START, [](const sp::State&) { return std::vector<sp::Send>(200, sp::Send{"ask", json::object()}); });
  auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(2)});
  auto t0 = std::chrono::steady_clock::now();
  json out = app.invoke(json::object());
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(out["done"], 200);
  // One call per thread at a time would keep at most 2 waiting at once and take 20 s. (The time
  // bound is wide: sanitizers and a loaded machine slow every thread several times over.)
  EXPECT_GE(server.max_concurrent(), 10);
  EXPECT_LT(took, 10s) << "server saw at most " << server.max_concurrent() << " requests at once";
}
