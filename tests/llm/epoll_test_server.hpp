// EpollTestServer: the OpenAI-compatible test server as one epoll thread, for load tests. A
// thousand clients waiting on delayed replies cost it one thread and a timer heap, not a
// thousand threads (cpp-httplib's model), so what a benchmark measures is the client. HTTP/1.1
// with keep-alive and Content-Length bodies; streamed replies are sent whole (SSE text).
#pragma once

#include <memory>
#include <string>

#include "llm/openai_test_server.hpp"

namespace superstep::testing {

class EpollTestServer {
 public:
  explicit EpollTestServer(OpenAITestServer::Handler handler);
  ~EpollTestServer();
  EpollTestServer(const EpollTestServer&) = delete;
  EpollTestServer& operator=(const EpollTestServer&) = delete;
  std::string base_url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep::testing
