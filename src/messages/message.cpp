// Message conversions between LangChain's dict form and OpenAI's chat format.
#include "superstep/messages/message.hpp"

#include "internal/ids.hpp"
#include "superstep/errors.hpp"

namespace superstep {

namespace {

std::optional<MessageType> parse_type(std::string_view t) {
  if (t == "human" || t == "user") return MessageType::human;
  if (t == "ai" || t == "assistant") return MessageType::ai;
  if (t == "system" || t == "developer") return MessageType::system;
  if (t == "tool") return MessageType::tool;
  if (t == "remove") return MessageType::remove;
  return std::nullopt;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

/// A tool call in LangChain's form (`args` an object) or OpenAI's (`function.arguments` text).
ToolCall tool_call_from(const json& c) {
  if (!c.is_object()) throw InvalidUpdateError("a tool call must be an object, got " + c.dump());
  ToolCall call;
  call.id = str(c, "id");
  if (auto f = c.find("function"); f != c.end() && f->is_object()) {
    call.name = str(*f, "name");
    const json& a = f->value("arguments", json("{}"));
    if (a.is_string()) {
      try {
        call.args = a.get<std::string>().empty() ? json::object() : json::parse(a.get<std::string>());
      } catch (const json::exception& e) {
        throw InvalidUpdateError("tool call '" + call.id + "' (" + call.name + ") has arguments that are not JSON: " +
                                 a.get<std::string>());
      }
    } else {
      call.args = a;
    }
    return call;
  }
  call.name = str(c, "name");
  call.args = c.value("args", json::object());
  return call;
}

}  // namespace

std::string_view to_string(MessageType type) {
  switch (type) {
    case MessageType::system: return "system";
    case MessageType::human: return "human";
    case MessageType::ai: return "ai";
    case MessageType::tool: return "tool";
    case MessageType::remove: return "remove";
  }
  return "human";
}

Message Message::system(json content) { return Message{.type = MessageType::system, .content = std::move(content)}; }
Message Message::human(json content) { return Message{.type = MessageType::human, .content = std::move(content)}; }
Message Message::ai(json content, std::vector<ToolCall> tool_calls) {
  return Message{.type = MessageType::ai, .content = std::move(content), .tool_calls = std::move(tool_calls)};
}
Message Message::tool(json content, std::string tool_call_id, std::string status) {
  return Message{.type = MessageType::tool, .content = std::move(content), .tool_call_id = std::move(tool_call_id),
                 .status = std::move(status)};
}
Message Message::remove(std::string id) { return Message{.type = MessageType::remove, .content = "", .id = std::move(id)}; }

std::string Message::text() const {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const json& block : content) {
      if (block.is_string()) out += block.get<std::string>();
      else if (block.is_object() && block.value("type", "") == "text") out += block.value("text", "");
    }
  return out;
}

json Message::to_json() const {
  json j = {{"type", std::string(to_string(type))}, {"content", content}};
  if (!id.empty()) j["id"] = id;
  if (!name.empty()) j["name"] = name;
  if (type == MessageType::ai) {
    j["tool_calls"] = json::array();
    for (const ToolCall& c : tool_calls) j["tool_calls"].push_back(c);
    j["invalid_tool_calls"] = invalid_tool_calls.is_array() ? invalid_tool_calls : json::array();
    if (usage_metadata.is_object()) j["usage_metadata"] = usage_metadata;
  }
  if (type == MessageType::tool) {
    j["tool_call_id"] = tool_call_id;
    j["status"] = status;
  }
  if (!additional_kwargs.empty()) j["additional_kwargs"] = additional_kwargs;
  if (!response_metadata.empty()) j["response_metadata"] = response_metadata;
  return j;
}

json Message::to_openai() const {
  static const char* roles[] = {"system", "user", "assistant", "tool", "remove"};
  if (type == MessageType::remove) throw InvalidUpdateError("a remove message has no OpenAI form (id '" + id + "')");
  json j = {{"role", roles[static_cast<int>(type)]}, {"content", content}};
  if (!name.empty()) j["name"] = name;
  if (type == MessageType::ai && !tool_calls.empty()) {
    j["tool_calls"] = json::array();
    for (const ToolCall& c : tool_calls)
      j["tool_calls"].push_back(
          json{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.args.dump()}}}});
    if (text().empty()) j["content"] = "";  // as LangChain.js sends it
  }
  if (type == MessageType::tool) j["tool_call_id"] = tool_call_id;
  return j;
}

Message Message::from_json(const json& j) {
  if (j.is_string()) return human(j);
  if (j.is_array() && j.size() == 2 && j[0].is_string()) {
    auto t = parse_type(j[0].get<std::string>());
    if (!t) throw InvalidUpdateError("message pair has unknown role '" + j[0].get<std::string>() + "'");
    return Message{.type = *t, .content = j[1]};
  }
  if (!j.is_object())
    throw InvalidUpdateError("a message must be an object, a string or a [role, content] pair, got " + j.dump());
  std::string t = j.contains("type") ? str(j, "type") : str(j, "role");
  auto type = parse_type(t);
  if (!type)
    throw InvalidUpdateError(t.empty() ? "a message needs a `type` or `role`: " + j.dump()
                                       : "message has unknown type '" + t + "' (system, human/user, ai/assistant, tool, remove)");
  Message m;
  m.type = *type;
  m.content = j.contains("content") && !j["content"].is_null() ? j["content"] : json("");
  m.id = str(j, "id");
  m.name = str(j, "name");
  if (auto calls = j.find("tool_calls"); calls != j.end() && calls->is_array())
    for (const json& c : *calls) m.tool_calls.push_back(tool_call_from(c));
  if (m.type == MessageType::tool) {
    m.tool_call_id = str(j, "tool_call_id");
    if (m.tool_call_id.empty()) throw InvalidUpdateError("a tool message needs tool_call_id: " + j.dump());
    if (j.contains("status")) m.status = str(j, "status");
  }
  if (auto k = j.find("additional_kwargs"); k != j.end() && k->is_object()) m.additional_kwargs = *k;
  if (auto r = j.find("response_metadata"); r != j.end() && r->is_object()) m.response_metadata = *r;
  if (m.type == MessageType::ai) {
    if (auto c = j.find("invalid_tool_calls"); c != j.end() && c->is_array()) m.invalid_tool_calls = *c;
    if (auto u = j.find("usage_metadata"); u != j.end() && u->is_object()) m.usage_metadata = *u;
  }
  return m;
}

StateSchema messages_state() {
  StateSchema s;
  s.field("messages", reducers::add_messages, json::array());  // as MessagesAnnotation: [] until written
  return s;
}

namespace internal {

void coerce_message(json& m) {
  if (m.is_object() && !m.contains("type") && !m.contains("role")) return;  // untyped dicts: kept as given
  if (m.is_object() && m.contains("type")) {
    if (!parse_type(str(m, "type")) )
      throw InvalidUpdateError("add_messages: message has unknown type '" + str(m, "type") +
                               "' (system, human, ai, tool, remove)");
    return;  // LangChain's dict form already: kept as given (extra fields too)
  }
  json id = m.is_object() ? m.value("id", json(nullptr)) : json(nullptr);
  m = Message::from_json(m).to_json();
  if (!id.is_null()) m["id"] = id;
}

void assign_message_ids(json& update) {
  auto give = [](json& m) {
    if (!m.is_object()) return;
    auto type = m.find("type");
    if (type == m.end() || !type->is_string()) return;
    auto id = m.find("id");
    if (id == m.end() || id->is_null()) m["id"] = uuid4();
  };
  if (update.is_array())
    for (json& m : update) give(m);
  else
    give(update);
}

}  // namespace internal
}  // namespace superstep
