#include "superstep/llm/tool.hpp"

#include "superstep/errors.hpp"

namespace superstep {
namespace {

std::string type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    default: return "object";
  }
}

bool has_type(const json& v, const std::string& t) {
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  return type_of(v) == t;
}

std::string where(const std::string& path) { return path.empty() ? "arguments" : "argument '" + path + "'"; }

/// The subset of JSON schema tool definitions use: type (or a list of types), properties,
/// required, additionalProperties=false, items, enum, const.
std::string check(const json& schema, const json& v, const std::string& path) {
  if (!schema.is_object()) return "";
  if (auto t = schema.find("type"); t != schema.end()) {
    bool ok = false;
    if (t->is_string()) ok = has_type(v, t->get<std::string>());
    else if (t->is_array())
      for (const json& one : *t) ok = ok || (one.is_string() && has_type(v, one.get<std::string>()));
    else ok = true;
    if (!ok) return where(path) + ": expected " + (t->is_string() ? t->get<std::string>() : t->dump()) + ", got " + type_of(v);
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const json& option : *e) found = found || option == v;
    if (!found) return where(path) + ": " + v.dump() + " is not one of " + e->dump();
  }
  if (auto c = schema.find("const"); c != schema.end() && *c != v)
    return where(path) + ": must be " + c->dump();
  if (v.is_object()) {
    const json* props = schema.contains("properties") ? &schema["properties"] : nullptr;
    if (auto r = schema.find("required"); r != schema.end() && r->is_array())
      for (const json& name : *r)
        if (name.is_string() && !v.contains(name.get<std::string>()))
          return "missing required " + where(path.empty() ? name.get<std::string>() : path + "." + name.get<std::string>());
    for (const auto& [key, value] : v.items()) {
      std::string sub = path.empty() ? key : path + "." + key;
      if (props && props->contains(key)) {
        if (std::string err = check((*props)[key], value, sub); !err.empty()) return err;
      } else if (auto ap = schema.find("additionalProperties"); ap != schema.end()) {
        if (ap->is_boolean() && !ap->get<bool>()) return "unexpected " + where(sub);
        if (ap->is_object())
          if (std::string err = check(*ap, value, sub); !err.empty()) return err;
      }
    }
  }
  if (v.is_array())
    if (auto items = schema.find("items"); items != schema.end())
      for (std::size_t i = 0; i < v.size(); ++i)
        if (std::string err = check(*items, v[i], path + "[" + std::to_string(i) + "]"); !err.empty()) return err;
  return "";
}

void check_definition(const std::string& name, const json& parameters) {
  if (name.empty()) throw Error("Tool: a tool needs a name");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      throw Error("Tool '" + name + "': names may use letters, digits, '_' and '-' only (OpenAI's rule)");
  if (!parameters.is_object() || parameters.value("type", "") != "object")
    throw Error("Tool '" + name + "': parameters must be a JSON schema of type \"object\", got " + parameters.dump());
}

}  // namespace

Tool::Tool(std::string name, std::string description, json parameters, Fn fn)
    : name_(std::move(name)), description_(std::move(description)), parameters_(std::move(parameters)), fn_(std::move(fn)) {
  check_definition(name_, parameters_);
  if (!fn_) throw Error("Tool '" + name_ + "': no function");
}

Tool::Tool(std::string name, std::string description, json parameters, AsyncFn fn)
    : name_(std::move(name)), description_(std::move(description)), parameters_(std::move(parameters)), async_(std::move(fn)) {
  check_definition(name_, parameters_);
  if (!async_) throw Error("Tool '" + name_ + "': no function");
}

Tool::Tool(std::string name, std::string description, json parameters, CallFn fn)
    : name_(std::move(name)), description_(std::move(description)), parameters_(std::move(parameters)), call_fn_(std::move(fn)) {
  check_definition(name_, parameters_);
  if (!call_fn_) throw Error("Tool '" + name_ + "': no function");
}

Tool::Tool(std::string name, std::string description, json parameters, AsyncCallFn fn)
    : name_(std::move(name)), description_(std::move(description)), parameters_(std::move(parameters)), async_call_(std::move(fn)) {
  check_definition(name_, parameters_);
  if (!async_call_) throw Error("Tool '" + name_ + "': no function");
}

std::string Tool::validate(const json& args) const {
  if (!args.is_object()) return "arguments must be a JSON object, got " + type_of(args);
  return check(parameters_, args, "");
}

json Tool::invoke(const json& args) const {
  if (std::string err = validate(args); !err.empty())
    throw ToolArgumentError("tool '" + name_ + "': " + err);
  if (call_fn_) return value_of(call_fn_(args, ToolRuntime{.call = ToolCall{"", name_, args}}));
  if (!fn_) throw Error("tool '" + name_ + "' is asynchronous: call ainvoke");
  return fn_(args);
}

json Tool::value_of(ToolResult result) const {
  if (const json* v = result.value()) return *v;
  throw Error("tool '" + name_ + "' returned " + (result.command() ? "a Command" : "a message") +
              ", which only a tool call can take (Tool::call, ToolNode)");
}

Task<json> Tool::ainvoke(json args, const Runtime& rt) const {
  if (fn_ || async_) {
    if (std::string err = validate(args); !err.empty())
      throw ToolArgumentError("tool '" + name_ + "': " + err);
    if (fn_) co_return fn_(args);
    Task<json> call = async_(std::move(args), rt);
    co_return co_await std::move(call);
  }
  const ToolCall call_of_args{"", name_, std::move(args)};
  Task<ToolResult> run = call(call_of_args, rt);
  co_return value_of(co_await std::move(run));
}

namespace {
// Small frames: a blocking tool's result, an async plain tool's value.
Task<ToolResult> ready(ToolResult r) { co_return r; }
Task<ToolResult> result_of(Task<json> value) { co_return ToolResult(co_await std::move(value)); }
}  // namespace

// Not a coroutine itself (its frame would hold every branch's locals): a blocking tool runs
// here, an async one is the task returned. Errors are thrown from here or from the task.
Task<ToolResult> Tool::call(const ToolCall& call, const Runtime& rt, const State* state) const {
  if (std::string err = validate(call.args); !err.empty())
    throw ToolArgumentError("tool '" + name_ + "': " + err);
  if (fn_) return ready(ToolResult(fn_(call.args)));
  if (call_fn_) return ready(call_fn_(call.args, ToolRuntime{call, state, &rt}));
  if (async_call_) return async_call_(call.args, ToolRuntime{call, state, &rt});
  return result_of(async_(call.args, rt));
}

json Tool::to_openai() const {
  return json{{"type", "function"},
              {"function", {{"name", name_}, {"description", description_}, {"parameters", parameters_}}}};
}

json Tool::content_of(const json& result) {
  if (result.is_string()) return result;
  if (result.is_array() && !result.empty()) {
    bool blocks = true;
    for (const json& b : result) blocks = blocks && b.is_object() && b.contains("type");
    if (blocks) return result;
  }
  return result.dump();
}

}  // namespace superstep
