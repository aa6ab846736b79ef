// Checkpoint and what a saver returns (CheckpointTuple), addressed by CheckpointConfig
// (checkpoint_config.hpp): the data of docs/checkpoint_schema.md, in LangGraph's shapes. JSON
// round-trips keep fields this version does not know, so checkpoints written by newer code
// survive a read-modify-write.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint_config.hpp"
#include "superstep/json.hpp"

namespace superstep {

/// One superstep's snapshot.
struct Checkpoint {
  int v = 4;                                  ///< format version (LangGraph's current is 4)
  std::string id;                             ///< time-ordered (uuid6): sorts in creation order
  std::string ts;                             ///< ISO 8601 creation time
  json channel_values = json::object();       ///< channel -> value (channels with a value)
  json channel_versions = json::object();     ///< channel -> version (number or string)
  json versions_seen = json::object();        ///< node -> {channel -> version}
  json updated_channels;                      ///< channels the step updated (array), or null
  json extra = json::object();                ///< any other fields, kept as read

  json to_json() const;
  /// Throws: CheckpointError naming the problem when `j` is not a checkpoint object.
  static Checkpoint from_json(const json& j);
  /// As above, moving the parts out of `j`.
  static Checkpoint from_json(json&& j);
};

/// A write a task made, saved before its step is applied.
struct PendingWrite {
  std::string task_id;
  std::string channel;
  json value;
};

/// A checkpoint with its metadata, parent and pending writes.
struct CheckpointTuple {
  CheckpointConfig config;
  Checkpoint checkpoint;
  json metadata = json::object();             ///< {source, step, parents, run_id, ...}
  std::optional<CheckpointConfig> parent_config;
  std::vector<PendingWrite> pending_writes;   ///< ordered by task path, task id, write index

  json to_json() const;
};

/// Pending-write channels with a fixed slot per task (upserted; other writes are insert-if-absent).
inline constexpr const char* kErrorChannel = "__error__";
inline constexpr const char* kScheduledChannel = "__scheduled__";
inline constexpr const char* kInterruptChannel = "__interrupt__";
inline constexpr const char* kResumeChannel = "__resume__";
/// The write a task that finished without writing anything saves (LangGraph's NO_WRITES), so
/// that a resume knows it finished and does not run it again. An ordinary write (no fixed slot).
inline constexpr const char* kNoWritesChannel = "__no_writes__";
/// Where format-3 checkpoints kept pending Sends (as writes on the parent checkpoint).
inline constexpr const char* kTasksChannel = "__pregel_tasks";

}  // namespace superstep
