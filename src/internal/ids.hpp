// Identifiers: random UUIDs (message ids), time-ordered checkpoint ids and deterministic task
// ids (a 128-bit hash of the task's coordinates, printed as a UUID).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace superstep::internal {

/// A random version-4 UUID string.
std::string uuid4();
/// A time-ordered UUID (version 6 layout): later calls sort after earlier ones.
std::string uuid6();
/// 128-bit FNV-1a-based hash of the parts (separated), printed as a UUID-shaped string.
std::string hash_id(std::initializer_list<std::string_view> parts);
/// ISO-8601 UTC timestamp with milliseconds.
std::string now_iso8601();
/// `micros` (microseconds since the Unix epoch, 0001-01-01 to 9999-12-31) as an ISO-8601 UTC
/// timestamp with `digits` (3 or 6) digits of fraction: "2026-11-27T12:00:00.123Z".
std::string iso8601_utc(std::int64_t micros, int digits);

}  // namespace superstep::internal
