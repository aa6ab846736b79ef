// What every saver shares: the pending-write slots, the order of pending writes, metadata
// filters, and rebuilding a tuple from stored parts (incl. the format-3 migration of pending
// Sends). Internal.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/checkpoint/saver.hpp"

namespace superstep::internal {

/// A pending write as stored.
struct StoredWrite {
  std::string task_id;
  int idx = 0;
  std::string channel;
  json value;
  std::string task_path;
};

/// The slot of the i-th write of a task: fixed negative slots for the special channels
/// (upserted), i otherwise (insert-if-absent).
int write_index(const std::string& channel, int i);
/// Orders pending writes by task path, task id, slot.
void sort_writes(std::vector<StoredWrite>& writes);
/// Whether every key of `filter` (an object, or null for none) equals metadata's value.
bool matches_filter(const json& metadata, const json& filter);
/// Whether `query` selects checkpoint `id` of thread `thread` / namespace `ns` (filter aside).
bool matches_query(const CheckpointQuery& query, const std::string& thread, const std::string& ns,
                   const std::string& id);
/// The stored form of a checkpoint: everything but channel_values.
json stored_checkpoint(const Checkpoint& checkpoint);
/// Checks a config given to put/put_writes. Throws: CheckpointError naming what is missing.
void require_thread(const CheckpointConfig& config, const char* operation);

/// Rebuilds a tuple. `value_of(channel, version)` returns the stored value or nullopt;
/// `parent_writes()` is called only for format-3 checkpoints (their pending Sends lived as
/// writes on the parent). Throws: CheckpointError naming thread and checkpoint when the stored
/// parts do not parse.
CheckpointTuple make_tuple(const std::string& thread, const std::string& ns, const std::string& id,
                           const json& stored, const json& metadata, const std::optional<std::string>& parent,
                           const std::function<std::optional<json>(const std::string&, const json&)>& value_of,
                           std::vector<StoredWrite> writes,
                           const std::function<std::vector<StoredWrite>()>& parent_writes);

}  // namespace superstep::internal
