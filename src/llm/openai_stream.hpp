// Reading OpenAI chat completion replies: a whole reply (parse_completion) and a streamed one
// (OpenAIStreamReader: server-sent events -> chunks as they arrive -> the merged message).
// Pure functions over bytes and JSON: no I/O, so tests and the SSE benchmark drive them directly.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "llm/sse_parser.hpp"
#include "superstep/llm/chat_model.hpp"

namespace superstep::internal {

/// The AI message of a non-streamed chat completion. Throws ChatModelError (without the
/// model's name: the caller adds it) when the reply is not a chat completion or a tool call's
/// arguments are not JSON.
Message parse_completion(const json& body);

class OpenAIStreamReader {
 public:
  /// Feeds stream bytes; `on_chunk` for each piece of message they complete. Throws
  /// ChatModelError on an error event or a chunk that is not JSON.
  void feed(std::string_view bytes, const std::function<void(const ChatChunk&)>& on_chunk);
  /// The merged message once the stream has ended. Throws ChatModelError when the stream was
  /// cut before its end or a tool call's arguments are not JSON.
  Message finish();

 private:
  void event(std::string_view data, const std::function<void(const ChatChunk&)>& on_chunk);
  /// The general path: the whole event as a DOM (errors, usage, content blocks).
  void event_dom(std::string_view data, const std::function<void(const ChatChunk&)>& on_chunk);

  struct PartialCall {
    std::string id, name, args;
  };
  SseParser sse_;
  std::string id_;
  std::string content_;
  std::map<int, PartialCall> calls_;  // by the stream's tool call index
  std::string finish_reason_;
  std::string model_;
  json usage_;
  bool done_ = false;
};

}  // namespace superstep::internal
