// Injected faults on a real SQLite file, mid-run (after some checkpoints exist): the disk fills
// up, the file is opened read-only, another process holds the write lock, a page is corrupted,
// the file is deleted. Each run fails with a CheckpointError naming the graph, the thread, what
// was being saved and SQLite's reason; the last good checkpoint stays readable; and once the
// fault is gone, a run resuming the thread ends with exactly the state of an uninterrupted run.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "faults/fault_graph.hpp"
#include "saver_cases.hpp"

extern char** environ;

namespace {

namespace sp = superstep;
using sp::json;
using fault_test::build;
using fault_test::checkpoint_error;
using fault_test::expect_history_readable;
using fault_test::kSteps;
using fault_test::stored_step;
using fault_test::thread;
using namespace std::chrono_literals;

/// Runs `sql` on a connection of its own (another writer of the same file).
void exec_other(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << msg;
}

class SqliteFaults : public ::testing::Test {
 protected:
  std::string path = testing_util::scratch_db("faults");
  json expected = fault_test::uninterrupted();
};

// The disk fills up at step 4: another writer of the same file (the filler table) takes it to
// the saver's size cap (SqliteSaverOptions::max_page_count), so the saver's next page fails.
TEST_F(SqliteFaults, DiskFullFailsTheRunNamingTheThreadAndResumesOnceThereIsRoom) {
  for (auto durability : {sp::Durability::sync, sp::Durability::async}) {
    SCOPED_TRACE(durability == sp::Durability::sync ? "sync" : "async");
    std::string file = testing_util::scratch_db("full");
    auto saver = std::make_shared<sp::SqliteSaver>(file, sp::SqliteSaver::Options{.max_page_count = 2000});
    bool filled = false;
    auto app = build(saver, [&](int n) {
      if (n == 4 && !std::exchange(filled, true))
        exec_other(file, "CREATE TABLE filler (b BLOB); INSERT INTO filler VALUES (zeroblob(2000 * 4096));");
    });
    sp::RunConfig cfg = thread("full");
    cfg.durability = durability;
    std::string what = checkpoint_error([&] { app.invoke(json{{"n", 0}}, cfg); });
    EXPECT_NE(what.find("graph 'faults', thread 'full': saving "), std::string::npos) << what;
    EXPECT_NE(what.find("failed: sqlite: database or disk is full"), std::string::npos) << what;
    // The checkpoints before the fault are intact, on the same saver and on a new one.
    // Sync: steps 1-3 stored. Async: the checkpoints queued in one batch (one transaction) with
    // the failed save go with it, as SQLite rolls a transaction back whole on a full disk: fewer
    // (none, when the whole run was one batch), still consistent, recomputed by the resumed run.
    int last = stored_step(app, "full");
    if (durability == sp::Durability::sync) {
      EXPECT_EQ(last, 3);
    }
    EXPECT_LE(last, 3);
    if (last > 0) {
      expect_history_readable(app, "full", last);
      expect_history_readable(build(std::make_shared<sp::SqliteSaver>(file)), "full", last);
    }
    // Room again (the filler goes, and the file shrinks below the cap): the same saver resumes
    // the thread to the end (from the input when nothing was stored).
    exec_other(file, "DROP TABLE filler; VACUUM;");
    EXPECT_EQ(last > 0 ? app.invoke(nullptr, cfg) : app.invoke(json{{"n", 0}}, cfg), expected);
    EXPECT_EQ(stored_step(app, "full"), kSteps);
  }
}

// A saver opened read-only refuses the run (its claim on the thread is a write) with a named
// error, and reads the thread; the writable saver then resumes it.
TEST_F(SqliteFaults, ReadOnlySaverRefusesWritesNamingTheThreadAndStillReads) {
  std::stop_source stop;
  auto writable = std::make_shared<sp::SqliteSaver>(path);
  auto app = build(writable, [&](int n) {
    if (n == 3) stop.request_stop();  // the run stops after step 3, saved
  });
  sp::RunConfig cfg = thread("ro");
  cfg.stop = stop.get_token();
  EXPECT_THROW(app.invoke(json{{"n", 0}}, cfg), sp::RunCancelledError);

  auto read_only = build(std::make_shared<sp::SqliteSaver>(path, sp::SqliteSaver::Options{.read_only = true}));
  std::string what = checkpoint_error([&] { read_only.invoke(nullptr, thread("ro")); });
  EXPECT_NE(what.find("graph 'faults', thread 'ro': claiming the thread failed: sqlite: attempt to write a readonly database"),
            std::string::npos)
      << what;
  EXPECT_EQ(stored_step(read_only, "ro"), 3);
  expect_history_readable(read_only, "ro", 3);
  // Direct writes through the read-only saver are refused too.
  sp::SqliteSaver direct(path, {.read_only = true});
  auto latest = direct.get_tuple({"ro", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_THROW(direct.put_writes(latest->config, {{"n", 9}}, "task"), sp::CheckpointError);
  EXPECT_THROW(direct.delete_thread("ro"), sp::CheckpointError);
  EXPECT_EQ(stored_step(read_only, "ro"), 3);

  EXPECT_EQ(app.invoke(nullptr, thread("ro")), expected);
}

// A read-only open of a file that does not exist fails naming the path (nothing is created).
TEST_F(SqliteFaults, ReadOnlyOpenOfAMissingFileFailsNamingThePath) {
  std::string what = checkpoint_error([&] { sp::SqliteSaver s(path, {.read_only = true}); });
  EXPECT_NE(what.find("cannot open '" + path + "'"), std::string::npos) << what;
  EXPECT_FALSE(std::filesystem::exists(path));
}

/// Another process: superstep-fault-child, holding the file's write lock until `release`.
struct LockHolder {
  pid_t pid = -1;
  int to_child = -1;
  explicit LockHolder(const std::string& db) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string exe = SUPERSTEP_FAULT_CHILD;
    char* argv[] = {exe.data(), const_cast<char*>("hold-lock"), const_cast<char*>(db.c_str()), nullptr};
    int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    to_child = in[1];
    if (rc != 0) throw std::runtime_error("cannot start " + exe);
    char buf[16] = {};
    ssize_t got = read(out[0], buf, sizeof buf - 1);  // "locked\n" once it holds the lock
    close(out[0]);
    if (got <= 0 || std::string(buf).rfind("locked", 0) != 0) throw std::runtime_error("the child did not lock the file");
  }
  void release() {
    if (pid < 0) return;
    close(to_child);
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
  }
  ~LockHolder() { release(); }
};

// Another process holds the write lock from step 3 on: the saver waits its busy timeout (no
// longer), and the run fails naming the thread and "database is locked"; reads still work
// while the lock is held (WAL); once the other process lets go, the thread resumes.
TEST_F(SqliteFaults, LockHeldByAnotherProcessFailsAfterTheBusyTimeoutNotAHang) {
  std::unique_ptr<LockHolder> holder;
  auto saver = std::make_shared<sp::SqliteSaver>(path, sp::SqliteSaver::Options{.busy_timeout = 200ms});
  auto app = build(saver, [&](int n) {
    if (n == 3 && !holder) holder = std::make_unique<LockHolder>(path);
  });
  sp::RunConfig cfg = thread("locked");
  cfg.durability = sp::Durability::sync;
  auto t0 = std::chrono::steady_clock::now();
  std::string what = checkpoint_error([&] { app.invoke(json{{"n", 0}}, cfg); });
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_NE(what.find("graph 'faults', thread 'locked': saving "), std::string::npos) << what;
  EXPECT_NE(what.find("failed: sqlite: database is locked"), std::string::npos) << what;
  EXPECT_LT(took, 5s);  // the busy timeout, not a hang
  ASSERT_TRUE(holder);
  EXPECT_EQ(stored_step(app, "locked"), 2);  // read while the other process still holds the lock
  holder->release();
  EXPECT_EQ(app.invoke(nullptr, thread("locked")), expected);
}

/// The page numbers (1-based) of `file` whose bytes after the first 4 (an overflow page's
/// link) are all of `text` repeated: pages holding nothing but one value's middle.
std::vector<std::size_t> pages_holding_only(const std::string& file, const std::string& marker) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::size_t kPage = 4096;
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p + 1 <= bytes.size() / kPage; ++p) {
    std::string_view page(bytes.data() + p * kPage + 4, kPage - 4);
    auto at = page.find(marker);
    if (at == std::string_view::npos || at >= marker.size()) continue;
    bool only = true;
    for (std::size_t i = at; i + marker.size() <= page.size() && only; i += marker.size())
      only = page.substr(i, marker.size()) == marker;
    if (only) out.push_back(p + 1);
  }
  return out;
}

// Pages holding step 2's data (overflow pages of its stored value and of its task's writes) are
// overwritten on disk while no saver has the file open. Reading what needs them is a named error
// (thread, checkpoint), never a crash or a wrong value. SQLite reads a whole key of these (WITHOUT
// ROWID) tables when a search compares with it, and copies it when it splits a page, so which
// other reads and writes reach a corrupt key depends on the b-tree's shape (ids are time-based):
// a resumed run on the corrupt file either ends as an uninterrupted one or fails naming the
// thread. The way out is a healthy file: the newest checkpoint still readable, read through the
// public API and put into a new file, resumes the thread to the state of an uninterrupted run.
TEST_F(SqliteFaults, CorruptPageIsANamedErrorAndTheLastReadableCheckpointResumesOnAHealthyFile) {
  std::vector<std::string> ids;  // by step, newest first
  {
    std::stop_source stop;
    auto app = build(std::make_shared<sp::SqliteSaver>(path), [&](int n) {
      if (n == 4) stop.request_stop();
    });
    sp::RunConfig cfg = thread("corrupt");
    cfg.stop = stop.get_token();
    EXPECT_THROW(app.invoke(json{{"n", 0}}, cfg), sp::RunCancelledError);
    for (const auto& snap : app.get_state_history(thread("corrupt"))) ids.push_back(*snap.config.checkpoint_id);
  }  // the saver closes: the WAL is folded into the file
  ASSERT_GE(ids.size(), 4u);
  const std::string id_of_step2 = ids[ids.size() - 4];  // checkpoints of steps -1 (input), 0, 1, 2, ...
  auto pages = pages_holding_only(path, "STEP2|");
  ASSERT_FALSE(pages.empty()) << "no page holds only step 2's doc";
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    for (std::size_t page : pages) {
      f.seekp(static_cast<std::streamoff>((page - 1) * 4096));
      f << std::string(4096, '\xA5');
    }
  }
  auto saver = std::make_shared<sp::SqliteSaver>(path);
  auto app = build(saver);
  std::string what = checkpoint_error([&] { app.get_state_history(thread("corrupt")); });
  EXPECT_NE(what.find("graph 'faults', thread 'corrupt': reading its history failed: sqlite: database disk image is malformed"),
            std::string::npos)
      << what;
  what = checkpoint_error([&] {
    sp::RunConfig at = thread("corrupt");
    at.checkpoint_id = id_of_step2;
    app.get_state(at);
  });
  EXPECT_NE(what.find("graph 'faults', thread 'corrupt': reading checkpoint '" + id_of_step2 +
                      "' failed: sqlite: database disk image is malformed"),
            std::string::npos)
      << what;
  // The newest checkpoint still readable, put into a healthy file.
  std::optional<sp::CheckpointTuple> good;
  for (const std::string& id : ids) {
    try {
      good = saver->get_tuple({"corrupt", "", id});
      break;
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("malformed"), std::string::npos) << e.what();
    }
  }
  ASSERT_TRUE(good) << "no checkpoint of the thread is readable";
  // On the corrupt file itself: the expected end, or a named failure; never a wrong state.
  try {
    EXPECT_EQ(app.invoke(nullptr, thread("corrupt")), expected);
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("graph 'faults', thread 'corrupt': "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed"), std::string::npos) << e.what();
  }
  std::string healthy = testing_util::scratch_db("healthy");
  auto rescued = std::make_shared<sp::SqliteSaver>(healthy);
  rescued->put({"corrupt", "", std::nullopt}, good->checkpoint, good->metadata, good->checkpoint.channel_versions);
  auto on_healthy = build(rescued);
  EXPECT_GE(stored_step(on_healthy, "corrupt"), 0);  // consistent (log 1..n)
  EXPECT_EQ(on_healthy.invoke(nullptr, thread("corrupt")), expected);
}

// The file (and its -wal and -shm) is deleted at step 3 while the saver has it open. SQLite
// would go on writing to the unlinked file, whose data dies with the saver: the saver notices
// at the next checkpoint and fails the run naming the path and the thread. Until the saver
// closes, what it stored is still readable through it; a new file starts the thread afresh.
TEST_F(SqliteFaults, DeletedFileFailsTheRunNamingThePathInsteadOfWritingIntoTheVoid) {
  auto saver = std::make_shared<sp::SqliteSaver>(path);
  auto app = build(saver, [&](int n) {
    if (n == 3)
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  });
  sp::RunConfig cfg = thread("deleted");
  cfg.durability = sp::Durability::sync;
  std::string what = checkpoint_error([&] { app.invoke(json{{"n", 0}}, cfg); });
  EXPECT_NE(what.find("graph 'faults', thread 'deleted': saving "), std::string::npos) << what;
  EXPECT_NE(what.find("'" + path + "' was deleted or replaced"), std::string::npos) << what;
  // Through the open (unlinked) file: checkpoint 2 and the writes step 3's task saved before
  // the checkpoint noticed (get_state shows them applied, as for any finished task).
  EXPECT_EQ(stored_step(app, "deleted"), 3);
  EXPECT_FALSE(std::filesystem::exists(path));
  // A new file at the path: the thread starts afresh (what the deleted file held is gone).
  auto fresh = build(std::make_shared<sp::SqliteSaver>(path));
  EXPECT_EQ(fresh.get_state(thread("deleted")).values, json::object());
  EXPECT_EQ(fresh.invoke(json{{"n", 0}}, thread("deleted")), expected);
}

}  // namespace
