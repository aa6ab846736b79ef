// The WAL-batching VFS (src/internal/sqlite_wal_vfs.hpp): each commit's frames reach the WAL in
// one write (in pieces the unix VFS accepts when large), every commit is visible to another
// connection and survives the process being killed once it returned, and rollbacks and spills
// leave the file as SQLite would.
#include "internal/sqlite_wal_vfs.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace vfs = superstep::internal::sqlite;

std::string scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "superstep-wal-vfs-test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / (name + "-" + std::to_string(::getpid()) + ".db")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

// A VFS over the default one that records the size of every write to a WAL file.
struct Counting {
  static inline std::vector<int> wal_writes;
  struct File {
    sqlite3_file file;
    sqlite3_file* real;
  };
  static constexpr std::size_t kRealOffset = (sizeof(File) + 15) / 16 * 16;
  static sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }
  static inline const sqlite3_io_methods methods = {
      1,
      [](sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); },
      [](sqlite3_file* f, void* out, int n, sqlite3_int64 at) { return real(f)->pMethods->xRead(real(f), out, n, at); },
      [](sqlite3_file* f, const void* in, int n, sqlite3_int64 at) {
        wal_writes.push_back(n);
        return real(f)->pMethods->xWrite(real(f), in, n, at);
      },
      [](sqlite3_file* f, sqlite3_int64 size) { return real(f)->pMethods->xTruncate(real(f), size); },
      [](sqlite3_file* f, int flags) { return real(f)->pMethods->xSync(real(f), flags); },
      [](sqlite3_file* f, sqlite3_int64* size) { return real(f)->pMethods->xFileSize(real(f), size); },
      [](sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); },
      [](sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); },
      [](sqlite3_file* f, int* out) { return real(f)->pMethods->xCheckReservedLock(real(f), out); },
      [](sqlite3_file* f, int op, void* arg) { return real(f)->pMethods->xFileControl(real(f), op, arg); },
      [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); },
      [](sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); },
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  static inline sqlite3_vfs vfs{};

  static const char* name() {
    static const bool registered = [] {
      sqlite3_vfs* base = sqlite3_vfs_find(nullptr);
      vfs = *base;
      vfs.zName = "counting";
      vfs.szOsFile = static_cast<int>(kRealOffset) + base->szOsFile;
      vfs.pNext = nullptr;
      vfs.xOpen = [](sqlite3_vfs*, sqlite3_filename n, sqlite3_file* f, int flags, int* out) {
        sqlite3_vfs* b = sqlite3_vfs_find(nullptr);
        if (!(flags & SQLITE_OPEN_WAL)) return b->xOpen(b, n, f, flags, out);
        auto* file = reinterpret_cast<File*>(f);
        file->file.pMethods = nullptr;
        file->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + kRealOffset);
        file->real->pMethods = nullptr;
        int rc = b->xOpen(b, n, file->real, flags, out);
        if (rc != SQLITE_OK) {
          if (file->real->pMethods) file->real->pMethods->xClose(file->real);
          return rc;
        }
        file->file.pMethods = &methods;
        return SQLITE_OK;
      };
      return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK &&
             vfs::register_wal_vfs(sqlite3_vfs_find("counting"), "superstep-wal-over-counting");
    }();
    return registered ? "counting" : nullptr;
  }
};

sqlite3* open_with(const std::string& path, const char* vfs_name) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs_name), SQLITE_OK);
  return db;
}

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  ASSERT_EQ(rc, SQLITE_OK) << (err ? err : "") << " in " << sql;
}

long long scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  long long v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

std::string text(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string v;
  if (sqlite3_step(st) == SQLITE_ROW) v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return v;
}

// Four tables keyed at random: a commit dirties a page of each, and of their indexes.
void set_up(sqlite3* db) {
  exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  for (int t = 0; t < 4; ++t)
    exec(db, "CREATE TABLE t" + std::to_string(t) + " (k TEXT PRIMARY KEY, v TEXT)");
  std::string fill = "BEGIN;";
  for (int i = 0; i < 400; ++i)
    for (int t = 0; t < 4; ++t)
      fill += "INSERT INTO t" + std::to_string(t) + " VALUES (hex(randomblob(8)), hex(randomblob(100)));";
  exec(db, fill + "COMMIT");
}

std::string one_row_each() {
  std::string sql = "BEGIN;";
  for (int t = 0; t < 4; ++t)
    sql += "INSERT INTO t" + std::to_string(t) + " VALUES (hex(randomblob(8)), hex(randomblob(100)));";
  return sql + "COMMIT";
}

}  // namespace

TEST(SqliteWalVfs, WritesACommitsFramesInOneCall) {
  ASSERT_TRUE(Counting::name());
  constexpr int kFrame = 24 + 4096;
  std::vector<int> plain, batched;
  for (const char* via : {"counting", "superstep-wal-over-counting"}) {
    std::string path = scratch(std::string("count-") + via);
    sqlite3* db = open_with(path, via);
    set_up(db);
    Counting::wal_writes.clear();
    exec(db, one_row_each());
    (std::string(via) == "counting" ? plain : batched) = Counting::wal_writes;
    sqlite3_close(db);
  }
  // SQLite alone: a header and a page per frame, the pages of four tables at least.
  ASSERT_GE(plain.size(), 8u);
  for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(plain[i], i % 2 ? 4096 : 24) << i;
  // Through the VFS: one write of whole frames, as many as SQLite wrote.
  ASSERT_EQ(batched.size(), 1u);
  EXPECT_EQ(batched[0] % kFrame, 0);
  EXPECT_GE(batched[0] / kFrame, 4);
  EXPECT_EQ(batched[0], static_cast<int>(plain.size() / 2) * kFrame);
}

TEST(SqliteWalVfs, ALargeCommitGoesOutInPiecesAndReadsBack) {
  ASSERT_TRUE(Counting::name());
  std::string path = scratch("large");
  sqlite3* db = open_with(path, "superstep-wal-over-counting");
  set_up(db);
  Counting::wal_writes.clear();
  // ~6 MB in one transaction: more than the page cache holds (it spills mid-transaction), more
  // than one flush of the buffer, and pieces the unix VFS takes (at most 0x1ffff bytes).
  exec(db, "BEGIN; INSERT INTO t0 VALUES ('big', hex(randomblob(3000000))); UPDATE t1 SET v = v || 'x'; COMMIT");
  ASSERT_GT(Counting::wal_writes.size(), 40u);
  for (int n : Counting::wal_writes) EXPECT_LE(n, 0x1ffff);
  sqlite3* reader = open_with(path, nullptr);
  EXPECT_EQ(scalar(reader, "SELECT length(v) FROM t0 WHERE k = 'big'"), 6000000);
  EXPECT_EQ(scalar(reader, "SELECT count(*) FROM t1 WHERE v LIKE '%x'"), 400);
  EXPECT_EQ(text(reader, "PRAGMA integrity_check"), "ok");
  sqlite3_close(reader);
  sqlite3_close(db);
}

TEST(SqliteWalVfs, EveryCommitIsVisibleToAnotherConnectionAtOnce) {
  std::string path = scratch("visible");
  sqlite3* db = open_with(path, vfs::wal_vfs_name());
  set_up(db);
  sqlite3* reader = open_with(path, nullptr);  // the default VFS, as another process would use
  for (int i = 1; i <= 300; ++i) {
    // Commits of one page to several hundred (every 50th overflows into many pages).
    const int bytes = i % 50 == 0 ? 400000 : 1 + 50 * (i % 7);
    exec(db, "INSERT INTO t2 VALUES ('k" + std::to_string(i) + "', hex(randomblob(" + std::to_string(bytes) + ")))");
    ASSERT_EQ(scalar(reader, "SELECT count(*) FROM t2 WHERE k LIKE 'k%'"), i);
    ASSERT_EQ(scalar(reader, "SELECT length(v) FROM t2 WHERE k = 'k" + std::to_string(i) + "'"), 2 * bytes);
  }
  // A rolled-back transaction (large enough to spill) leaves nothing; the next commit lands.
  exec(db, "BEGIN; UPDATE t3 SET v = hex(randomblob(20000)); DELETE FROM t2");
  exec(db, "ROLLBACK");
  exec(db, "INSERT INTO t2 VALUES ('after', 'x')");
  EXPECT_EQ(scalar(reader, "SELECT count(*) FROM t2"), 400 + 300 + 1);
  EXPECT_EQ(scalar(reader, "SELECT max(length(v)) FROM t3"), 200);
  sqlite3_close(reader);
  sqlite3_close(db);
}

// The child half of the next test: commits, prints the commit's number once it returned, and
// waits for a line on stdin before the next.
TEST(SqliteWalVfs, ChildCommitsUntilKilled) {
  const char* path = std::getenv("SUPERSTEP_WAL_VFS_CHILD");
  if (!path) GTEST_SKIP() << "run by ACommitSurvivesTheProcessBeingKilledRightAfterIt";
  sqlite3* db = open_with(path, vfs::wal_vfs_name());
  char go[16];
  for (int i = 1;; ++i) {
    exec(db, "BEGIN; INSERT INTO t0 VALUES ('commit-" + std::to_string(i) + "', hex(randomblob(300)));"
             "INSERT INTO t1 VALUES (hex(randomblob(8)), 'commit-" + std::to_string(i) + "'); COMMIT");
    std::printf("%d\n", i);
    std::fflush(stdout);
    if (!std::fgets(go, sizeof go, stdin)) break;
  }
  sqlite3_close(db);
}

TEST(SqliteWalVfs, ACommitSurvivesTheProcessBeingKilledRightAfterIt) {
  std::string path = scratch("killed");
  {
    sqlite3* db = open_with(path, vfs::wal_vfs_name());
    set_up(db);
    sqlite3_close(db);
  }
  for (int round = 0; round < 3; ++round) {
    // Everything the child needs is made before fork(): it only redirects and execs.
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    std::string filter = "--gtest_filter=SqliteWalVfs.ChildCommitsUntilKilled";
    std::string child_env = "SUPERSTEP_WAL_VFS_CHILD=" + path;
    std::vector<char*> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    env.push_back(child_env.data());
    env.push_back(nullptr);
    char* argv[] = {const_cast<char*>(self.c_str()), filter.data(), nullptr};
    int out[2], in[2];
    ASSERT_EQ(::pipe(out), 0);
    ASSERT_EQ(::pipe(in), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], 1);
      ::dup2(in[0], 0);
      ::close(out[0]);
      ::close(in[1]);
      ::execve(self.c_str(), argv, env.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(in[0]);
    FILE* from = ::fdopen(out[0], "r");
    int reported = 0, n = 0;
    char line[256];
    // The child waits after each commit; at the chosen one it is killed instead of let go.
    const int last = 50 + 37 * round;
    while (std::fgets(line, sizeof line, from)) {
      if (std::sscanf(line, "%d", &n) != 1) continue;
      reported = n;
      if (reported == last) break;
      ASSERT_EQ(::write(in[1], "go\n", 3), 3);
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::fclose(from);
    ::close(in[1]);
    ASSERT_EQ(reported, last) << "the child stopped early";
    sqlite3* db = open_with(path, nullptr);
    const long long kept = scalar(db, "SELECT count(*) FROM t0 WHERE k LIKE 'commit-%'");
    EXPECT_EQ(kept, reported) << "a commit that returned was lost";
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM t1 WHERE v LIKE 'commit-%'"), kept) << "a commit was torn";
    EXPECT_EQ(text(db, "PRAGMA integrity_check"), "ok");
    exec(db, "DELETE FROM t0 WHERE k LIKE 'commit-%'; DELETE FROM t1 WHERE v LIKE 'commit-%'");
    sqlite3_close(db);
  }
}
