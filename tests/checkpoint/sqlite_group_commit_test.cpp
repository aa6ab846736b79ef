// Group commit (src/internal/sqlite_group_commit.hpp, SqliteSaverOptions::group_commit): a write
// is durable when it returns though its group is not committed (a killed process's writes are
// replayed from the redo log by the next open, once, in order); a torn last record is dropped;
// other connections see the writes once committed; one group per file; a failed write leaves
// nothing and the others stay. The suite of every saver also runs on a grouped SqliteSaver
// (saver_cases.hpp: "sqlite_grouped").
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "internal/sqlite.hpp"
#include "internal/sqlite_group_commit.hpp"
#include "saver_cases.hpp"
#include "superstep/checkpoint/sqlite_saver.hpp"
#include "superstep/errors.hpp"
#include "test_util.hpp"

namespace {

using namespace std::chrono_literals;
namespace sqlite = superstep::internal::sqlite;

sp::Checkpoint cp(const std::string& id, json values, json versions) {
  sp::Checkpoint c;
  c.id = id;
  c.ts = "2026-12-02T00:00:00.000Z";
  c.channel_values = std::move(values);
  c.channel_versions = std::move(versions);
  c.versions_seen = {{"node", {{"a", 1}}}};
  return c;
}

/// Rows of `table` as another connection (no saver, no replay) sees the file.
int rows_seen_elsewhere(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return -1;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* s = nullptr;
  int n = -1;
  if (sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Runs `body` in a child process, which is killed with SIGKILL where `body` calls the function
/// it is given (so no destructor commits anything): what a killed server leaves.
void in_killed_child(const std::function<void(const std::function<void()>& die_here)>& body) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(ready[0]);
    auto die_here = [&] {
      char c = 'k';
      if (::write(ready[1], &c, 1) != 1) ::_exit(4);
      for (;;) ::pause();
    };
    try {
      body(die_here);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    ::_exit(3);  // body returned without dying where it should
  }
  ::close(ready[1]);
  char c = 0;
  const bool done = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(done) << "the child failed before it was killed (exit " << WEXITSTATUS(status) << ")";
}

/// The column x of table t in `path`, in insertion order, comma-separated (as another
/// connection sees the file).
std::string column_x(const std::string& path) {
  std::string out;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY rowid)", -1, &st, nullptr);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// The payload length in the header of the redo log record at `at` of `log`.
std::uint32_t record_length(const std::string& log, std::size_t at) {
  std::uint32_t len = 0;
  if (at + 4 <= log.size()) std::memcpy(&len, log.data() + at, 4);
  return len;
}

/// Runs `write` in a child killed after it (see in_killed_child) on `path`'s connection, whose
/// commits a GroupCommit groups with its log at `path`-redo and never commits on its own; the
/// table t (x INTEGER, pad TEXT) is made first when `make_table`.
void in_killed_grouping_child(const std::string& path, bool make_table,
                              const std::function<void(sqlite3*, sqlite::GroupCommit&)>& write) {
  in_killed_child([&](const auto& die_here) {
    sqlite3* db = sqlite::open(path);
    if (make_table) sqlite::exec(db, "PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER, pad TEXT)", path);
    std::recursive_mutex mutex;
    sqlite::GroupCommit group(db, path + "-redo", std::chrono::hours(1), mutex);
    std::lock_guard lock(mutex);
    write(db, group);
    die_here();
  });
}

/// The first `n` records of the redo log `log` (its bytes), each whole.
std::vector<std::string> first_records(const std::string& log, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t at = 0; out.size() < n && at + 20 <= log.size();) {
    const std::size_t whole = 20 + record_length(log, at);
    out.push_back(log.substr(at, whole));
    at += whole;
  }
  return out;
}

const sp::SqliteSaver::Options kGrouped{.group_commit = std::chrono::hours(1)};  // never on its own

TEST(SqliteGroupCommit, AWriteThatReturnedSurvivesTheProcessBeingKilledBeforeItsGroupCommits) {
  const std::string path = testing_util::scratch_db("group_killed");
  { sp::SqliteSaver(path).put({"t", "", std::nullopt}, cp("c0", {{"k", "v0"}}, {{"k", 1}}), {{"step", 0}}, {{"k", 1}}); }
  in_killed_child([&](const auto& die_here) {
    sp::SqliteSaver saver(path, kGrouped);
    sp::CheckpointConfig at{"t", "", "c0"};
    for (int i = 1; i <= 3; ++i) {
      std::string id = "c" + std::to_string(i);
      at = saver.put(at, cp(id, {{"k", "v" + std::to_string(i)}}, {{"k", i + 1}}), {{"step", i}}, {{"k", i + 1}});
    }
    saver.put_writes(at, {{"k", "pending"}}, "task-1");
    die_here();
  });
  // The file itself has only what was there before; the rest is in the log.
  EXPECT_EQ(rows_seen_elsewhere(path, "checkpoints"), 1);
  ASSERT_TRUE(std::filesystem::exists(path + "-redo"));
  sp::SqliteSaver reopened(path);
  auto t = reopened.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, "c3");
  EXPECT_EQ(t->checkpoint.channel_values["k"], "v3");
  EXPECT_EQ(t->metadata["step"], 3);
  ASSERT_EQ(t->pending_writes.size(), 1u);
  EXPECT_EQ(t->pending_writes[0].value, "pending");
  EXPECT_EQ(reopened.list({.thread_id = "t"}).size(), 4u);
  EXPECT_EQ(rows_seen_elsewhere(path, "checkpoints"), 4) << "the replay was committed";
  EXPECT_FALSE(std::filesystem::exists(path + "-redo")) << "the replayed log is removed";
}

// Records are numbered one after another from the file's mark: a replay stops at a record that
// does not follow the one before it, or whose number is past the one after the mark (records
// lost in between: a power loss may leave such a log), so nothing runs without what came before.
TEST(SqliteGroupCommit, AReplayStopsAtAGapInTheNumbers) {
  const std::string path = testing_util::scratch_db("group_gap");
  const std::string log = path + "-redo";
  in_killed_grouping_child(path, true, [](sqlite3* db, sqlite::GroupCommit&) {
    for (int i = 1; i <= 3; ++i) sqlite::Stmt(db, "INSERT INTO t (x) VALUES (?1)").bind(1, i).run();
  });
  const std::vector<std::string> r = first_records(file_bytes(log), 3);
  ASSERT_EQ(r.size(), 3u);
  const std::string &r1 = r[0], &r2 = r[1], &r3 = r[2];
  write_bytes(log, r1 + r3 + r2);
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(column_x(path), "1") << "the third does not follow the first";
  write_bytes(log, r3);
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(column_x(path), "1") << "the file's mark is 1: the third would run without the second";
  write_bytes(log, r2 + r3);
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(column_x(path), "1,2,3");
}

// Where the log cannot be mapped (SUPERSTEP_REDO_LOG_WRITE=1 asks for that path), each record
// is appended with write() and the log holds its records and nothing after them; a killed
// process's writes are replayed alike.
TEST(SqliteGroupCommit, AnUnmappedLogAppendsItsRecordsAndIsReplayedAlike) {
  const std::string path = testing_util::scratch_db("group_unmapped");
  ::setenv("SUPERSTEP_REDO_LOG_WRITE", "1", 1);
  in_killed_child([&](const auto& die_here) {
    sp::SqliteSaver saver(path, kGrouped);
    sp::CheckpointConfig at{"t", "", std::nullopt};
    for (int i = 1; i <= 3; ++i)
      at = saver.put(at, cp("c" + std::to_string(i), {{"k", i}}, {{"k", i}}), {{"step", i}}, {{"k", i}});
    die_here();
  });
  ::unsetenv("SUPERSTEP_REDO_LOG_WRITE");
  const std::string bytes = file_bytes(path + "-redo");
  std::size_t at = 0, records = 0;
  while (at < bytes.size()) {
    at += 20 + record_length(bytes, at);
    ++records;
  }
  EXPECT_EQ(at, bytes.size()) << "whole records, nothing after them";
  EXPECT_EQ(records, 3u);
  sp::SqliteSaver reopened(path);
  auto t = reopened.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, "c3");
  EXPECT_EQ(reopened.list({.thread_id = "t"}).size(), 3u);
}

// The records a group commit already stored are not run again (the mark), whatever the log
// still holds (a process killed between the commit and emptying the log); a torn last record (a
// process killed in its write) is dropped; a zeroed region (what a file system may leave after a
// power loss) ends the replay, so no record after a lost one runs. Shown on statements that are
// not idempotent.
TEST(SqliteGroupCommit, AReplayRunsEachRecordOnceInOrderAndStopsAtADamagedOne) {
  const std::string path = testing_util::scratch_db("group_once");
  const std::string log = path + "-redo";
  in_killed_grouping_child(path, true, [](sqlite3* db, sqlite::GroupCommit& group) {
    sqlite::Stmt(db, "INSERT INTO t (x) VALUES (?1)").bind(1, 1).run();
    group.flush();
    sqlite::Stmt(db, "INSERT INTO t (x) VALUES (?1)").bind(1, 2).run();
    sqlite::Stmt(db, "INSERT INTO t (x) VALUES (?1)").bind(1, 3).run();
  });
  const std::string records = file_bytes(log);
  // (The log is mapped and preallocated: zeros follow its records.)
  ASSERT_GT(records.size(), 20u);
  const std::uint32_t first_len = record_length(records, 0);
  const std::string second = records.substr(0, 20 + first_len);
  ASSERT_GT(records.size(), second.size() + 20u) << "the log should hold two records";
  const std::string third = records.substr(second.size(), 20 + record_length(records, second.size()));
  ASSERT_GT(record_length(records, second.size()), 0u) << "the log should hold two records";
  auto values = [&] { return column_x(path); };
  EXPECT_EQ(values(), "1") << "the first group was committed, the rest not";
  // A zeroed header between the two records: the second runs, the third does not.
  write_bytes(log, second + std::string(20, '\0') + third);
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(values(), "1,2");
  // Both again, as if the log had not been emptied after the commit that stored the second, and
  // a torn record after them: the second is not run again, the third runs once.
  write_bytes(log, second + third + std::string("\x40\x00\x00\x00\x03\x00\x00", 7));
  { sp::SqliteSaver opened(path, kGrouped); }
  EXPECT_EQ(values(), "1,2,3");
  write_bytes(log, second + third);
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(values(), "1,2,3") << "a record the file holds was run again";
  EXPECT_FALSE(std::filesystem::exists(log));
}

// The log keeps its size and pages when a group commits: it is emptied by zeroing its first
// header, and the next records are written over the older ones. A replay after a kill then runs
// the new records alone, once, however the old ones lie after them (here longer, so the new
// record ends inside an old one); a log left emptied holds nothing, and a read-only open takes
// the file.
TEST(SqliteGroupCommit, ALogWrittenOverAfterACommitReplaysItsNewRecordsAlone) {
  const std::string path = testing_util::scratch_db("group_over");
  if (!sqlite::GroupCommit::maps_log_in(std::filesystem::path(path).parent_path()))
    GTEST_SKIP() << "the redo log is mapped on ext4, XFS and tmpfs only (appended to elsewhere)";
  const std::string log = path + "-redo";
  auto values = [&] { return column_x(path); };
  in_killed_grouping_child(path, true, [](sqlite3* db, sqlite::GroupCommit& group) {
    for (int i = 1; i <= 4; ++i) sqlite::Stmt(db, "INSERT INTO t VALUES (?1, ?2)").bind(1, i).bind(2, std::string(300, 'p')).run();
    group.flush();
    sqlite::Stmt(db, "INSERT INTO t VALUES (?1, ?2)").bind(1, 5).bind(2, std::string("q")).run();
    sqlite::Stmt(db, "INSERT INTO t VALUES (?1, ?2)").bind(1, 6).bind(2, std::string("q")).run();
  });
  const std::string bytes = file_bytes(log);
  const std::size_t fifth = 20 + record_length(bytes, 0), sixth = 20 + record_length(bytes, fifth);
  ASSERT_GT(bytes.size(), fifth + sixth + 20) << "older records lie after the new ones";
  EXPECT_GT(record_length(bytes, fifth + sixth), 0u) << "the bytes after the new records are an old record's";
  EXPECT_EQ(values(), "1,2,3,4");
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(values(), "1,2,3,4,5,6") << "the new records run once, the old ones not again";
  EXPECT_FALSE(std::filesystem::exists(log));

  // Killed right after a commit: the log is emptied, not removed, and holds nothing to replay.
  in_killed_grouping_child(path, false, [](sqlite3* db, sqlite::GroupCommit& group) {
    sqlite::Stmt(db, "INSERT INTO t VALUES (?1, ?2)").bind(1, 7).bind(2, std::string(300, 'p')).run();
    group.flush();
  });
  ASSERT_TRUE(std::filesystem::exists(log));
  EXPECT_FALSE(sqlite::GroupCommit::left_unreplayed(log));
  EXPECT_EQ(values(), "1,2,3,4,5,6,7");
  { sp::SqliteSaver opened(path); }
  EXPECT_EQ(values(), "1,2,3,4,5,6,7");
  // A first header torn to a huge length holds nothing either (and is not read as one).
  write_bytes(log, std::string("\xff\xff\xff\xff", 4) + std::string(4096, '\x01'));
  EXPECT_FALSE(sqlite::GroupCommit::left_unreplayed(log));
}

TEST(SqliteGroupCommit, OtherConnectionsSeeTheWritesOnceTheGroupCommits) {
  const std::string path = testing_util::scratch_db("group_visible");
  {
    sp::SqliteSaver saver(path, kGrouped);
    saver.put({"t", "", std::nullopt}, cp("c1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
    EXPECT_TRUE(saver.get_tuple({"t", "", std::nullopt})) << "the saver reads its own writes at once";
    EXPECT_EQ(rows_seen_elsewhere(path, "checkpoints"), 0);
  }
  EXPECT_EQ(rows_seen_elsewhere(path, "checkpoints"), 1) << "closing commits the group";
  // An idle group is committed after its delay without another write.
  sp::SqliteSaver saver(path, sp::SqliteSaver::Options{.group_commit = 50ms});
  saver.put({"t", "", "c1"}, cp("c2", {{"k", "w"}}, {{"k", 2}}), json::object(), {{"k", 2}});
  int seen = 0;
  for (int i = 0; i < 100 && (seen = rows_seen_elsewhere(path, "checkpoints")) != 2; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(seen, 2) << "the idle group was not committed within 5 s";
}

TEST(SqliteGroupCommit, ASecondGroupOnOneFileIsRefusedAndAReadOnlyOpenWillNotMissTheLog) {
  const std::string path = testing_util::scratch_db("group_second");
  {
    sp::SqliteSaver owner(path, kGrouped);
    try {
      sp::SqliteSaver second(path, kGrouped);
      ADD_FAILURE() << "two groups on one file";
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("is held by another connection"), std::string::npos) << e.what();
    }
    // A saver that does not group opens it (and leaves the owner's log alone).
    sp::SqliteSaver plain(path, sp::SqliteSaver::Options{.busy_timeout = 100ms});
  }
  in_killed_child([&](const auto& die_here) {
    sp::SqliteSaver saver(path, kGrouped);
    saver.put({"t", "", std::nullopt}, cp("c1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
    die_here();
  });
  try {
    sp::SqliteSaver reader(path, sp::SqliteSaver::Options{.read_only = true});
    ADD_FAILURE() << "a read-only open ignored writes left in the redo log";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("redo log"), std::string::npos) << e.what();
  }
  { sp::SqliteSaver writer(path); }
  sp::SqliteSaver reader(path, sp::SqliteSaver::Options{.read_only = true});
  EXPECT_TRUE(reader.get_tuple({"t", "", std::nullopt}));
}

// A write that fails (the file's page cap reached: a full disk) leaves nothing, even when SQLite
// rolls the whole grouped transaction back; the writes acknowledged before it stay, in this
// saver and in the file.
TEST(SqliteGroupCommit, AFailedWriteLeavesNothingAndTheAcknowledgedOnesStay) {
  const std::string path = testing_util::scratch_db("group_full");
  { sp::SqliteSaver make(path); }
  const auto pages = static_cast<unsigned>(std::filesystem::file_size(path) / 4096) + 6;
  std::string ok_id;
  bool failed = false;
  {
    sp::SqliteSaver saver(path, sp::SqliteSaver::Options{.max_page_count = pages, .group_commit = std::chrono::hours(1)});
    sp::CheckpointConfig at{"t", "", std::nullopt};
    for (int i = 0; i < 200 && !failed; ++i) {
      std::string id = "c" + std::to_string(1000 + i);
      try {
        at = saver.put(at, cp(id, {{"k", std::string(3000, 'x') + id}}, {{"k", i + 1}}), json::object(), {{"k", i + 1}});
        ok_id = id;
      } catch (const sp::CheckpointError& e) {
        failed = true;
        EXPECT_NE(std::string(e.what()).find("full"), std::string::npos) << e.what();
      }
    }
    ASSERT_TRUE(failed) << "the page cap was never reached";
    ASSERT_FALSE(ok_id.empty());
    auto t = saver.get_tuple({"t", "", std::nullopt});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->checkpoint.id, ok_id);
  }
  sp::SqliteSaver reopened(path);
  auto t = reopened.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, ok_id);
  EXPECT_EQ(t->checkpoint.channel_values["k"], std::string(3000, 'x') + ok_id);
}

}  // namespace
