// Checking a run against its Limits (include/superstep/limits.hpp): sizes measured as that
// header defines them, and the checks the runner and persistence make on a task's writes.
// Pure over a RunState and a task; each throws LimitError naming graph, thread, node and key.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "superstep/json.hpp"

namespace superstep::internal {

struct RunState;
struct ExecutableTask;

/// The size of `v` as Limits measures it: string bytes (keys and values) plus 8 per other
/// element. Stops adding once the total passes `stop` (the result is then > stop, a lower bound).
std::size_t measured_size(const json& v, std::size_t stop);

/// Throws LimitError naming the limit, graph, thread, node and key.
[[noreturn]] void throw_limit(const RunState& s, const char* limit, std::size_t configured, std::size_t actual,
                              std::string node, std::string field);

/// A finished task's JSON writes and Sends against max_update_bytes, and the messages it wrote
/// to add_messages keys against max_message_bytes. Typed writes are not measured (see below).
void check_task_update(const RunState& s, const ExecutableTask& t);
/// A checkpointed task's writes as stored (typed ones included, as JSON) against
/// max_update_bytes, and its messages against max_message_bytes.
void check_stored_update(const RunState& s, const ExecutableTask& t,
                         const std::vector<std::pair<std::string, json>>& writes);

}  // namespace superstep::internal
