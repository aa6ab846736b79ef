// OpenAIChatModel: a ChatModel for any OpenAI-compatible chat completions endpoint (OpenAI,
// Ollama, vLLM, llama.cpp's server, LM Studio, ...), over libcurl.
//
//   sp::OpenAIChatModel llm;                       // from the environment, or:
//   sp::OpenAIChatModel llm({.model = "llama3.1", .base_url = "http://localhost:11434/v1"});
//
// - Settings left empty come from OPENAI_BASE_URL (default https://api.openai.com/v1),
//   OPENAI_API_KEY and SUPERSTEP_MODEL; a missing model, or a missing key for api.openai.com,
//   is an Error at construction that says what to set.
// - Every request of the process goes through one I/O thread (a libcurl multi handle) with
//   connection reuse: a thousand calls in flight hold no worker thread.
// - 429, 408 and 5xx replies, timeouts and failed connections are retried with exponential
//   backoff (honouring Retry-After / retry-after-ms), unless part of a stream was delivered.
//   Other 4xx replies fail at once with the server's own message.
// - Streams (server-sent events) deliver text and tool-call arguments as they arrive; a stream
//   cut before its end is an error, never a silently shortened reply.
// Thread-safe: immutable after construction.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "superstep/llm/chat_model.hpp"

namespace superstep {

namespace internal {
class HttpLoop;
}

struct OpenAIOptions {
  std::string model;     ///< else $SUPERSTEP_MODEL
  std::string base_url;  ///< else $OPENAI_BASE_URL, else https://api.openai.com/v1
  std::string api_key;   ///< else $OPENAI_API_KEY (may stay empty for local servers)
  std::chrono::milliseconds timeout{600000};        ///< one attempt, start to end
  std::chrono::milliseconds connect_timeout{10000};
  int max_retries = 2;                              ///< attempts after the first
  std::chrono::milliseconds retry_initial{500};     ///< backoff: initial, doubled per retry
  std::chrono::milliseconds retry_max{8000};        ///< backoff cap (Retry-After may exceed it)
  ChatOptions defaults;                             ///< options of every call
};

class OpenAIChatModel final : public ChatModel {
 public:
  explicit OpenAIChatModel(OpenAIOptions options = {});

  void start(ChatRequest request, ChatCallbacks callbacks) const override;
  std::shared_ptr<ChatModel> clone() const override { return std::make_shared<OpenAIChatModel>(*this); }
  std::string provider() const override { return "openai"; }
  std::string model_name() const override { return config_->model; }

  const std::string& base_url() const noexcept { return config_->base_url; }

  /// The request body for `request` (what start() sends), for inspection and tests.
  json request_body(const ChatRequest& request) const;

  struct Config {
    OpenAIOptions options;
    std::string model;
    std::string base_url;
    std::string url;  // base_url + /chat/completions
    std::vector<std::string> headers;
    std::shared_ptr<internal::HttpLoop> loop;
  };

 private:
  std::shared_ptr<const Config> config_;
};

}  // namespace superstep
