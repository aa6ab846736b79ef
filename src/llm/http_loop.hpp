// HttpLoop: one thread driving every HTTP transfer of the process through a libcurl multi
// handle, so a thousand requests in flight cost one thread and their sockets, not a thousand
// threads. Callbacks run on the loop's thread and must not block. Connections are reused
// (the multi handle's connection cache). Thread-safe: start() may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::internal {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::string body;
  std::vector<std::string> headers;  ///< "Name: value"
  std::chrono::milliseconds timeout{60000};          ///< whole transfer; 0 = none
  std::chrono::milliseconds connect_timeout{10000};
};

struct HttpResult {
  long status = 0;             ///< HTTP status; 0 when no response arrived
  std::string error;           ///< transport error (connection refused, timeout, ...); empty if none
  std::string retry_after;     ///< the Retry-After header, if any
  std::string retry_after_ms;  ///< the retry-after-ms header (OpenAI), if any
};

/// What a transfer reports. on_body gets the body as it arrives (with the status known); it
/// returns false to abort the transfer. on_done is called exactly once, last.
struct HttpHandler {
  std::function<bool(long status, std::string_view bytes)> on_body;
  std::function<void(const HttpResult&)> on_done;
};

class HttpLoop {
 public:
  HttpLoop();
  /// Stops the thread; transfers still in flight end with the error "HTTP client shut down".
  ~HttpLoop();
  HttpLoop(const HttpLoop&) = delete;
  HttpLoop& operator=(const HttpLoop&) = delete;

  /// Starts `req` after `delay` (0: at once).
  void start(HttpRequest req, HttpHandler handler, std::chrono::milliseconds delay = {});

  /// The process's loop: created on first use, kept while some client holds it.
  static std::shared_ptr<HttpLoop> shared();

  /// Transfers started and not finished (for tests and benchmarks).
  std::size_t in_flight() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep::internal
