// The torture driver's checks find what they exist to find: duplicates, holes, a sync kill
// losing two steps, and broken checkpoint chains (a checker that cannot fail proves nothing).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <superstep/checkpoint/memory_saver.hpp>

#include "torture/torture_check.hpp"

namespace {

using torture::Record;
using torture::WorkerRun;
namespace sp = superstep;
using sp::json;

Record ok(long pid, const std::string& task, int64_t step, const std::string& ns = "-") {
  return Record{true, pid, "t-1", ns, task, "work", step, 1};
}

TEST(TortureCheck, ACleanKillLosesOnlyTheStepUnderWay) {
  WorkerRun killed{10, true, {}, {}};
  killed.after.saved = {"t-1|-|a", "t-1|-|b"};
  killed.after.newest_step["t-1|-"] = 2;
  WorkerRun next{11, false, killed.after, {}};
  // a and b (step 2) saved; c (step 3) ran but its writes were lost, then ran again.
  std::vector<Record> records = {ok(10, "a", 2), ok(10, "b", 2), ok(10, "c", 3), ok(11, "c", 3)};
  auto f = torture::analyse(records, {killed, next}, "t-", /*sync=*/true);
  EXPECT_EQ(f.executions, 4);
  EXPECT_EQ(f.lost, 1);
  EXPECT_EQ(f.duplicates, 0);
  EXPECT_EQ(f.holes, 0);
  EXPECT_EQ(f.max_lost_steps, 1);
  EXPECT_TRUE(f.problems.empty()) << f.problems.front();
}

TEST(TortureCheck, ATaskWhoseWritesWereSavedRunningAgainIsADuplicate) {
  WorkerRun first{10, true, {}, {}};
  first.after.saved = {"t-1|-|a"};
  WorkerRun second{11, false, first.after, {}};
  auto f = torture::analyse({ok(10, "a", 1), ok(11, "a", 1)}, {first, second}, "t-", true);
  EXPECT_EQ(f.duplicates, 1);
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_NE(f.problems[0].find("t-1|-|a"), std::string::npos);

  // Twice in one process is a duplicate too.
  WorkerRun alone{12, false, {}, {}};
  EXPECT_EQ(torture::analyse({ok(12, "b", 1), ok(12, "b", 1)}, {alone}, "t-", true).duplicates, 1);
}

TEST(TortureCheck, ALostStepOlderThanAStoredOneIsAHole) {
  WorkerRun killed{10, true, {}, {}};
  killed.after.saved = {"t-1|-|b"};
  killed.after.newest_step["t-1|-"] = 3;
  auto f = torture::analyse({ok(10, "a", 2), ok(10, "b", 3)}, {killed}, "t-", false);
  EXPECT_EQ(f.holes, 1);
  EXPECT_EQ(f.lost, 1);
}

TEST(TortureCheck, SyncDurabilityMayLoseOneStepAsyncMayLoseMore) {
  WorkerRun killed{10, true, {}, {}};
  killed.after.newest_step["t-1|-"] = 1;
  std::vector<Record> records = {ok(10, "a", 2), ok(10, "b", 3)};
  auto sync = torture::analyse(records, {killed}, "t-", true);
  EXPECT_EQ(sync.sync_violations, 1);
  EXPECT_EQ(sync.max_lost_steps, 2);
  auto async = torture::analyse(records, {killed}, "t-", false);
  EXPECT_EQ(async.sync_violations, 0);
  EXPECT_EQ(async.holes, 0);
  EXPECT_TRUE(async.problems.empty());
  // Namespaces count apart: a subgraph's step lost with its parent's is one step of each.
  std::vector<Record> nested = {ok(10, "a", 2), ok(10, "s", 1, "sub:x")};
  EXPECT_EQ(torture::analyse(nested, {killed}, "t-", true).sync_violations, 0);
}

TEST(TortureCheck, NothingOfAThreadWhoseRunReturnedIsLostOrRunsAgain) {
  Record done{false, 10, "t-1", "-", "-", "-", 0, 0, /*done=*/true};
  WorkerRun killed{10, true, {}, {}};
  WorkerRun next{11, false, {}, {}};
  // Its run returned in process 10, then process 11 ran one of its tasks again.
  auto f = torture::analyse({ok(10, "a", 1), done, ok(11, "b", 2)}, {killed, next}, "t-", false);
  EXPECT_EQ(f.after_return, 2);  // a was lost to the kill after the return, b ran after it
  // The same without the return: a lost execution and a resumed one are fine.
  f = torture::analyse({ok(10, "a", 1), ok(11, "a", 1)}, {killed, next}, "t-", false);
  EXPECT_EQ(f.after_return, 0);
  EXPECT_TRUE(f.problems.empty());
}

TEST(TortureCheck, RecordsOfOtherRunsAreIgnoredAndUnknownProcessesReported) {
  WorkerRun w{10, false, {}, {}};
  Record other = ok(10, "a", 1);
  other.thread = "elsewhere-1";
  EXPECT_EQ(torture::analyse({other}, {w}, "t-", true).executions, 0);
  EXPECT_EQ(torture::analyse({ok(99, "a", 1)}, {w}, "t-", true).problems.size(), 1u);
}

sp::Checkpoint checkpoint(const std::string& id) {
  sp::Checkpoint c;
  c.id = id;
  c.ts = "2026-11-26T00:00:00+00:00";
  return c;
}

std::string put(sp::CheckpointSaver& s, std::optional<std::string> parent, const std::string& id, int step) {
  sp::CheckpointConfig cfg{"t-1", "", std::move(parent)};
  return *s.put(cfg, checkpoint(id), json{{"step", step}}, json::object()).checkpoint_id;
}

TEST(TortureCheck, ChainsAreCheckedForForksMissingParentsAndSteps) {
  sp::InMemorySaver good;
  put(good, std::nullopt, "1", -1);
  put(good, "1", "2", 0);
  put(good, "2", "3", 1);
  EXPECT_TRUE(torture::check_chain(good, "t-1").empty());

  sp::InMemorySaver fork;
  put(fork, std::nullopt, "1", -1);
  put(fork, "1", "2", 0);
  put(fork, "1", "3", 0);
  auto p = torture::check_chain(fork, "t-1");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("two children"), std::string::npos);

  sp::InMemorySaver orphan;
  put(orphan, std::nullopt, "1", -1);
  put(orphan, "0", "2", 0);  // its parent was never stored
  p = torture::check_chain(orphan, "t-1");
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p[0].find("not stored"), std::string::npos);

  sp::InMemorySaver steps;
  put(steps, std::nullopt, "1", 3);
  put(steps, "1", "2", 3);
  EXPECT_EQ(torture::check_chain(steps, "t-1").size(), 1u);

  sp::InMemorySaver none;
  EXPECT_EQ(torture::check_chain(none, "t-1").size(), 1u);
}

// A kill inside write(2) can leave a record's start without its newline; the next record then
// continues that line. The whole record is read, the torn start counted; a record that parses
// neither way, or has too few fields before a newline, is still an error.
TEST(TortureCheck, ARecordTornByAKillIsCountedAndTheRecordAfterItIsReadWhole) {
  std::string path = testing::TempDir() + "torture_torn_records";
  {
    std::ofstream f(path, std::ios::trunc);
    f << "ok\t10\tt-1\t-\ttask-a\twork\t3\t1\n"
      << "ok\t11\tt-1\t-\tta"  // torn inside the task id
      << "fail\t12\tt-2\tsub:1\ttask-b\twork\t-1\t2\n"
      << "o"  // torn inside the status
      << "done\t13\tt-3\t-\t-\t-\t0\t0\n"
      << "ok\t14\tt-1\t-\ttask-c\twork\t4";  // the last record, torn (no newline)
  }
  int torn = -1;
  auto records = torture::read_records(path, &torn);
  EXPECT_EQ(torn, 3);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[0].ok);
  EXPECT_EQ(records[0].task_id, "task-a");
  EXPECT_FALSE(records[1].ok);
  EXPECT_FALSE(records[1].done);
  EXPECT_EQ(records[1].pid, 12);
  EXPECT_EQ(records[1].ns, "sub:1");
  EXPECT_EQ(records[1].step, -1);
  EXPECT_EQ(records[1].attempt, 2);
  EXPECT_TRUE(records[2].done);
  EXPECT_EQ(records[2].thread, "t-3");

  {
    std::ofstream f(path, std::ios::trunc);
    f << "ok\t10\tt-1\t-\ttask-a\twork\tthree\t1\n";
  }
  EXPECT_THROW(torture::read_records(path), std::runtime_error);
  {
    std::ofstream f(path, std::ios::trunc);
    f << "ok\t10\tt-1\n";
  }
  EXPECT_THROW(torture::read_records(path), std::runtime_error);
  std::remove(path.c_str());
}

}  // namespace
