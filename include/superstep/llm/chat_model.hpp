// ChatModel: the interface of a chat LLM, and the ways to call one. An implementation provides
// start() (begin one request, report through callbacks); invoke, ainvoke and stream are built
// on it, so every model gets blocking calls, coroutine calls that hold no thread while the model
// thinks, token streams, tool binding and structured output.
//
//   sp::OpenAIChatModel llm({.model = "gpt-4o-mini"});
//   auto agent_llm = llm.bind_tools({add, search});
//   g.add_node("agent", [&](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
//     sp::Message reply = co_await agent_llm->ainvoke(sp::to_messages(s["messages"]), rt);
//     co_return json{{"messages", {reply}}};
//   });
//
// Called with the node's Runtime, a model streams its tokens to the run's `messages` stream
// mode (as LangGraph does for any model called inside a node) while the node still runs.
// A ChatModel is immutable after construction: share one between threads and runs freely; it
// must outlive the calls made on it.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/llm/tool.hpp"
#include "superstep/messages/message.hpp"
#include "superstep/pull_iterator.hpp"
#include "superstep/runtime.hpp"
#include "superstep/task.hpp"

namespace superstep {

/// Sampling and output options of a call (unset ones are left to the server).
struct ChatOptions {
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::vector<std::string> stop;
  json response_format;  ///< null, or OpenAI's response_format object
  json tool_choice;      ///< null, "auto", "none", "required", or a tool name
  json extra;            ///< null, or an object merged into the request body as is
};

/// One streamed piece of an AI message: some text and/or pieces of tool calls. to_json() is
/// LangChain's AIMessageChunk dict.
struct ChatChunk {
  std::string id;
  std::string content;
  json tool_call_chunks = json::array();  ///< [{index, id, name, args (a JSON text piece)}]
  json response_metadata = json::object();
  json to_json() const;
};

/// One request to a model.
struct ChatRequest {
  std::vector<Message> messages;
  ChatOptions options;
  std::vector<Tool> tools;
  bool stream = false;
};

/// How a request reports. on_chunk (streaming only) is called for every piece as it arrives;
/// then exactly one of on_message / on_error. All are called on the client's I/O thread and
/// must not block.
struct ChatCallbacks {
  std::function<void(const ChatChunk&)> on_chunk;
  std::function<void(Message)> on_message;
  std::function<void(std::exception_ptr)> on_error;
};

class ChatStream;
class StructuredOutput;

class ChatModel {
 public:
  virtual ~ChatModel() = default;

  /// Begins `request`; returns at once. The implementation's one job.
  virtual void start(ChatRequest request, ChatCallbacks callbacks) const = 0;
  /// A copy (used by bind_tools and with_options).
  virtual std::shared_ptr<ChatModel> clone() const = 0;
  /// Provider and model, for stream metadata (ls_provider, ls_model_name).
  virtual std::string provider() const { return "unknown"; }
  virtual std::string model_name() const { return ""; }

  /// Blocks until the reply. Throws ChatModelError.
  Message invoke(const std::vector<Message>& messages) const;
  /// Same, inside a node: streams tokens to the run's `messages` mode when it is wanted.
  Message invoke(const std::vector<Message>& messages, const Runtime& rt) const;
  /// Inside a coroutine node: suspends (no thread held) until the reply, streaming tokens to
  /// the run's `messages` mode when it is wanted. Throws ChatModelError.
  Task<Message> ainvoke(std::vector<Message> messages, const Runtime& rt) const;
  /// Streams the reply: iterate the chunks, then read message(). Blocks between chunks.
  ChatStream stream(const std::vector<Message>& messages) const;

  /// A model that offers `tools` to the model on every call. `tool_choice`: see ChatOptions.
  std::shared_ptr<ChatModel> bind_tools(std::vector<Tool> tools, json tool_choice = nullptr) const;
  /// A model whose calls use `options` (merged over this model's).
  std::shared_ptr<ChatModel> with_options(ChatOptions options) const;
  /// A model whose replies are JSON objects matching `schema` (OpenAI's json_schema
  /// response_format, strict), parsed for you.
  StructuredOutput with_structured_output(json schema, std::string name = "output") const;

  const std::vector<Tool>& bound_tools() const noexcept { return tools_; }
  const ChatOptions& options() const noexcept { return options_; }

 protected:
  ChatModel() = default;
  ChatModel(const ChatModel&) = default;
  ChatModel& operator=(const ChatModel&) = default;

  /// The request for `messages` with this model's tools and options.
  ChatRequest request(std::vector<Message> messages, bool stream) const;

  std::vector<Tool> tools_;
  ChatOptions options_;
};

/// A blocking stream of chunks (ChatModel::stream). Single pass; consume from one thread.
/// Throws ChatModelError from begin() or ++ when the request fails.
class ChatStream {
 public:
  struct Shared;
  using iterator = PullIterator<ChatStream, ChatChunk>;

  explicit ChatStream(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  iterator begin();
  std::default_sentinel_t end() const noexcept { return {}; }
  /// The whole message (the chunks merged). Valid once the stream is exhausted.
  const Message& message() const;

 private:
  friend iterator;
  void advance();
  std::shared_ptr<Shared> shared_;
  std::optional<ChatChunk> current_;
};

/// A model whose replies are parsed JSON (ChatModel::with_structured_output).
class StructuredOutput {
 public:
  StructuredOutput(std::shared_ptr<ChatModel> model) : model_(std::move(model)) {}
  /// Throws OutputParserError when the reply is not a JSON object.
  json invoke(const std::vector<Message>& messages) const;
  Task<json> ainvoke(std::vector<Message> messages, const Runtime& rt) const;

 private:
  std::shared_ptr<ChatModel> model_;
};

/// The messages of a state value (a list of LangChain message dicts, OpenAI dicts, strings...).
std::vector<Message> to_messages(const json& list);

}  // namespace superstep
