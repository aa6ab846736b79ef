// Group commit for a SQLite connection that owns its file: many units of work (a saver's put,
// put_writes, batch; a store's put) share one SQLite transaction, committed every `delay`, and
// each unit is made durable on its own by a redo log: the unit's write statements and their
// parameters are stored into `<file>-redo` when the unit ends. The log is a file of preallocated
// blocks mapped into memory (MAP_SHARED), so a record is in the file (the kernel's page cache)
// once copied, with no system call; it is emptied after each group commit by zeroing its first
// header, keeping its pages. Where the file system cannot allocate the blocks or would not
// write them over in place (copy-on-write), records are appended with one write() each and the
// log is truncated instead.
//
// Why: SQLite's WAL logs whole pages. A server run commits about six times, each commit writing
// and checksumming about five 4 KiB pages (most of them only a row changed), and the kernel's
// side of those writes was a third of the server's CPU (docs/performance.md). The log holds what
// a unit wrote (a few KiB), and a group commit writes each page once for all the units in it.
//
// Durability is SQLite's with synchronous NORMAL, which the savers use: a unit whose end
// returned survives a crash of the process (its log record is in the kernel), a power loss may
// lose the last units. Opening the file again replays the log's records that the database does
// not hold yet (the table superstep_redo keeps the number of the last unit a group commit
// stored, in that commit), in order, in one transaction, then empties the log: the statements
// are deterministic, and replayed on the state they first ran on. A record is its length, its
// number, a checksum and its statements; a torn last record (the process died in its write)
// fails its checksum and is dropped, as its unit was never acknowledged; records are numbered
// one after another, so the records written over an emptied log end at the first header that
// does not check or does not follow the one before it (an older record's).
//
// Readers on this connection see every unit at once (they are in its transaction); other
// connections see the file as of the last group commit, and their writes wait for a commit (a
// flusher thread commits an idle group after `delay`). The log is locked (flock) while open: a
// second connection asking for group commit on the same file is refused.
// Internal: superstep_sqlite only. Every call but the flusher's is under the owner's mutex.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace superstep::internal::sqlite {

class GroupCommit {
 public:
  /// One bound parameter of a recorded statement (a text is viewed, not owned).
  struct Param {
    enum class Kind : std::uint8_t { null = 0, integer = 1, text = 2 };
    Kind kind = Kind::null;
    std::int64_t integer = 0;
    std::string_view text;
  };

  /// Replays `log_path` into `db` (see above), then takes the log and starts grouping; `mutex`
  /// is the owner's, taken by the flusher thread. Throws: Error naming the log (held by another
  /// connection, unreadable, a statement of it failing to replay: the log is then left as it is).
  GroupCommit(sqlite3* db, std::string log_path, std::chrono::milliseconds delay, std::recursive_mutex& mutex);
  /// Commits the group (a failure is lost: call flush() first to see it), stops the flusher and
  /// removes the log once it is empty.
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  /// Replays a log left by a group-commit connection that is gone, on a connection that does
  /// not group (any saver or store opening the file): nothing when there is no log or its owner
  /// still has it. Throws: Error naming the log.
  static void replay_left(sqlite3* db, const std::string& log_path);
  /// Whether a log in folder `dir` is mapped (its file system writes blocks over in place: ext4,
  /// XFS, tmpfs), not appended to with write().
  static bool maps_log_in(const std::string& dir);
  /// Whether `log_path` holds records nobody is replaying (a read-only connection cannot).
  static bool left_unreplayed(const std::string& log_path);

  /// Starts a unit, or a savepoint inside the current one. Opens the group's transaction (BEGIN
  /// IMMEDIATE) when none is open. Throws: Error.
  void begin();
  /// Ends what begin() started. Ending a unit appends its record to the log; when that fails
  /// the unit is rolled back and Error is thrown.
  void commit();
  /// Rolls back what begin() started. When SQLite had rolled the whole group back (a full
  /// disk, an I/O error), the group's units are replayed from memory into a new transaction.
  void abort();
  /// Inside a unit (also one SQLite rolled back, whose statements must not run outside it).
  bool in_unit() const { return depth_ > 0 || lost_ > 0; }
  /// Throws Error when a statement may not run: the group failed for good, or the unit being
  /// run was rolled back by SQLite.
  void check() const;
  /// Whether the group's transaction is open (readers then need no transaction of their own).
  bool open() const { return open_; }
  /// Records a write statement of the current unit (the caller's step of it succeeded).
  void record(std::string_view sql, const std::vector<Param>& params);
  /// Runs `write` (a statement's step and its record(); it throws when either fails) in the
  /// current unit, or in a unit of its own when none runs, which it ends (or aborts). Returns
  /// whether it made that unit.
  template <class F>
  bool in_own_unit(F&& write) {
    check();
    if (in_unit()) {
      write();
      return false;
    }
    begin();
    try {
      write();
      commit();
    } catch (...) {
      abort();
      throw;
    }
    return true;
  }
  /// Commits the group now, if one is open and no unit runs. Throws: Error (the group is then
  /// kept, replayed into a new transaction, and the commit tried again later).
  void flush();
  /// flush() when the group is `delay` old or large.
  void maybe_flush();

 private:
  void flush_loop();
  void write_record();
  /// Maps the log's first `size` bytes, its blocks allocated (the log then holds its records
  /// from offset 0 to log_size_, and stale or zero bytes after them); false when the file system
  /// cannot (the log then stays as it was: mapped as before, or appended to with write()).
  bool map(std::size_t size);
  /// The records of the open group, as written to the log.
  std::string_view pending() const;
  /// Whether SQLite ended the group's transaction behind its back; then marks the unit lost and
  /// recovers.
  bool dropped();
  /// After SQLite dropped the group's transaction: replays pending() into a new one.
  void recover();

  sqlite3* db_;
  std::string log_path_;
  std::chrono::milliseconds delay_;
  std::recursive_mutex& owner_;
  int fd_ = -1;
  bool open_ = false;
  int depth_ = 0;
  int lost_ = 0;                    // levels of a unit SQLite rolled back, still to be ended
  std::vector<std::size_t> marks_;  // unit_'s size at each savepoint below the unit
  std::string unit_;                // the current unit's record: header, then statements
  std::string pending_;             // unmapped: the records of the open group, as written to the log
  std::uint64_t seq_ = 0;           // the last unit's number
  std::size_t log_size_ = 0;        // bytes of records in the log
  char* map_ = nullptr;             // the log mapped (MAP_SHARED: a store is in the file once made)
  std::size_t map_size_ = 0;
  std::chrono::steady_clock::time_point opened_at_;
  std::string failed_;              // why the group cannot go on (empty: it can)
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread flusher_;
};

/// The group committing `db`, or nullptr (the common case: one atomic load).
GroupCommit* group_of(sqlite3* db);

}  // namespace superstep::internal::sqlite
