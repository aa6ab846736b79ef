// LatestCheckpoints: a saver's memory of the newest checkpoint of the threads it served lately,
// kept as get_tuple() would read it back, so a run starting on a thread this saver just wrote
// does not read and rebuild the checkpoint from storage (a version-map chain, its values, its
// writes). Internal to the savers; the saver decides when the memory is still true (SqliteSaver:
// no other connection wrote since, `PRAGMA data_version`) and calls forget/clear otherwise.
//
// An entry is only ever made from a read of the newest checkpoint (filled), then moved forward by
// the saver's own writes: a put whose parent is the entry (the values it changes, the appends it
// adds, the version changes it stores), a put_writes on it. Anything it cannot follow exactly (a
// fork, a put again of one id, an append to a base it does not hold, a format-3 checkpoint)
// drops the entry, so the next read goes to storage.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checkpoint/saver_common.hpp"
#include "superstep/checkpoint/saver.hpp"

namespace superstep::internal {

class LatestCheckpoints {
 public:
  /// Keeps at most `capacity` threads (and namespaces), the least recently used going first;
  /// 0 keeps none.
  explicit LatestCheckpoints(std::size_t capacity) : capacity_(capacity) {}
  /// Whether it keeps anything (capacity above 0).
  bool enabled() const noexcept { return capacity_ > 0; }

  /// What a read of `config`'s checkpoint would return, when this memory knows it: the thread's
  /// newest (no checkpoint_id, or the newest's id). nullopt: not known.
  std::optional<CheckpointTuple> find(const CheckpointConfig& config);
  /// A read of the newest checkpoint of `thread`/`ns` (nullopt: it has none; not kept).
  void filled(const std::string& thread, const std::string& ns, const std::optional<CheckpointTuple>& newest);
  /// A put the saver stored (the arguments of put_with_deltas; the metadata as the text stored,
  /// kept as text and read back by find(): a run puts several checkpoints per read).
  void put(const CheckpointConfig& config, const Checkpoint& checkpoint, std::string metadata_text,
           const json& new_versions, const PutDeltas& deltas);
  /// A put_writes the saver stored.
  void wrote(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
             const std::string& task_id, const std::string& task_path);
  void forget(const std::string& thread, const std::string& ns);
  void forget(const std::string& thread);  ///< every namespace of `thread`
  void clear();

  /// Between begin_batch and end_batch(false) (a failed batch, whose writes may be partly or
  /// wholly rolled back), every entry the writes touched is forgotten.
  void begin_batch();
  void end_batch(bool committed);

 private:
  using Key = std::pair<std::string, std::string>;  // thread, namespace
  struct Entry {
    std::optional<CheckpointTuple> tuple;  // set once filled; without pending_writes: see `writes`
    std::optional<std::string> metadata_text;  // when set, the tuple's metadata, as stored
    // Its pending writes as stored, in read order (task path, task id, index), and where each
    // (task id, index), the table's key, sits.
    std::map<std::tuple<std::string, std::string, int>, StoredWrite> writes;
    std::map<std::pair<std::string, int>, std::string> paths;
    std::list<Key>::iterator used;
  };
  Entry* entry(const Key& key);
  Entry& make(const Key& key);
  void drop(std::map<Key, Entry>::iterator it);
  void touched(const Key& key);

  std::size_t capacity_;
  std::map<Key, Entry> entries_;
  std::list<Key> used_;  // most recently used first
  bool in_batch_ = false;
  std::set<Key> batch_touched_;
};

}  // namespace superstep::internal
