// SqliteSaver: checkpoints in one SQLite file (WAL mode), the embedded default
// (`superstep.db`). Several savers, threads and processes may use one file; SQLite serialises
// the writers. Schema: docs/checkpoint_schema.md. Target superstep::sqlite.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "superstep/checkpoint/saver.hpp"

struct sqlite3;

namespace superstep {

class SqliteStore;

/// How a SqliteSaver opens its file.
struct SqliteSaverOptions {
  /// Opens the file read-only (it must exist, with this build's schema): get_tuple and list
  /// work, every write (a run's claim and checkpoints included) is refused with a
  /// CheckpointError ("attempt to write a readonly database"). Holds even for root, which file
  /// modes do not stop.
  bool read_only = false;
  /// How long a write waits for another connection's (or process's) write lock before failing
  /// with a CheckpointError ("database is locked").
  std::chrono::milliseconds busy_timeout{10000};
  /// A cap on the file's size in pages (SQLite's PRAGMA max_page_count, pages of 4 KiB): a write
  /// that would grow the file beyond it fails with a CheckpointError ("database or disk is
  /// full"), as on a full disk. Unset: SQLite's own limit.
  std::optional<unsigned> max_page_count;
  /// How many threads' newest checkpoints the saver keeps in memory, as it wrote them, so that
  /// get_tuple of a thread it just wrote (the start of the next run on that thread) answers
  /// without reading storage. A write by any other connection to the file (`PRAGMA
  /// data_version`) empties this memory before the next read. 0 turns it off.
  std::size_t cached_threads = 256;
  /// Holds the file locked from its first write until the saver closes (SQLite's locking_mode
  /// EXCLUSIVE): no other connection or process reads or writes it meanwhile (they wait their
  /// busy timeout, then fail with "database is locked"), and each transaction saves SQLite's
  /// lock and unlock calls. For a process that owns its database (`superstep serve --exclusive-db`).
  bool exclusive = false;
  /// How many pages of 4 KiB the write-ahead log may hold before a commit copies it back into
  /// the file (SQLite's PRAGMA wal_autocheckpoint; unset: SQLite's 1,000, a WAL of about 4 MB;
  /// 0: never, the application checkpoints). A larger log copies a page rewritten by many
  /// commits once, and syncs the file less often, but each copy takes longer (the writes wait
  /// for it): the server uses 4,000 (about 16 MB; docs/performance.md).
  std::optional<unsigned> wal_autocheckpoint;
  /// Group commit, for a process that owns its file (`superstep serve` uses 100 ms): the
  /// writes share one SQLite transaction, committed this long after it began (or sooner when
  /// large), and each write (a put, a put_writes, a batch) is made durable when it returns by
  /// one append to the redo log `<file>-redo`, replayed by the next open of the file should the
  /// process die first. Same durability as without it (a process crash loses nothing
  /// acknowledged, a power loss may lose the last writes), a fraction of the pages written.
  /// Other connections and processes see the writes only once committed, and wait for a commit
  /// to write (so a claim_thread elsewhere still sees this saver's claims). A second saver asking for group commit on the
  /// same file fails with a CheckpointError. 0 (the default): every write commits at once.
  /// Ignored for ":memory:". docs/persistence.md, "Group commit".
  std::chrono::milliseconds group_commit{0};
};

class SqliteSaver final : public DeltaCheckpointSaver {
 public:
  using Options = SqliteSaverOptions;
  /// Opens (creating if needed, unless read-only) the database at `path` (":memory:" for a
  /// private in-memory one) and brings its schema up to date. Throws: CheckpointError naming
  /// the path.
  explicit SqliteSaver(const std::string& path = "superstep.db", const Options& options = {});
  ~SqliteSaver() override;
  SqliteSaver(const SqliteSaver&) = delete;
  SqliteSaver& operator=(const SqliteSaver&) = delete;

  /// True unless turned off with store_deltas(false).
  bool stores_deltas() const override;
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override;
  /// Turns delta storage of appends on (the default) or off (every value stored whole: for
  /// comparisons, as in `superstep-bench conversation_storage`).
  void store_deltas(bool on);
  void batch(const std::function<void()>& writes) override;
  void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path = "") override;
  std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) override;
  std::vector<CheckpointTuple> list(const CheckpointQuery& query) override;
  CheckpointConfig update_metadata(const CheckpointConfig& config, const json& metadata) override;
  std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) override;
  void delete_thread(const std::string& thread_id) override;
  void copy_thread(const std::string& from, const std::string& to) override;
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) override;
  /// A row in table thread_claims naming this host and process. A row left by a process that
  /// is gone (same host, pid not running) is taken over; one from another host is honoured.
  std::unique_ptr<ThreadClaim> claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) override;

  /// Removes every row (tests).
  void clear();
  /// The schema version this build writes.
  static int schema_version();

 private:
  friend class SqliteStore;  // SqliteStore(saver): a store on this saver's connection
  /// The connection, and the mutex every use of it holds. Writes to the checkpoint tables
  /// through it would bypass the saver's memory of the newest checkpoints (SqliteStore writes
  /// only its own table).
  std::pair<sqlite3*, std::recursive_mutex*> connection() const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep
