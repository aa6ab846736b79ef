// OpenAITestServer: a local OpenAI-compatible chat completions server (cpp-httplib on
// loopback) that replays scripted replies, so tests, examples and benchmarks exercise the real
// HTTP client end to end. Replies come from a queue (push), else from a handler, else echo the
// last message. Streaming requests get server-sent events split into small pieces. Failure
// modes: HTTP errors with Retry-After, malformed JSON bodies and events, streams cut before
// their end, connections dropped mid-stream, slow replies. `GET /v1/requests` returns the
// request bodies received so far (another process's view of requests()). Thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <set>
#include <thread>
#include <vector>

#include <superstep/messages/message.hpp>

namespace superstep::testing {

struct ScriptedReply {
  int status = 200;
  std::string content;                 ///< the assistant's text
  std::vector<ToolCall> tool_calls;    ///< the tools it calls
  std::string error_message;           ///< status >= 400: OpenAI's {"error": {"message"}}
  std::string retry_after;             ///< Retry-After header, if set
  std::string raw_body;                ///< non-streamed: sent as is instead of a completion
  std::vector<std::string> raw_events; ///< streamed: these event data lines instead
  bool cut_stream = false;             ///< streamed: end cleanly after half the pieces, no [DONE]
  bool drop_connection = false;        ///< streamed: abort the connection after half the pieces
  std::chrono::milliseconds delay{0};  ///< wait before answering
  std::size_t piece_chars = 4;         ///< streamed: characters of text per event
};

class OpenAITestServer {
 public:
  using Handler = std::function<ScriptedReply(const nlohmann::json& request)>;
  /// Listens on a free loopback port. `threads`: connections served at once (each waiting
  /// reply holds one server thread; the client's side is what the tests measure).
  /// `keep_alive`: serve many requests per connection. httplib polls idle kept-alive
  /// connections every millisecond from their threads, so a server for a thousand clients runs
  /// without it (one request per connection).
  explicit OpenAITestServer(Handler handler = {}, int threads = 16, bool keep_alive = true);
  ~OpenAITestServer();
  OpenAITestServer(const OpenAITestServer&) = delete;
  OpenAITestServer& operator=(const OpenAITestServer&) = delete;

  /// Queues a reply for the next request (before the handler is asked).
  void push(ScriptedReply reply);
  /// http://127.0.0.1:<port>/v1
  std::string base_url() const;
  int port() const noexcept { return port_; }
  /// The bodies of the requests received so far, in arrival order.
  std::vector<nlohmann::json> requests() const;
  std::size_t request_count() const;
  /// Distinct client connections seen (by remote port): fewer than requests means reuse.
  std::size_t connection_count() const;
  /// The most requests that were being answered at once.
  int max_concurrent() const;

  /// The reply of a scripted step as the server would send it (used by the SSE benchmark):
  /// the event-stream text of `reply`.
  static std::string event_stream(const ScriptedReply& reply, const std::string& model);
  /// The body of a non-streamed reply: a chat.completion (or raw_body).
  static std::string completion_body(const ScriptedReply& reply, const std::string& id, const std::string& model);

 private:
  ScriptedReply next(const nlohmann::json& request);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  Handler handler_;
  int port_ = 0;
  mutable std::mutex mutex_;  // guards queue_ and requests_
  std::deque<ScriptedReply> queue_;
  std::vector<nlohmann::json> requests_;
  std::vector<int> remote_ports_;
  std::thread thread_;
};

/// Script files (examples' tests, the CLI server): a JSON array of replies
/// [{"content": "...", "tool_calls": [{"id", "name", "args"}], "status", "delay_ms",
/// "piece_chars", ...}]. `args` may be a string: sent as the arguments text as it is.
ScriptedReply reply_from_json(const nlohmann::json& j);

}  // namespace superstep::testing
