// Group commit with a redo log (see sqlite_group_commit.hpp).
#include "internal/sqlite_group_commit.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "internal/sqlite.hpp"

namespace superstep::internal::sqlite {

namespace {

// A record: u32 payload length, u64 number, u64 checksum of (number, payload); then the payload:
// per statement u32 SQL length, the SQL, u16 parameter count, per parameter a kind byte and an
// i64 (integer) or a u32 length and the bytes (text). Host byte order: the log never leaves the
// machine that wrote it, and is emptied by the next open.
constexpr std::size_t kHeader = 4 + 8 + 8;
constexpr std::size_t kMaxGroupBytes = 16u << 20;  // a group this large is committed at once
constexpr std::size_t kMapBytes = 1u << 20;        // the mapped log's first size (it doubles)

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
bool take(std::string_view& in, T& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return true;
}

/// Never 0 for a zeroed header (the length, number and sum all 0): a region the file system
/// left as zeros after a crash ends a replay like any damaged record.
std::uint64_t checksum(std::uint64_t seq, std::string_view s) {
  std::uint64_t h = 0x243F6A8885A308D3ull ^ (seq * 0x9E3779B97F4A7C15ull) ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
  h ^= h >> 29;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 32);
}

/// Whether the file system writes a file's allocated blocks over in place (the log is mapped
/// there only: see GroupCommit::map).
bool written_over_in_place(const struct statfs& fs) {
  const auto type = static_cast<unsigned long>(fs.f_type);
  return type == EXT4_SUPER_MAGIC || type == XFS_SUPER_MAGIC || type == TMPFS_MAGIC;
}

/// Whether `log` begins with a whole record that checks: a log whose first header is zeroed
/// (emptied after a commit) or torn holds nothing to replay.
bool begins_with_record(std::string_view log) {
  std::uint32_t len = 0;
  std::uint64_t seq = 0, sum = 0;
  if (!take(log, len) || !take(log, seq) || !take(log, sum) || log.size() < len) return false;
  return checksum(seq, log.substr(0, len)) == sum;
}

[[noreturn]] void fail(const std::string& what, const std::string& reason) {
  throw Error("sqlite: " + what + ": " + reason, reason);
}

void exec_raw(sqlite3* db, const char* sql, const std::string& what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string reason = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    fail(what, reason);
  }
}

std::string errno_text() { return std::strerror(errno); }

/// Opens `path` and takes its lock: -1 when another open file holds it. The path is checked to
/// still name the file locked (an owner closing removes the log: a lock on the removed file
/// would be no lock, and records written to it lost).
int open_locked(const std::string& path, bool create) {
  for (;;) {
    int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) {
      if (!create && errno == ENOENT) return -1;
      fail("cannot open the redo log '" + path + "'", errno_text());
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      ::close(fd);
      if (e == EWOULDBLOCK) return -1;
      errno = e;
      fail("cannot lock the redo log '" + path + "'", errno_text());
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev)
      return fd;
    ::close(fd);
    if (!create && errno == ENOENT) return -1;
  }
}

std::string read_all(int fd, const std::string& path) {
  std::string out;
  char buf[1 << 16];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read the redo log '" + path + "'", errno_text());
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
}

/// The mark table, made if missing, and its one row; returns the mark.
std::uint64_t read_mark(sqlite3* db, const std::string& path) {
  exec_raw(db,
           "CREATE TABLE IF NOT EXISTS superstep_redo (seq INTEGER NOT NULL); "
           "INSERT INTO superstep_redo (seq) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM superstep_redo)",
           "the redo log '" + path + "'");
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT seq FROM superstep_redo", -1, &s, nullptr) != SQLITE_OK)
    fail("the redo log '" + path + "'", sqlite3_errmsg(db));
  std::uint64_t mark = 0;
  if (sqlite3_step(s) == SQLITE_ROW) mark = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  return mark;
}

void write_mark(sqlite3* db, std::uint64_t seq, const std::string& path) {
  exec_raw(db, ("UPDATE superstep_redo SET seq = " + std::to_string(seq)).c_str(), "the redo log '" + path + "'");
}

/// Runs the statements of each whole record of `log` numbered above `mark`, in order; stops at
/// the first torn or damaged one, and at a gap in the numbers: records are numbered one after
/// another, and the first above the mark is the one after it (`from_mark`; the replay of a
/// group's own records into a new transaction starts wherever they do). Returns the highest
/// number read (`mark` when none is higher).
std::uint64_t replay(sqlite3* db, std::string_view log, std::uint64_t mark, const std::string& path,
                     bool from_mark = true) {
  std::unordered_map<std::string_view, sqlite3_stmt*> prepared;
  struct Finalize {
    std::unordered_map<std::string_view, sqlite3_stmt*>& p;
    ~Finalize() {
      for (auto& [sql, s] : p) sqlite3_finalize(s);
    }
  } finalize{prepared};
  const std::string what = "replaying the redo log '" + path + "'";
  std::uint64_t last = mark, previous = 0;
  for (;;) {
    std::uint32_t len = 0;
    std::uint64_t seq = 0, sum = 0;
    std::string_view rest = log;
    if (!take(rest, len) || !take(rest, seq) || !take(rest, sum) || rest.size() < len) break;
    std::string_view payload = rest.substr(0, len);
    // A record out of order is not this log's next one (an older record written over, or a
    // region a power loss left from another time); one past a gap would run without those lost.
    if (checksum(seq, payload) != sum || (previous != 0 && seq != previous + 1)) break;
    if (previous == 0 && from_mark && seq > mark + 1) break;
    previous = seq;
    log = rest.substr(len);
    if (seq <= mark) continue;
    last = seq;
    while (!payload.empty()) {
      std::uint32_t sql_len = 0;
      std::uint16_t n = 0;
      if (!take(payload, sql_len) || payload.size() < sql_len) fail(what, "a damaged record");
      std::string_view sql = payload.substr(0, sql_len);
      payload.remove_prefix(sql_len);
      if (!take(payload, n)) fail(what, "a damaged record");
      if (n == 0) {
        exec_raw(db, std::string(sql).c_str(), what);
        continue;
      }
      sqlite3_stmt*& s = prepared[sql];
      if (!s && sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK)
        fail(what, sqlite3_errmsg(db));
      for (int i = 1; i <= n; ++i) {
        std::uint8_t kind = 0;
        if (!take(payload, kind)) fail(what, "a damaged record");
        if (kind == static_cast<std::uint8_t>(GroupCommit::Param::Kind::integer)) {
          std::int64_t v = 0;
          if (!take(payload, v)) fail(what, "a damaged record");
          sqlite3_bind_int64(s, i, v);
        } else if (kind == static_cast<std::uint8_t>(GroupCommit::Param::Kind::text)) {
          std::uint32_t tl = 0;
          if (!take(payload, tl) || payload.size() < tl) fail(what, "a damaged record");
          sqlite3_bind_text(s, i, payload.data(), static_cast<int>(tl), SQLITE_STATIC);
          payload.remove_prefix(tl);
        } else {
          sqlite3_bind_null(s, i);
        }
      }
      int rc;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      }
      std::string reason = rc == SQLITE_DONE ? std::string() : sqlite3_errmsg(db);
      sqlite3_reset(s);
      sqlite3_clear_bindings(s);
      if (rc != SQLITE_DONE) fail(what, reason);
    }
  }
  return last;
}

/// Replays `log` above the database's mark in one transaction and moves the mark; returns it.
std::uint64_t replay_committed(sqlite3* db, std::string_view log, const std::string& path) {
  exec_raw(db, "BEGIN IMMEDIATE", "replaying the redo log '" + path + "'");
  try {
    std::uint64_t mark = read_mark(db, path);
    std::uint64_t last = replay(db, log, mark, path);
    if (last != mark) write_mark(db, last, path);
    exec_raw(db, "COMMIT", "replaying the redo log '" + path + "'");
    return last;
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

struct Registry {
  std::atomic<int> count{0};
  std::mutex mutex;  // guards groups
  std::vector<std::pair<sqlite3*, GroupCommit*>> groups;
  static Registry& get() {
    static Registry r;
    return r;
  }
};

}  // namespace

GroupCommit* group_of(sqlite3* db) {
  Registry& r = Registry::get();
  if (r.count.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard lock(r.mutex);
  for (auto& [d, g] : r.groups)
    if (d == db) return g;
  return nullptr;
}

GroupCommit::GroupCommit(sqlite3* db, std::string log_path, std::chrono::milliseconds delay, std::recursive_mutex& mutex)
    : db_(db), log_path_(std::move(log_path)), delay_(delay), owner_(mutex) {
  fd_ = open_locked(log_path_, true);
  if (fd_ < 0)
    fail("group commit", "the redo log '" + log_path_ +
                             "' is held by another connection (another process, or another saver in this one, "
                             "groups the commits of this file)");
  try {
    // Statement journals (a savepoint's, a statement's within the group) in memory, not in a
    // temporary file.
    exec_raw(db_, "PRAGMA temp_store = MEMORY", "group commit");
    seq_ = replay_committed(db_, read_all(fd_, log_path_), log_path_);
    if (::ftruncate(fd_, 0) != 0) fail("cannot empty the redo log '" + log_path_ + "'", errno_text());
    // When the file system cannot map it, records are appended with write() to an empty log
    // (not after the zeros a preallocation that succeeded left, where a replay would stop).
    // SUPERSTEP_REDO_LOG_WRITE=1 asks for write() (the tests of that path).
    const char* plain = std::getenv("SUPERSTEP_REDO_LOG_WRITE");
    const bool mapped = !(plain && *plain && std::string_view(plain) != "0") && map(kMapBytes);
    if (!mapped && ::ftruncate(fd_, 0) != 0)
      fail("cannot empty the redo log '" + log_path_ + "'", errno_text());
  } catch (...) {
    ::close(fd_);
    throw;
  }
  Registry& r = Registry::get();
  {
    std::lock_guard lock(r.mutex);
    r.groups.emplace_back(db_, this);
    r.count.fetch_add(1, std::memory_order_release);
  }
  flusher_ = std::thread([this] { flush_loop(); });
}

GroupCommit::~GroupCommit() {
  {
    std::lock_guard lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  bool empty = false;
  {
    std::lock_guard lock(owner_);
    try {
      if (depth_ == 0) flush();
    } catch (...) {  // the log keeps the group: the next open replays it
    }
    empty = !open_ && pending().empty();
  }
  Registry& r = Registry::get();
  {
    std::lock_guard lock(r.mutex);
    std::erase_if(r.groups, [&](const auto& e) { return e.second == this; });
    r.count.fetch_sub(1, std::memory_order_release);
  }
  if (empty) ::unlink(log_path_.c_str());  // (still locked: no other connection took it meanwhile)
  if (map_) ::munmap(map_, map_size_);
  ::close(fd_);
}

void GroupCommit::replay_left(sqlite3* db, const std::string& log_path) {
  struct stat st {};
  if (::stat(log_path.c_str(), &st) != 0) return;
  int fd = open_locked(log_path, false);
  if (fd < 0) return;  // its owner is alive, or it is gone
  try {
    std::string log = read_all(fd, log_path);
    if (!log.empty()) replay_committed(db, log, log_path);
    ::unlink(log_path.c_str());
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

bool GroupCommit::maps_log_in(const std::string& dir) {
  struct statfs fs {};
  return ::statfs(dir.c_str(), &fs) == 0 && written_over_in_place(fs);
}

bool GroupCommit::left_unreplayed(const std::string& log_path) {
  struct stat st {};
  if (::stat(log_path.c_str(), &st) != 0 || st.st_size == 0) return false;
  int fd = ::open(log_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // A mapped log keeps its size when emptied: only a first record that checks is left over.
  char head[kHeader];
  std::uint32_t len = 0;
  bool holds = ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(kHeader);
  if (holds) std::memcpy(&len, head, 4);
  holds = holds && kHeader + len <= static_cast<std::uint64_t>(st.st_size);  // (a torn length: no allocation)
  if (holds) {
    std::string first(kHeader + len, '\0');
    holds = ::pread(fd, first.data(), first.size(), 0) == static_cast<ssize_t>(first.size()) &&
            begins_with_record(first);
  }
  const bool free = holds && ::flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);
  return free;
}

void GroupCommit::check() const {
  if (!failed_.empty())
    throw Error("sqlite: group commit of '" + log_path_ + "' stopped: " + failed_ +
                    " (what was acknowledged is in the redo log, replayed when the file is opened again)",
                failed_);
  if (lost_ > 0) throw Error("sqlite: the transaction was rolled back by an error inside it", "rolled back");
}

bool GroupCommit::dropped() {
  if (!open_ || !sqlite3_get_autocommit(db_)) return false;
  // SQLite ended the group's transaction (a full disk, an I/O error): the unit being run is lost,
  // the acknowledged ones are replayed.
  open_ = false;
  lost_ += depth_;
  depth_ = 0;
  marks_.clear();
  unit_.clear();
  recover();
  return true;
}

void GroupCommit::recover() {
  if (pending().empty()) return;
  try {
    exec_raw(db_, "BEGIN IMMEDIATE", "group commit");
    open_ = true;
    opened_at_ = std::chrono::steady_clock::now();
    replay(db_, pending(), 0, log_path_, /*from_mark=*/false);
  } catch (const Error& e) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    open_ = false;
    failed_ = e.reason;
  }
}

void GroupCommit::begin() {
  dropped();
  check();
  if (depth_ == 0) {
    if (!open_) {
      exec_raw(db_, "BEGIN IMMEDIATE", "group commit");
      open_ = true;
      opened_at_ = std::chrono::steady_clock::now();
    }
    // No savepoint: a unit that fails is rare, and rolling the group back and replaying its
    // other units costs less than the statement journal a savepoint per unit writes.
    unit_.assign(kHeader, '\0');
  } else {
    exec_raw(db_, "SAVEPOINT superstep_unit", "group commit");
    marks_.push_back(unit_.size());
  }
  ++depth_;
}

void GroupCommit::commit() {
  dropped();
  if (lost_ > 0) {
    --lost_;
    throw Error("sqlite: the transaction was rolled back by an error inside it", "rolled back");
  }
  if (depth_ > 1) {
    exec_raw(db_, "RELEASE superstep_unit", "group commit");
    marks_.pop_back();
    --depth_;
    return;
  }
  if (unit_.size() > kHeader) {
    try {
      write_record();
    } catch (...) {
      abort();
      throw;
    }
  }
  depth_ = 0;
}

void GroupCommit::abort() {
  dropped();
  if (lost_ > 0) {
    --lost_;
    return;
  }
  if (depth_ == 0) return;
  if (depth_ > 1 &&
      sqlite3_exec(db_, "ROLLBACK TO superstep_unit; RELEASE superstep_unit", nullptr, nullptr, nullptr) == SQLITE_OK) {
    --depth_;
    unit_.resize(marks_.back());
    marks_.pop_back();
    return;
  }
  // The unit itself (or a savepoint that would not roll back): the group is rolled back and
  // its acknowledged units replayed.
  sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  dropped();
  if (lost_ > 0) --lost_;
}

void GroupCommit::record(std::string_view sql, const std::vector<Param>& params) {
  put(unit_, static_cast<std::uint32_t>(sql.size()));
  unit_.append(sql);
  put(unit_, static_cast<std::uint16_t>(params.size()));
  for (const Param& p : params) {
    unit_ += static_cast<char>(p.kind);
    if (p.kind == Param::Kind::integer) put(unit_, p.integer);
    else if (p.kind == Param::Kind::text) {
      put(unit_, static_cast<std::uint32_t>(p.text.size()));
      unit_.append(p.text);
    }
  }
}

void GroupCommit::write_record() {
  const std::uint64_t seq = seq_ + 1;
  const std::string_view payload = std::string_view(unit_).substr(kHeader);
  const std::uint32_t len = static_cast<std::uint32_t>(payload.size());
  const std::uint64_t sum = checksum(seq, payload);
  std::memcpy(unit_.data(), &len, 4);
  std::memcpy(unit_.data() + 4, &seq, 8);
  std::memcpy(unit_.data() + 12, &sum, 8);
  if (map_) {
    if (log_size_ + unit_.size() > map_size_) {
      std::size_t size = map_size_ * 2;
      while (size < log_size_ + unit_.size()) size *= 2;
      if (!map(size)) fail("cannot grow the redo log '" + log_path_ + "'", errno_text());
    }
    // The statements first, the header last: a process killed in between leaves a header that
    // does not check (or an older one, numbered below the last), and a replay stops there.
    std::memcpy(map_ + log_size_ + kHeader, unit_.data() + kHeader, unit_.size() - kHeader);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    std::memcpy(map_ + log_size_, unit_.data(), kHeader);
    log_size_ += unit_.size();
    seq_ = seq;
    return;
  }
  std::size_t done = 0;
  while (done < unit_.size()) {
    ssize_t n = ::write(fd_, unit_.data() + done, unit_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string reason = n < 0 ? errno_text() : "nothing written";
      // A part written would hide every record after it from a replay: cut it off.
      if (done > 0 && ::ftruncate(fd_, static_cast<off_t>(log_size_)) != 0)
        failed_ = "the redo log could not be cut back after a failed write (" + errno_text() + ")";
      fail("cannot write the redo log '" + log_path_ + "'", reason);
    }
    done += static_cast<std::size_t>(n);
  }
  log_size_ += unit_.size();
  seq_ = seq;
  pending_ += unit_;
}

void GroupCommit::flush() {
  if (depth_ > 0) return;
  dropped();
  if (!open_) return;
  write_mark(db_, seq_, log_path_);
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string reason = sqlite3_errmsg(db_);
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    open_ = false;
    recover();
    fail("cannot commit the group of '" + log_path_ + "'", reason);
  }
  open_ = false;
  pending_.clear();
  if (map_) {
    // Emptied by zeroing its first header, not by truncation: the file keeps its pages (in the
    // page cache and mapped), and the next records are written over the old ones. Those old
    // records are numbered at or below the mark, so a replay skips them or stops at them.
    std::memset(map_, 0, kHeader);
    log_size_ = 0;
    return;
  }
  // Records at or below the mark are skipped by a replay: a log that cannot be emptied only grows.
  if (::ftruncate(fd_, 0) == 0) log_size_ = 0;
}

void GroupCommit::maybe_flush() {
  if (open_ && depth_ == 0 &&
      (std::chrono::steady_clock::now() - opened_at_ >= delay_ || pending().size() >= kMaxGroupBytes))
    flush();
}

bool GroupCommit::map(std::size_t size) {
  // Blocks allocated up front: a store into a mapped page the file system cannot back (a full
  // disk) would be a SIGBUS, where write() returns ENOSPC. That holds only where a file's
  // blocks are written over in place (ext4, XFS, tmpfs): a copy-on-write file system (btrfs,
  // ZFS) needs new space for every page written over, so there the log is appended to.
  struct statfs fs {};
  if (::fstatfs(fd_, &fs) != 0 || !written_over_in_place(fs)) return false;
  if (::fallocate(fd_, 0, 0, static_cast<off_t>(size)) != 0) return false;
  void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (m == MAP_FAILED) return false;
  if (map_) ::munmap(map_, map_size_);
  map_ = static_cast<char*>(m);
  map_size_ = size;
  return true;
}

std::string_view GroupCommit::pending() const {
  return map_ ? std::string_view(map_, log_size_) : std::string_view(pending_);
}

void GroupCommit::flush_loop() {
  std::unique_lock wake(wake_mutex_);
  while (!stopping_) {
    wake_.wait_for(wake, delay_);
    if (stopping_) break;
    wake.unlock();
    {
      std::lock_guard lock(owner_);
      try {
        maybe_flush();
      } catch (...) {  // kept and tried again (the next unit's caller sees a failure that lasts)
      }
    }
    wake.lock();
  }
}

}  // namespace superstep::internal::sqlite
