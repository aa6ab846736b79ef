// A task's writes as a saver stores them (LangGraph's pending writes): [channel, value] pairs,
// where a state key holds its value, a branch channel null, a join channel the writing node's
// name, and __pregel_tasks a Send as {node, arg}. Pure functions of the Program.
#pragma once

#include <string>

#include "pregel/executable_task.hpp"
#include "pregel/program.hpp"
#include "superstep/config.hpp"
#include "superstep/json.hpp"

namespace superstep::internal {

/// Task `t`'s writes, control writes and Sends as [[channel, value], ...].
json encode_writes(const Program& g, const ExecutableTask& t);
/// Adds one stored write to `t`'s buffers (a state key, a branch or join channel, or a Send).
/// Throws CheckpointError naming graph, thread and channel when the write does not fit `g`.
void decode_write(const Program& g, const RunConfig& config, ExecutableTask& t, const std::string& channel,
                  const json& value);

}  // namespace superstep::internal
