// Tool: a function a chat model may call, with the name, description and JSON schema the model
// sees. A Tool is a value (cheap to copy, its function shared); call it from any thread.
//
//   sp::Tool add("add", "Adds two numbers.",
//                {{"type", "object"},
//                 {"properties", {{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}},
//                 {"required", {"a", "b"}}},
//                [](const json& args) -> json { return args["a"].get<double>() + args["b"].get<double>(); });
//
// The arguments are checked against the schema before the function runs (types, required
// properties, enums, additionalProperties=false, nested objects and arrays): ToolNode turns a
// failed check into a tool message with status "error" that the model can correct.
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "superstep/json.hpp"
#include "superstep/messages/message.hpp"
#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep {

/// What a tool that sees its call returns (LangGraph's tools returning a ToolMessage or a
/// Command): a value, which becomes the tool message's text as a plain tool's result does; a
/// tool message of its own (its `tool_call_id` the call's id); or a Command: a state update (it
/// should hold the call's tool message in `messages`), a `go_to`, or, with
/// `graph = Command::PARENT`, a handoff to the graph around the agent. ToolNode passes Commands
/// on as LangGraph.js' ToolNode does.
class ToolResult {
 public:
  template <class T>
    requires(!std::same_as<std::remove_cvref_t<T>, ToolResult> && !std::same_as<std::remove_cvref_t<T>, Message> &&
             !std::same_as<std::remove_cvref_t<T>, Command> && std::constructible_from<json, T &&>)
  ToolResult(T&& value) : value_(json(std::forward<T>(value))) {}
  ToolResult(Message message) : value_(std::make_unique<Message>(std::move(message))) {}
  ToolResult(Command command) : value_(std::make_unique<Command>(std::move(command))) {}

  const json* value() const noexcept { return std::get_if<json>(&value_); }
  const Message* message() const noexcept { return boxed<Message>(); }
  const Command* command() const noexcept { return boxed<Command>(); }
  Message* message() noexcept { return boxed<Message>(); }
  Command* command() noexcept { return boxed<Command>(); }

 private:
  template <class T>
  T* boxed() const noexcept {
    auto* p = std::get_if<std::unique_ptr<T>>(&value_);
    return p ? p->get() : nullptr;
  }
  // A message or a Command is boxed: a plain value, the usual result, stays small to move.
  std::variant<json, std::unique_ptr<Message>, std::unique_ptr<Command>> value_;
};

/// What a tool that sees its call is given (LangChain's ToolRuntime; LangGraph.js hands a tool
/// `toolCallId` and `state` the same way): the call it answers, the graph state the tools node
/// read, and the node's Runtime (config, context, store, stream writer, interrupt).
struct ToolRuntime {
  ToolCall call;                     ///< its id is what a tool message of the tool's own answers
  const State* state = nullptr;      ///< the tools node's state; null outside a ToolNode
  const Runtime* runtime = nullptr;  ///< null when the tool is invoked outside a run (Tool::invoke)
  const std::string& tool_call_id() const noexcept { return call.id; }
};

class Tool {
 public:
  /// A blocking tool (runs on a worker thread; keep it short or make it async).
  using Fn = std::function<json(const json& args)>;
  /// An asynchronous tool: co_awaits I/O without holding a thread.
  using AsyncFn = std::function<Task<json>(json args, const Runtime& rt)>;

  /// Requires: `parameters` is a JSON schema of type "object". Throws Error otherwise.
  /// A blocking tool that sees its call and the state (to answer with a tool message of its own
  /// or a Command).
  using CallFn = std::function<ToolResult(const json& args, const ToolRuntime& rt)>;
  /// An asynchronous tool that sees its call and the state.
  using AsyncCallFn = std::function<Task<ToolResult>(json args, ToolRuntime rt)>;
  /// Requires: `parameters` is a JSON schema of type "object". Throws Error otherwise.
  Tool(std::string name, std::string description, json parameters, Fn fn);
  Tool(std::string name, std::string description, json parameters, AsyncFn fn);
  Tool(std::string name, std::string description, json parameters, CallFn fn);
  Tool(std::string name, std::string description, json parameters, AsyncCallFn fn);

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  const json& parameters() const noexcept { return parameters_; }
  bool is_async() const noexcept { return static_cast<bool>(async_) || static_cast<bool>(async_call_); }

  /// Checks `args` against the schema. Returns: empty when valid, else what is wrong
  /// ("argument 'b': expected number, got string").
  std::string validate(const json& args) const;

  /// Validates, then calls a blocking tool. Throws ToolArgumentError when invalid, Error for an
  /// async tool (use ainvoke), and whatever the function throws.
  json invoke(const json& args) const;
  /// Validates, then runs either kind of tool; a blocking one runs on the calling thread.
  /// A tool that sees its call gets one with its name and these arguments, an empty id and no
  /// state; its result must be a value (Error for a message or a Command: run it with `call`).
  Task<json> ainvoke(json args, const Runtime& rt) const;
  /// Validates, then runs any kind of tool for `call` (what ToolNode does, with the state it
  /// read): a plain tool's result is the value.
  Task<ToolResult> call(const ToolCall& call, const Runtime& rt, const State* state = nullptr) const;

  /// OpenAI's tool definition: {"type": "function", "function": {name, description, parameters}}.
  json to_openai() const;

  /// The text of a tool message for a result: strings as they are, content-block lists kept,
  /// anything else as compact JSON.
  static json content_of(const json& result);

 private:
  json value_of(ToolResult result) const;

  std::string name_;
  std::string description_;
  json parameters_;
  Fn fn_;
  AsyncFn async_;
  CallFn call_fn_;
  AsyncCallFn async_call_;
};

}  // namespace superstep
