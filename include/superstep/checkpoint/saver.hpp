// CheckpointSaver: where a compiled graph persists its checkpoints (LangGraph's
// BaseCheckpointSaver). Implementations: InMemorySaver, SqliteSaver (the embedded default),
// PostgresSaver. All methods are thread-safe and synchronous; they throw CheckpointError on
// storage failures and on stored data that cannot be read, naming thread and checkpoint.
//
// Storage contract (what the conformance suite checks): a channel's value is stored per
// (thread, namespace, channel, version), only for the channels named in `new_versions`; a
// checkpoint's `channel_values` are rebuilt from its `channel_versions`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"

namespace superstep {

/// A channel value stored as an append (superstep's delta storage): the channel's value at
/// `base_version` followed by the elements of `appended`.
struct ChannelDelta {
  std::string channel;
  json base_version;
  json appended = json::array();
};

/// What list() returns: every field optional, combined with AND.
struct CheckpointQuery {
  std::optional<std::string> thread_id;
  std::optional<std::string> checkpoint_ns;
  std::optional<std::string> checkpoint_id;
  json filter;                            ///< object: metadata keys that must equal these values
  std::optional<std::string> before;      ///< only checkpoints with an id sorting before this
  std::optional<std::size_t> limit;
};

/// One run's hold on a thread (CheckpointSaver::claim_thread); released when destroyed.
class ThreadClaim {
 public:
  virtual ~ThreadClaim() = default;
};

class CheckpointSaver {
 public:
  virtual ~CheckpointSaver() = default;

  /// Stores `checkpoint` under `config.thread_id`/`config.checkpoint_ns`; `config.checkpoint_id`,
  /// if set, is its parent. Values are stored for the channels in `new_versions` only.
  /// Returns: the new checkpoint's config.
  virtual CheckpointConfig put(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                               const json& new_versions) = 0;
  /// Whether put_with_deltas() stores deltas. When true the engine hands append-only channels
  /// (append, concat, add_messages without replacements) as deltas, so a long conversation
  /// costs O(n) bytes in all instead of O(n^2).
  virtual bool stores_deltas() const { return false; }
  /// put() where each channel of `deltas` (also in `new_versions`, absent from
  /// `checkpoint.channel_values`) is stored as what it appended to its value at the delta's
  /// base version. Reading any checkpoint still returns whole values. The default accepts only
  /// an empty `deltas`.
  virtual CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                           const json& metadata, const json& new_versions,
                                           const std::vector<ChannelDelta>& deltas);
  /// Claims `thread_id`/`checkpoint_ns` for one run, across every process sharing this store:
  /// nullptr when another live run holds it. The claim ends when the returned object is
  /// destroyed, or when its process dies. The default (InMemorySaver, one process) holds
  /// nothing: the engine already refuses a second run on a thread within a process.
  virtual std::unique_ptr<ThreadClaim> claim_thread(const std::string& thread_id, const std::string& checkpoint_ns);
  /// Saves a task's writes `(channel, value)` against checkpoint `config.checkpoint_id`.
  virtual void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                          const std::string& task_id, const std::string& task_path = "") = 0;
  /// The checkpoint `config.checkpoint_id`, or the thread's newest in that namespace when unset;
  /// nullopt when there is none.
  virtual std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) = 0;
  /// Matching checkpoints, newest first (threads and namespaces in sorted order).
  virtual std::vector<CheckpointTuple> list(const CheckpointQuery& query) = 0;
  /// Removes every checkpoint, value and write of a thread (all namespaces).
  virtual void delete_thread(const std::string& thread_id) = 0;
  /// Copies all of `from` (checkpoints, values, writes) to thread `to`, replacing `to`.
  virtual void copy_thread(const std::string& from, const std::string& to) = 0;
  /// For each thread: keep only the newest checkpoint of each namespace (and the values and
  /// writes it needs), or with `keep_latest` false delete the thread.
  virtual void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) = 0;
};

}  // namespace superstep
