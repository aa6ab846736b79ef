// Writing JSON text fast: json::dump()'s exact output, byte for byte, without what each dump()
// call costs before it writes a byte (a shared output adapter, a 512-byte indent string, the
// locale lookup of a new serializer) and without json's escaping loop for the strings that need
// none (printable ASCII: most keys, ids, versions, timestamps). The rest (floats, strings with
// escapes or non-ASCII bytes) goes through json's own serializer, kept one per thread. A server
// run writes a few kilobytes of such text (stored checkpoints, records, events). Internal.
#pragma once

#include <string>
#include <string_view>

#include "superstep/json.hpp"

namespace superstep::internal {

/// Appends `value.dump()` (compact; invalid UTF-8 throws json's type_error 316, as dump() does).
void append_json(std::string& out, const json& value);
/// `value.dump()`.
std::string dump_json(const json& value);
/// `value.dump(-1, ' ', false, json::error_handler_t::replace)`: invalid UTF-8 becomes U+FFFD.
std::string dump_json_replacing(const json& value);
/// Appends `json(text).dump()`: `text` as a JSON string literal.
void append_json_string(std::string& out, std::string_view text);

}  // namespace superstep::internal
