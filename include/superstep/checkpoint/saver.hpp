// CheckpointSaver: where a compiled graph persists its checkpoints (LangGraph's
// BaseCheckpointSaver). Implementations: InMemorySaver, SqliteSaver (the embedded default),
// PostgresSaver. All methods are thread-safe and synchronous; they throw CheckpointError on
// storage failures and on stored data that cannot be read, naming thread and checkpoint.
//
// Storage contract (what the conformance suite checks): a channel's value is stored per
// (thread, namespace, channel, version), only for the channels named in `new_versions`; a
// checkpoint's `channel_values` are rebuilt from its `channel_versions`.
#pragma once

#include <functional>
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

/// What put_with_deltas() stores in compact form (superstep's delta storage).
struct PutDeltas {
  /// Channels stored as appends: each is also in `new_versions` and absent from
  /// `checkpoint.channel_values`.
  std::vector<ChannelDelta> appends;
  /// When set, `checkpoint.channel_versions` and `checkpoint.versions_seen` hold only what changed
  /// since the parent (`config.checkpoint_id`, put to this saver before): the channel versions
  /// added or changed (null: the channel has no version any more) and the whole map of each node
  /// whose map changed. The value names the first checkpoint of this chain of puts, the one put
  /// with whole maps, so a reader fetches the chain in one range of ids.
  std::optional<std::string> versions_root;

  bool empty() const { return appends.empty() && !versions_root; }
};

/// What list() returns: every field optional, combined with AND.
struct CheckpointQuery {
  std::optional<std::string> thread_id;
  std::optional<std::string> checkpoint_ns;
  std::optional<std::string> checkpoint_id;
  json filter;                            ///< object: metadata keys that must equal these values
  std::optional<std::string> before;      ///< only checkpoints with an id sorting before this
  std::optional<std::size_t> limit;
  /// superstep's incremental history read (get_state_history sets it). A tuple whose version
  /// maps were stored as changes to those of its parent, when that parent is the tuple listed
  /// right after it, may come in that form: `checkpoint.extra["versions_from"]` names the parent,
  /// `channel_versions` and `versions_seen` hold only the changes (a null version: the channel
  /// has none any more), `channel_values` only the values of the channels changed, and a value
  /// stored as an append comes as `checkpoint.extra["values_appended"][channel] =
  /// {"base": version, "elements": [...]}` (its value at `base` followed by `elements`). A reader
  /// rebuilds such a tuple by applying it to the one after it. Every other tuple is whole, and a
  /// saver may ignore this and return whole tuples only.
  bool as_changes = false;
};

/// The keys of CheckpointQuery::as_changes in `Checkpoint::extra`: the parent a tuple is
/// changes to, and the values stored as appends.
inline constexpr const char* kVersionsFrom = "versions_from";
inline constexpr const char* kValuesAppended = "values_appended";

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
  /// (append, concat, add_messages without replacements) as appends, so a long conversation
  /// costs O(n) bytes in all instead of O(n^2), and a run's version maps as changes to the
  /// previous checkpoint's, so a step of a graph with N channels costs O(what it changed), not O(N).
  virtual bool stores_deltas() const { return false; }
  /// put() with parts in compact form (PutDeltas). Reading any checkpoint still returns whole
  /// values and whole version maps. The default accepts only an empty `deltas`.
  virtual CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                           const json& metadata, const json& new_versions, const PutDeltas& deltas);
  /// Claims `thread_id`/`checkpoint_ns` for one run, across every process sharing this store:
  /// nullptr when another live run holds it. The claim ends when the returned object is
  /// destroyed, or when its process dies. The default (InMemorySaver, one process) holds
  /// nothing: the engine already refuses a second run on a thread within a process.
  virtual std::unique_ptr<ThreadClaim> claim_thread(const std::string& thread_id, const std::string& checkpoint_ns);
  /// Runs `writes` (calls of put, put_with_deltas and put_writes, in order) as one unit of
  /// storage work; each call still succeeds or fails on its own (a failed call leaves nothing a
  /// read can see). SqliteSaver commits them in one transaction. The engine batches what async durability queued while the saver was busy.
  /// The default just runs them.
  virtual void batch(const std::function<void()>& writes) { writes(); }
  /// Saves a task's writes `(channel, value)` against checkpoint `config.checkpoint_id`.
  virtual void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                          const std::string& task_id, const std::string& task_path = "") = 0;
  /// The checkpoint `config.checkpoint_id`, or the thread's newest in that namespace when unset;
  /// nullopt when there is none.
  virtual std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) = 0;
  /// Matching checkpoints, newest first (threads and namespaces in sorted order).
  virtual std::vector<CheckpointTuple> list(const CheckpointQuery& query) = 0;
  /// Merges `metadata` (an object) into the stored metadata of checkpoint `config.checkpoint_id`
  /// (the thread's newest in `config.checkpoint_ns` when unset), key by key as a JSON merge
  /// patch's top level: a key given replaces the stored one, a null removes it (the server's
  /// `PATCH /threads/{id}/state`). Returns the checkpoint's config. Throws CheckpointError naming
  /// the thread when there is no such checkpoint or `metadata` is not an object. The default
  /// (a user's own saver) throws that it is not supported.
  virtual CheckpointConfig update_metadata(const CheckpointConfig& config, const json& metadata);
  /// Deletes the checkpoints run `run_id` stored on a thread (metadata `run_id`, every
  /// namespace), with their pending writes and the values stored above the highest version the
  /// remaining checkpoints of each namespace hold (the server's rollback of a run). The thread
  /// then continues from the checkpoint before the run. Returns how many checkpoints went.
  /// Throws CheckpointError, deleting nothing, when a checkpoint of another run continues from
  /// one of them (roll back the later run first). The default (a user's own saver) throws that
  /// it is not supported.
  ///
  /// The pending writes the run stored on earlier checkpoints (CheckpointConfig::run_id: a
  /// resume value, its tasks' writes) are deleted too, so the thread reads as before the run.
  virtual std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id);
  /// Removes every checkpoint, value and write of a thread (all namespaces).
  virtual void delete_thread(const std::string& thread_id) = 0;
  /// Copies all of `from` (checkpoints, values, writes) to thread `to`, replacing `to`.
  virtual void copy_thread(const std::string& from, const std::string& to) = 0;
  /// For each thread: keep only the newest checkpoint of each namespace (and the values and
  /// writes it needs), or with `keep_latest` false delete the thread.
  virtual void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) = 0;
};

/// A saver that stores through put_with_deltas() (the built-in savers): put() is
/// put_with_deltas() with no deltas, written once here. A saver of your own derives from
/// CheckpointSaver and implements put().
class DeltaCheckpointSaver : public CheckpointSaver {
 public:
  CheckpointConfig put(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                       const json& new_versions) final {
    return put_with_deltas(config, checkpoint, metadata, new_versions, {});
  }
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override = 0;
};

}  // namespace superstep
