// SQLite wrappers shared by SqliteSaver and SqliteStore: opening a connection, running SQL,
// prepared statements (owned, or borrowed from a per-connection cache) with binding, stepping
// and column access. Internal: built into superstep_sqlite only.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "internal/sqlite_group_commit.hpp"

#include "superstep/errors.hpp"

namespace superstep::internal::sqlite {

/// A failed SQLite call. what() is the saver's message ("sqlite: ..."); `reason` is SQLite's
/// message alone, for callers (stores) that report failures in their own words.
struct Error : CheckpointError {
  Error(const std::string& what, std::string reason) : CheckpointError(what), reason(std::move(reason)) {}
  std::string reason;
};

/// Opens (creating it if need be, unless `read_only`) the database at `path` for use from several
/// threads one at a time (the caller serializes every use: SQLite's own mutex is off), with a
/// busy timeout (10 s unless given) so writers from several processes take turns.
/// Throws: Error ("sqlite: cannot open '<path>': ...").
sqlite3* open(const std::string& path, bool read_only = false, int busy_timeout_ms = 10000);

/// Runs `sql` (one or more statements, no parameters); on a connection that groups its commits
/// (sqlite_group_commit.hpp), as a write of the current unit, or as a unit of its own, committed
/// at once with its group, when none runs.
/// Throws: Error ("sqlite '<where>': ...").
void exec(sqlite3* db, const char* sql, const std::string& where);

/// The statements a connection runs again and again, prepared once. Not thread-safe (used under
/// the owner's mutex); a statement already in use (a nested query with the same text) is not shared.
class StmtCache {
 public:
  struct Entry {
    sqlite3_stmt* stmt = nullptr;
    bool busy = false;
  };
  /// `db` is read on each prepare, so the cache may be made before the connection is opened.
  explicit StmtCache(sqlite3*& db) : db_(db) {}
  ~StmtCache() { clear(); }
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  /// The entry of a prepared statement for `sql`, marked in use; nullptr when the cached one is busy.
  Entry* take(const char* sql);
  /// Resets `e`'s statement and marks it free.
  static void give_back(Entry* e);
  /// Finalizes everything (before the connection closes).
  void clear();

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  sqlite3*& db_;
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> map_;  // node-based: entries stay put
};

/// A prepared statement, reset on scope exit: prepared for this use, or borrowed from a cache.
/// On a connection that groups its commits, a statement that writes keeps what is bound to it,
/// and its first step is recorded in the current unit (a unit of its own when none runs).
/// Throws: Error ("sqlite: cannot prepare statement: ..." or, from step(), "sqlite: ...").
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
  Stmt(sqlite3* db, StmtCache& cache, const char* sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& reset();
  /// Binds a copy of `v`.
  Stmt& bind(int i, const std::string& v);
  /// Binds `v` without copying it: `v` must stay alive and unchanged until the statement's last
  /// step() or run() (the hot paths bind texts they already hold, some of them kilobytes long).
  Stmt& bind_ref(int i, const std::string& v);
  Stmt& bind_ref(int i, std::string&&) = delete;  // a temporary would be gone before the step
  Stmt& bind(int i, int v);
  Stmt& bind_null(int i);
  /// Steps once: true when a row is ready.
  bool step();
  /// Steps to the end, dropping any rows.
  void run();
  std::string text(int col) const;
  /// The text of column `col`, valid until the next step or reset.
  std::string_view view(int col) const;
  bool is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  int integer(int col) const { return sqlite3_column_int(s_, col); }
  std::int64_t integer64(int col) const { return sqlite3_column_int64(s_, col); }

 private:
  void join_group();
  bool step_in_group();
  GroupCommit::Param* param(int i) { return writes_ && i >= 1 && i <= static_cast<int>(params_.size()) ? &params_[i - 1] : nullptr; }

  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  StmtCache::Entry* cached_ = nullptr;
  GroupCommit* group_ = nullptr;  // the connection's group commit, if it has one
  bool writes_ = false;           // with group_: the statement writes, so it is recorded
  bool stepped_ = false;          // recorded since the last reset
  std::vector<GroupCommit::Param> params_;
  std::deque<std::string> owned_;  // copies that params_ view (bind() of a text)
};

}  // namespace superstep::internal::sqlite
