// What every saver shares: the pending-write slots, the order of pending writes, metadata
// filters, and rebuilding a tuple from stored parts (incl. the format-3 migration of pending
// Sends). Internal.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
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
  std::string run_id;  ///< the run that stored it (CheckpointConfig::run_id)
};

/// The slot of the i-th write of a task: fixed negative slots for the special channels
/// (upserted), i otherwise (insert-if-absent).
int write_index(const std::string& channel, int i);
/// A stored channel value: whole, or (delta_base set) the elements appended to the value at
/// version delta_base (version texts as stored: the version's JSON dump).
struct StoredBlob {
  json value;
  std::optional<std::string> delta_base;
};

/// Resolves stored values through chains of appends, for one read (a get_tuple or a list).
/// Versions on a chain are prefixes of the newest one resolved, so a history read walks each
/// chain once. Not thread-safe; use one per read.
class BlobResolver {
 public:
  using Fetch = std::function<std::optional<StoredBlob>(const std::string& channel, const std::string& version)>;
  /// `where`: "thread 'T', checkpoint 'C'" for error messages.
  BlobResolver(Fetch fetch, std::string where) : fetch_(std::move(fetch)), where_(std::move(where)) {}
  void set_where(std::string where) { where_ = std::move(where); }
  /// The whole value of `channel` at `version`, or nullopt when none is stored. Throws:
  /// CheckpointError when an append's base is missing, not a list, or the chain loops.
  std::optional<json> resolve(const std::string& channel, const std::string& version);
  /// The value of `channel` at `version` as stored (an append not resolved), or nullopt.
  std::optional<StoredBlob> stored(const std::string& channel, const std::string& version) { return fetch_(channel, version); }

 private:
  struct Known {
    std::shared_ptr<const json> value;  // the newest value of the chain; null: none is stored
    std::size_t length;                 // this version's length (a prefix of value)
  };
  Fetch fetch_;
  std::string where_;
  std::map<std::tuple<std::string, std::string>, Known, std::less<>> known_;  // (channel, version); found by std::tie
};

/// The text a channel version is stored under: its JSON dump (an integer's digits without the
/// serializer).
std::string version_text(const json& version);

/// Parses a stored JSON text. Throws: CheckpointError naming thread, checkpoint and `what`
/// when the text is corrupt or truncated.
json parse_stored(std::string_view text, const std::string& what, const std::string& thread, const std::string& id);

/// From this many checkpoints on, a list parses their stored texts on two threads.
inline constexpr std::size_t kParallelParse = 64;

/// Runs `parse(from, to)` over chunks of [0, n): with n >= kParallelParse on this thread and a
/// helper, which starts at once while this thread first runs `meanwhile()` (so the helper takes
/// more chunks); otherwise all on this thread, after `meanwhile()`. After a failure no new chunk
/// starts; the failure is rethrown once both threads are done (this thread's first).
void parse_on_two_threads(std::size_t n, const std::function<void(std::size_t from, std::size_t to)>& parse,
                          const std::function<void()>& meanwhile = {});

/// A thread claim that runs `release` when it ends (a failing release is left to the next
/// claimer, which sees the holder gone).
class ReleasingClaim final : public ThreadClaim {
 public:
  explicit ReleasingClaim(std::function<void()> release) : release_(std::move(release)) {}
  ~ReleasingClaim() override {
    try {
      release_();
    } catch (...) {
    }
  }

 private:
  std::function<void()> release_;
};

/// Orders pending writes by task path, task id, slot.
void sort_writes(std::vector<StoredWrite>& writes);
/// Whether every key of `filter` (an object, or null for none) equals metadata's value.
bool matches_filter(const json& metadata, const json& filter);
/// Whether `query` selects checkpoint `id` of thread `thread` / namespace `ns` (filter aside).
bool matches_query(const CheckpointQuery& query, const std::string& thread, const std::string& ns,
                   const std::string& id);
/// Marks of a stored checkpoint whose version maps are changes to its parent's (the parent's id
/// under kVersionsFrom, saver.hpp).
inline constexpr const char* kVersionsRoot = "versions_root";

/// The stored form of a checkpoint: everything but channel_values. With `deltas.versions_root`
/// set (version maps holding changes only) it is marked with the parent's id ("versions_from",
/// `parent`) and the chain's root ("versions_root"); VersionResolver reads that form back.
json stored_checkpoint(const Checkpoint& checkpoint);
json stored_checkpoint(const Checkpoint& checkpoint, const std::optional<std::string>& parent, const PutDeltas& deltas);
/// stored_checkpoint(checkpoint, parent, deltas).dump(), without building that object.
std::string dump_stored_checkpoint(const Checkpoint& checkpoint, const std::optional<std::string>& parent,
                                   const PutDeltas& deltas);
/// Checks what put_with_deltas() was given. Throws: CheckpointError naming the problem.
void check_deltas(const CheckpointConfig& config, const json& new_versions, const PutDeltas& deltas);

/// Rebuilds the whole version maps of stored checkpoints marked as changes to their parent's
/// (stored_checkpoint with a versions root). The maps of every checkpoint resolved are kept, so
/// a history read rebuilds each once. Not thread-safe; use one per read of one thread/namespace.
class VersionResolver {
 public:
  /// `fetch(id, root)`: the stored form of checkpoint `id` (on the chain that starts at `root`,
  /// so an implementation may fetch the whole range at once), or nullopt when it is missing.
  using Fetch = std::function<std::optional<json>(const std::string& id, const std::string& root)>;
  VersionResolver(Fetch fetch, std::string thread) : fetch_(std::move(fetch)), thread_(std::move(thread)) {}
  /// Replaces the changes in `stored` (checkpoint `id`'s stored form) with whole maps and drops
  /// the marks; leaves a whole checkpoint as it is. Throws: CheckpointError naming thread and
  /// checkpoint when a checkpoint of the chain is missing or unreadable.
  void resolve(const std::string& id, json& stored);

 private:
  struct Maps {
    json versions;
    json seen;
  };
  std::shared_ptr<Maps> maps_of(const std::string& id, const json& stored);
  Fetch fetch_;
  std::string thread_;
  std::unordered_map<std::string, std::shared_ptr<Maps>> known_;
};
/// list() with CheckpointQuery::as_changes: whether checkpoint `stored` (its stored form) stays
/// as changes, i.e. it is marked as changes to the tuple listed after it, whose id is `next`
/// (null: none is).
bool keeps_changes(const CheckpointQuery& query, const json& stored, const std::string* next);
/// Checks a config given to put/put_writes. Throws: CheckpointError naming what is missing.
void require_thread(const CheckpointConfig& config, const char* operation);
/// update_metadata: checks the config and the patch (an object). Throws CheckpointError.
void check_metadata_patch(const CheckpointConfig& config, const json& patch);
/// update_metadata: `stored` with `patch` merged in (a key replaced, a null removing it).
json merge_metadata(json stored, const json& patch);
/// update_metadata: the error for a checkpoint that is not there.
[[noreturn]] void no_checkpoint_to_update(const CheckpointConfig& config);

/// delete_run_checkpoints: one stored checkpoint of the thread.
struct CheckpointRow {
  std::string ns, id;
  std::optional<std::string> parent;
  std::string run_id;  // its metadata's run_id ("" when none)
};
/// delete_run_checkpoints: what to delete, decided from every checkpoint of the thread.
struct RunRollback {
  std::vector<std::pair<std::string, std::string>> deleted;   // (namespace, checkpoint id)
  std::map<std::string, std::optional<std::string>> newest_left;  // per namespace touched: its newest remaining checkpoint
};
/// Throws CheckpointError when a checkpoint of another run continues from one of the run's.
RunRollback plan_run_rollback(const std::string& thread, const std::string& run_id, const std::vector<CheckpointRow>& rows);
/// The highest channel version a (whole) tuple holds; 0 when none.
std::uint64_t max_channel_version(const CheckpointTuple& tuple);


/// Rebuilds a tuple, its values read through `values`. A checkpoint still marked as changes
/// (keeps_changes) gets the values of its changed channels only, appends as kValuesAppended.
/// `parent_writes()` is called only for format-3 checkpoints (their pending Sends lived as
/// writes on the parent). Throws: CheckpointError naming thread and checkpoint when the stored
/// parts do not parse.
CheckpointTuple make_tuple(const std::string& thread, const std::string& ns, const std::string& id,
                           json stored, json metadata, const std::optional<std::string>& parent,
                           BlobResolver& values, std::vector<StoredWrite> writes,
                           const std::function<std::vector<StoredWrite>()>& parent_writes);

}  // namespace superstep::internal
