// A fast reader for the JSON texts savers store (written by json::dump: compact, keys sorted).
// Internal.
#pragma once

#include <optional>
#include <string_view>

#include "superstep/json.hpp"

namespace superstep::internal {

/// `text` read as json::parse reads it, for the texts json::dump writes: compact JSON whose
/// strings are valid UTF-8. nullopt for anything else it does not read exactly as json::parse
/// does (whitespace, floats, \u escapes, nesting deeper than 256, malformed text): the caller
/// then uses json::parse, which reads or rejects it. Never accepts a text json::parse rejects.
std::optional<json> read_stored_json(std::string_view text);

}  // namespace superstep::internal
