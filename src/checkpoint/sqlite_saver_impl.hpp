// SqliteSaver's state, shared by its files: sqlite_saver.cpp (opening, writes, thread
// maintenance), sqlite_saver_read.cpp (get_tuple and list: reading tuples back, values, version
// maps and writes) and sqlite_claims.cpp (claim_thread). One connection per saver, guarded by a
// mutex. Included by those files only.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checkpoint/latest_checkpoints.hpp"
#include "checkpoint/saver_common.hpp"
#include "internal/sqlite.hpp"
#include "superstep/checkpoint/sqlite_saver.hpp"

namespace superstep {

struct SqliteSaver::Impl {
  std::string path;
  sqlite3* db = nullptr;
  bool deltas = true;
  std::recursive_mutex mutex;  // recursive: batch() holds it around the writes it runs
  int batch_depth = 0;         // > 0: inside batch()'s transaction
  internal::sqlite::StmtCache stmts{db};
  internal::LatestCheckpoints latest{0};  // the newest checkpoints this saver wrote or read
  std::int64_t data_version = -1;         // PRAGMA data_version when `latest` was last known true
  bool verify_latest = false;             // SUPERSTEP_SQLITE_VERIFY_CACHE: every answer from `latest` is checked against storage
  bool exclusive = false;                 // the file is locked to this connection: no other writes it
  /// With SqliteSaverOptions::group_commit: the units of work share transactions (made after
  /// the migrations, gone before the connection closes).
  std::unique_ptr<internal::sqlite::GroupCommit> group;

  /// Empties `latest` when another connection wrote to the file since the last look.
  void notice_other_writers() {
    if (!latest.enabled() || exclusive) return;
    internal::sqlite::Stmt s(db, stmts, "PRAGMA data_version");
    if (!s.step()) return;
    const std::int64_t now = s.integer64(0);
    if (now != data_version) latest.clear();
    data_version = now;
  }
  /// Forgets what `latest` knows of a thread when it leaves scope (a write that changes the
  /// thread in ways `latest` does not follow, whether it succeeds or not).
  struct Forget {
    Impl& impl;
    const std::string& thread;
    ~Forget() { impl.latest.forget(thread); }
  };

  void exec(const char* sql) { internal::sqlite::exec(db, sql, path); }
  /// Runs `fn` between `begin` and `commit`; on failure runs `rollback` and rethrows.
  template <class F>
  auto in_transaction(const char* begin, const char* commit, const char* rollback, F&& fn) {
    internal::sqlite::Stmt(db, stmts, begin).run();
    try {
      if constexpr (std::is_void_v<decltype(fn())>) {
        fn();
        internal::sqlite::Stmt(db, stmts, commit).run();
      } else {
        auto out = fn();
        internal::sqlite::Stmt(db, stmts, commit).run();
        return out;
      }
    } catch (...) {
      sqlite3_exec(db, rollback, nullptr, nullptr, nullptr);
      throw;
    }
  }
  /// Runs `fn` in a write transaction (BEGIN IMMEDIATE: takes the write lock up front); inside
  /// batch()'s transaction, in a savepoint, so it fails alone. With group commit, as a unit of
  /// the group (a savepoint of it inside batch()).
  template <class F>
  void write(F&& fn) {
    if (group) {
      group->begin();
      try {
        fn();
      } catch (...) {
        group->abort();
        throw;
      }
      group->commit();
      // The write is durable now (its record is in the log): a group commit that fails here is
      // not its failure. The group stays, replayed into a new transaction, and is committed
      // again later; a failure that lasts (a full disk) fails the next writes' log appends.
      if (!group->in_unit()) try {
          group->maybe_flush();
        } catch (const internal::sqlite::Error&) {
        }
      return;
    }
    if (batch_depth > 0)
      in_transaction("SAVEPOINT superstep_write", "RELEASE superstep_write",
                     "ROLLBACK TO superstep_write; RELEASE superstep_write", std::forward<F>(fn));
    else
      in_transaction("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", std::forward<F>(fn));
  }
  /// Runs `fn`, a put whose last statement (the checkpoint row) makes it visible: inside
  /// batch()'s transaction with no savepoint of its own (a put that fails before its last
  /// statement leaves only values that no checkpoint names), else in a write transaction.
  template <class F>
  void write_visible_last(F&& fn) {
    if (batch_depth > 0) fn();
    else write(std::forward<F>(fn));
  }
  /// Runs `fn` in a read transaction: one snapshot and one round of file locks for all its
  /// statements (each statement on its own would take and drop the WAL locks).
  /// With group commit and its transaction open, `fn` runs in that one.
  template <class F>
  auto read(F&& fn) {
    if (group && group->open()) return fn();
    return in_transaction("BEGIN", "COMMIT", "ROLLBACK", std::forward<F>(fn));
  }

  // --- reading back (sqlite_saver_read.cpp) ---
  /// get_tuple() from storage.
  std::optional<CheckpointTuple> read_tuple(const CheckpointConfig& config);
  /// The pending writes of checkpoint `id` of thread `t` / namespace `ns`.
  std::vector<internal::StoredWrite> writes_of(const std::string& t, const std::string& ns, const std::string& id);
  /// The pending writes of every checkpoint of thread `t` / namespace `ns` whose id is in `ids`,
  /// in one statement (for a history).
  std::unordered_map<std::string, std::vector<internal::StoredWrite>> writes_of_all(
      const std::string& t, const std::string& ns, const std::unordered_map<std::string, std::string>& ids);
  /// Reads stored values of thread `t` / namespace `ns`, following appends. Once a channel's
  /// value turns out to be an append, all its stored versions are read in one statement (a
  /// chain is walked row by row otherwise).
  /// With `all`, every stored value of the thread is read up front in one statement (for a
  /// history, which needs most of them).
  internal::BlobResolver resolver(const std::string& t, const std::string& ns, std::string* id, bool all = false);
  /// Rebuilds version maps stored as changes; `rows` (id -> stored text) are checkpoints this read
  /// already has, others are read one by one.
  internal::VersionResolver maps(const std::string& t, const std::string& ns,
                                 std::shared_ptr<const std::unordered_map<std::string, std::string>> rows = nullptr);
  /// The tuple of checkpoint `id`, from its parsed `stored` form and `metadata`.
  CheckpointTuple load(const std::string& t, const std::string& ns, const std::string& id, json stored, json metadata,
                       const std::optional<std::string>& parent, internal::BlobResolver& values,
                       internal::VersionResolver& maps, std::string& current_id, const CheckpointQuery* query = nullptr,
                       const std::string* next = nullptr,
                       std::unordered_map<std::string, std::vector<internal::StoredWrite>>* all_writes = nullptr);
};

}  // namespace superstep
