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

#include <functional>
#include <memory>
#include <string>

#include "superstep/json.hpp"
#include "superstep/runtime.hpp"
#include "superstep/task.hpp"

namespace superstep {

class Tool {
 public:
  /// A blocking tool (runs on a worker thread; keep it short or make it async).
  using Fn = std::function<json(const json& args)>;
  /// An asynchronous tool: co_awaits I/O without holding a thread.
  using AsyncFn = std::function<Task<json>(json args, const Runtime& rt)>;

  /// Requires: `parameters` is a JSON schema of type "object". Throws Error otherwise.
  Tool(std::string name, std::string description, json parameters, Fn fn);
  Tool(std::string name, std::string description, json parameters, AsyncFn fn);

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  const json& parameters() const noexcept { return parameters_; }
  bool is_async() const noexcept { return static_cast<bool>(async_); }

  /// Checks `args` against the schema. Returns: empty when valid, else what is wrong
  /// ("argument 'b': expected number, got string").
  std::string validate(const json& args) const;

  /// Validates, then calls a blocking tool. Throws ToolArgumentError when invalid, Error for an
  /// async tool (use ainvoke), and whatever the function throws.
  json invoke(const json& args) const;
  /// Validates, then runs either kind of tool; a blocking one runs on the calling thread.
  Task<json> ainvoke(json args, const Runtime& rt) const;

  /// OpenAI's tool definition: {"type": "function", "function": {name, description, parameters}}.
  json to_openai() const;

  /// The text of a tool message for a result: strings as they are, content-block lists kept,
  /// anything else as compact JSON.
  static json content_of(const json& result);

 private:
  std::string name_;
  std::string description_;
  json parameters_;
  Fn fn_;
  AsyncFn async_;
};

}  // namespace superstep
