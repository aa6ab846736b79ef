// Faults of a chat model's endpoint at the graph level: a node streams a reply from
// OpenAIChatModel over real loopback HTTP (the local OpenAI-compatible test server) while the
// endpoint refuses connections, resets the connection mid-stream, stalls beyond the model's
// timeout or sends garbage events. The node fails with a NodeError naming it, whose cause is a
// ChatModelError naming the model, the URL and what went wrong; with a RetryPolicy on the node
// it is retried as the policy says (attempts counted at the server) and succeeds once the
// endpoint heals, or fails after max_attempts. The model's own retries are off (max_retries 0),
// so every attempt is the node's.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/superstep.hpp>

#include "llm/openai_test_server.hpp"

namespace {

namespace sp = superstep;
using sp::json;
using sp::testing::OpenAITestServer;
using sp::testing::ScriptedReply;
using namespace std::chrono_literals;

constexpr const char* kAnswer = "Lisbon is the capital of Portugal, on the Tagus.";

ScriptedReply answer() {
  ScriptedReply r;
  r.content = kAnswer;
  return r;
}

sp::OpenAIChatModel model_at(const std::string& base_url, std::chrono::milliseconds timeout = 5s) {
  return sp::OpenAIChatModel(
      {.model = "fault-model", .base_url = base_url, .api_key = "sk-test", .timeout = timeout, .max_retries = 0});
}

/// A retry policy with short, fixed pauses.
sp::RetryPolicy retry(int attempts) {
  return sp::RetryPolicy{.initial_interval = 0.01, .backoff_factor = 1.0, .max_attempts = attempts, .jitter = false};
}

/// START -> ask -> END; `ask` streams the model's reply to the question into `answer`. `calls`
/// counts the node's runs.
sp::CompiledStateGraph graph(const sp::OpenAIChatModel& model, std::optional<sp::RetryPolicy> policy,
                             std::shared_ptr<std::atomic<int>> calls) {
  sp::StateSchema s;
  s.field("question").field("answer");
  sp::StateGraph g(s);
  g.add_node(
      "ask",
      [model, calls](const sp::State& st) {
        ++*calls;
        std::string text;
        for (const sp::ChatChunk& c : model.stream({sp::Message::human(st["question"].get<std::string>())})) text += c.content;
        return json{{"answer", text}};
      },
      {.retry = policy});
  g.add_edge(sp::START, "ask");
  g.add_edge("ask", sp::END);
  return g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>(), .name = "chat"});
}

const json kInput = {{"question", "capital of Portugal?"}};

/// What the run threw: a NodeError for node 'ask' whose cause is a ChatModelError; returns it.
std::optional<sp::ChatModelError> node_failure(const sp::CompiledStateGraph& app, const std::string& thread) {
  try {
    app.invoke(kInput, sp::RunConfig{.thread_id = thread});
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "ask");
    EXPECT_NE(std::string(e.what()).find("node 'ask' failed in step 1"), std::string::npos) << e.what();
    try {
      std::rethrow_exception(e.cause());
    } catch (const sp::ChatModelError& cause) {
      EXPECT_NE(std::string(e.what()).find(cause.what()), std::string::npos) << e.what();
      return cause;
    } catch (const std::exception& other) {
      ADD_FAILURE() << "the cause is not a ChatModelError: " << other.what();
    }
    return std::nullopt;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a NodeError, got: " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "expected the run to fail";
  return std::nullopt;
}

// Nothing listens on the port: each attempt fails at once with "request failed" (connection
// refused), transient, so the default retry_on retries it: max_attempts runs of the node.
TEST(ChatModelFaults, ConnectionRefusedFailsTheNodeAfterItsRetries) {
  std::string url;
  {
    OpenAITestServer gone;
    url = gone.base_url();
  }
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto app = graph(model_at(url), retry(3), calls);
  auto cause = node_failure(app, "refused");
  ASSERT_TRUE(cause);
  std::string what = cause->what();
  EXPECT_NE(what.find("chat model 'fault-model' at " + url + ": request failed: "), std::string::npos) << what;
  EXPECT_TRUE(cause->transient());
  EXPECT_EQ(cause->status(), 0);
  EXPECT_EQ(calls->load(), 3);
  // The failed step left the thread at its input, with the node still to run.
  auto state = app.get_state(sp::RunConfig{.thread_id = "refused"});
  EXPECT_EQ(state.values, kInput);
  EXPECT_EQ(state.next, std::vector<std::string>{"ask"});
}

// The server sends half of the stream, then drops the connection, twice; the third attempt gets
// the whole reply. The node's policy retries it (three requests at the server) and the run ends
// with the whole answer, not a piece of it.
TEST(ChatModelFaults, ResetMidStreamIsRetriedByTheNodesPolicyUntilTheEndpointHeals) {
  OpenAITestServer server;
  for (int i = 0; i < 2; ++i) {
    ScriptedReply dropped = answer();
    dropped.drop_connection = true;
    server.push(dropped);
  }
  server.push(answer());
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto app = graph(model_at(server.base_url()), retry(3), calls);
  json out = app.invoke(kInput, sp::RunConfig{.thread_id = "reset"});
  EXPECT_EQ(out["answer"], kAnswer);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(calls->load(), 3);
}

// The same resets with no RetryPolicy on the node: the first one fails it.
TEST(ChatModelFaults, ResetMidStreamWithoutAPolicyFailsTheNodeNamingTheModel) {
  OpenAITestServer server;
  ScriptedReply dropped = answer();
  dropped.drop_connection = true;
  server.push(dropped);
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto app = graph(model_at(server.base_url()), std::nullopt, calls);
  auto cause = node_failure(app, "reset-once");
  ASSERT_TRUE(cause);
  std::string what = cause->what();
  EXPECT_NE(what.find("chat model 'fault-model' at " + server.base_url() + ": request failed: "), std::string::npos) << what;
  EXPECT_TRUE(cause->transient());
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(calls->load(), 1);
}

// The server stalls longer than the model's timeout (100 ms) on every request: each attempt
// times out, and the node fails after its policy's two attempts, in about two timeouts.
TEST(ChatModelFaults, StallBeyondTheTimeoutFailsAfterMaxAttemptsWithoutHanging) {
  OpenAITestServer server;
  for (int i = 0; i < 2; ++i) {
    ScriptedReply stalled = answer();
    stalled.delay = 1500ms;
    server.push(stalled);
  }
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto app = graph(model_at(server.base_url(), 100ms), retry(2), calls);
  auto t0 = std::chrono::steady_clock::now();
  auto cause = node_failure(app, "stall");
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(cause);
  std::string what = cause->what();
  EXPECT_NE(what.find("request failed: "), std::string::npos) << what;
  EXPECT_NE(what.find("timed out"), std::string::npos) << what;
  EXPECT_TRUE(cause->transient());
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(calls->load(), 2);
  EXPECT_LT(took, 1450ms);  // two 100 ms timeouts, not the server's 1.5 s stalls (even one would be 1.5 s)
}

// Garbage events: not a transient failure, so the default retry_on does not retry it (one
// request), and the error quotes the garbage. A policy that retries everything retries it.
TEST(ChatModelFaults, GarbageSseFailsTheNodeNamingTheEventAndIsNotRetriedByDefault) {
  OpenAITestServer server;
  ScriptedReply garbage;
  garbage.raw_events = {R"({"id":"c","choices":[{"index":0,"delta":{"content":"Lis"}}]})", "\x01\x02 <html>oops"};
  server.push(garbage);
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto app = graph(model_at(server.base_url()), retry(3), calls);
  auto cause = node_failure(app, "garbage");
  ASSERT_TRUE(cause);
  std::string what = cause->what();
  EXPECT_NE(what.find("chat model 'fault-model' at " + server.base_url() + ": the stream sent an event that is not JSON: "),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("<html>oops"), std::string::npos) << what;
  EXPECT_FALSE(cause->transient());
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(calls->load(), 1);

  server.push(garbage);
  server.push(answer());
  sp::RetryPolicy always = retry(2);
  always.retry_on = [](std::exception_ptr) { return true; };
  auto retried = graph(model_at(server.base_url()), always, calls);
  EXPECT_EQ(retried.invoke(kInput, sp::RunConfig{.thread_id = "garbage-retried"})["answer"], kAnswer);
  EXPECT_EQ(server.request_count(), 3u);
}

}  // namespace
