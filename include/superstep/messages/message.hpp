// Messages: LangChain's chat message types, for message state (add_messages, messages_state())
// and chat models. A Message converts to and from LangChain's message dict form
// (`{"type": "human", "content": "hi", "id": "..."}`) and OpenAI's chat format
// (`{"role": "user", "content": "hi"}`); add_messages accepts either, plain strings (human) and
// `[role, content]` pairs, as LangGraph does. Target superstep::messages.
#pragma once

#include <string>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/messages/add_messages.hpp"
#include "superstep/schema.hpp"

namespace superstep {

/// A tool call requested by an AI message (LangChain's ToolCall).
struct ToolCall {
  std::string id;
  std::string name;
  json args = json::object();  ///< the arguments, parsed
  bool operator==(const ToolCall&) const = default;
};

enum class MessageType { system, human, ai, tool, remove };

/// "system", "human", "ai", "tool" or "remove" (LangChain's type names).
std::string_view to_string(MessageType type);

struct Message {
  MessageType type = MessageType::human;
  json content = "";                      ///< a string, or a list of content blocks
  std::string id;                         ///< empty until add_messages assigns one
  std::string name;                       ///< optional author name
  std::vector<ToolCall> tool_calls;       ///< ai: the tools it asks for
  std::string tool_call_id;               ///< tool: the call it answers
  std::string status = "success";         ///< tool: "success" or "error"
  json additional_kwargs = json::object();
  json response_metadata = json::object();
  /// ai: the calls the model asked for whose arguments were not JSON, as LangChain's
  /// InvalidToolCall dicts (`name`, `args` the text, `id`, `error`, `type`); no tool runs them.
  json invalid_tool_calls = json::array();
  /// ai: the token counts the model reported, as LangChain's UsageMetadata (`input_tokens`,
  /// `output_tokens`, `total_tokens`, `input_token_details`, `output_token_details`); null if none.
  json usage_metadata;

  static Message system(json content);
  static Message human(json content);
  static Message ai(json content, std::vector<ToolCall> tool_calls = {});
  static Message tool(json content, std::string tool_call_id, std::string status = "success");
  /// add_messages removes the message with this id (kRemoveAllMessages: every message).
  static Message remove(std::string id);

  /// The content as text: the string, or the text blocks of a block list joined.
  std::string text() const;
  /// LangChain's message dict form.
  json to_json() const;
  /// OpenAI's chat format (`role`, `content`, `tool_calls` with JSON-text arguments, ...).
  json to_openai() const;
  /// Reads a message dict (`type` or OpenAI `role`), a string (a human message) or a
  /// `[role, content]` pair. Throws: InvalidUpdateError naming what is wrong (an unknown role,
  /// tool-call arguments that are not JSON, a tool message without tool_call_id).
  static Message from_json(const json& j);

  bool operator==(const Message&) const = default;
};

inline void to_json(json& j, const Message& m) { j = m.to_json(); }
inline void from_json(const json& j, Message& m) { m = Message::from_json(j); }
inline void to_json(json& j, const ToolCall& c) { j = json{{"id", c.id}, {"name", c.name}, {"args", c.args}, {"type", "tool_call"}}; }

/// LangGraph's MessagesState: a schema with `messages` under add_messages.
StateSchema messages_state();

namespace internal {
/// add_messages' coercion: turns `m` (a string, pair, OpenAI dict or LangChain dict) into a
/// LangChain message dict in place. Dicts already in that form, and dicts with neither `type`
/// nor `role`, are kept as they are.
void coerce_message(json& m);
/// Gives each LangChain message dict of `update` (one message or a list) that has no id the id
/// add_messages would give it, before the reducer runs, so a node's `updates` part shows it (as
/// in LangGraph, whose reducer sets the id on the node's own message object). Strings, pairs and
/// OpenAI dicts are left as given: the reducer coerces them into new messages.
void assign_message_ids(json& update);
}  // namespace internal

}  // namespace superstep
