// LangChain's reading of streamed tool calls: the partial-JSON parser that turns a cut-off
// argument text into the value it has so far, and the collapse of an AI message chunk's
// tool-call pieces into tool calls and invalid tool calls. Both follow @langchain/core 1.4.0
// (`strictParsePartialJson`, `collapseToolCallChunks`), which LangGraph.js' server and agents
// use: checked side by side in tests/messages/message_chunks_test.cpp.
#pragma once

#include <optional>
#include <string_view>

#include "superstep/json.hpp"

namespace superstep::internal {

/// The value a JSON text has so far: the whole value when it parses; otherwise a string, object
/// or array cut off at the end is closed where it stops (a key without its value is left out, a
/// prefix of `true`, `false`, `null` is that literal, `-` is -0). nullopt when the text is empty
/// or goes wrong before its end (a stray character, a bad escape).
std::optional<json> parse_partial_json(std::string_view text);

/// `{tool_calls, invalid_tool_calls}` of an AI message chunk's `tool_call_chunks`: pieces of one
/// call (same index, or same id) joined in order, the joined arguments trimmed and read with
/// parse_partial_json ("{}" when empty); a call without an id, or whose arguments are not an
/// object, is invalid ("Malformed args.").
json collapse_tool_call_chunks(const json& chunks);

/// `chunk` appended to `acc`, as LangChain's AIMessageChunk.concat: content concatenated,
/// tool-call pieces of one call merged (their argument texts joined), the tool calls read again
/// from the merged pieces, other fields taken from the newest chunk. `acc` null: `chunk`.
void concat_message_chunk(json& acc, const json& chunk);

}  // namespace superstep::internal
