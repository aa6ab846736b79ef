// SqliteSaver's memory of each thread's newest checkpoint (SqliteSaverOptions::cached_threads):
// what it answers is what storage holds, whoever wrote last.
#include <gtest/gtest.h>

#include "superstep/checkpoint/sqlite_saver.hpp"
#include "saver_cases.hpp"
#include "test_util.hpp"

namespace {

sp::Checkpoint cp(const std::string& id, json values, json versions, json seen = {{"n", {{"a", 1}}}}) {
  sp::Checkpoint c;
  c.id = id;
  c.ts = "2026-11-26T00:00:00.000Z";
  c.channel_values = std::move(values);
  c.channel_versions = std::move(versions);
  c.versions_seen = std::move(seen);
  return c;
}

std::string dump(const std::optional<sp::CheckpointTuple>& t) { return t ? t->to_json().dump() : "null"; }

class SqliteLatest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = testing_util::scratch_db("sqlite_latest");
    // The memory under test answers alone (no check against storage); `storage` keeps none and
    // so reads the file each time.
    ::unsetenv("SUPERSTEP_SQLITE_VERIFY_CACHE");
    saver = std::make_unique<sp::SqliteSaver>(path);
    sp::SqliteSaverOptions none;
    none.cached_threads = 0;
    storage = std::make_unique<sp::SqliteSaver>(path, none);
  }
  void TearDown() override { ::setenv("SUPERSTEP_SQLITE_VERIFY_CACHE", "1", 0); }
  /// The newest checkpoint of `thread` from the saver under test equals what storage holds.
  void same(const std::string& thread, const char* where) {
    EXPECT_EQ(dump(saver->get_tuple({thread, "", std::nullopt})), dump(storage->get_tuple({thread, "", std::nullopt})))
        << where;
  }
  std::string path;
  std::unique_ptr<sp::SqliteSaver> saver, storage;
};

TEST_F(SqliteLatest, FollowsItsOwnPutsAppendsVersionChangesAndWrites) {
  EXPECT_FALSE(saver->get_tuple({"t", "", std::nullopt}));  // known: no checkpoint
  sp::CheckpointConfig at = saver->put({"t", "", std::nullopt}, cp("c1", {{"log", {"a"}}, {"x", 1}}, {{"log", 1}, {"x", 1}}),
                                       {{"step", -1}}, {{"log", 1}, {"x", 1}});
  same("t", "first put");
  // An append to "log", a change of the maps only ("y" gets a version, "n" a new map), "x" kept.
  sp::Checkpoint c2 = cp("c2", {{"y", "new"}}, {{"log", 2}, {"y", 2}}, {{"n", {{"log", 1}}}});
  sp::PutDeltas d;
  d.appends.push_back(sp::ChannelDelta{"log", 1, json::array({"b"})});
  d.versions_root = "c1";
  at = saver->put_with_deltas(at, c2, {{"step", 0}}, {{"log", 2}, {"y", 2}}, d);
  auto latest = saver->get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.channel_values, (json{{"log", {"a", "b"}}, {"x", 1}, {"y", "new"}}));
  same("t", "append and version changes");
  // Writes on the newest: kept in storage's order; a special channel's is replaced, others stay
  // as first written.
  saver->put_writes(at, {{"x", 5}, {"__interrupt__", "first"}}, "task-b", "~b");
  saver->put_writes(at, {{"x", 6}, {"__interrupt__", "second"}}, "task-b", "~b");
  saver->put_writes(at, {{"y", "w"}}, "task-a", "~a");
  latest = saver->get_tuple({"t", "", std::nullopt});
  ASSERT_EQ(latest->pending_writes.size(), 3u);
  EXPECT_EQ(latest->pending_writes[0].task_id, "task-a");
  EXPECT_EQ(latest->pending_writes[1].channel, "__interrupt__");
  EXPECT_EQ(latest->pending_writes[1].value, "second");
  EXPECT_EQ(latest->pending_writes[2].value, 5);
  same("t", "writes");
  EXPECT_EQ(dump(saver->get_tuple({"t", "", "c2"})), dump(storage->get_tuple({"t", "", "c2"}))) << "by id";
  EXPECT_EQ(dump(saver->get_tuple({"t", "", "c1"})), dump(storage->get_tuple({"t", "", "c1"}))) << "an older one";
  // Metadata changed in place.
  saver->update_metadata({"t", "", std::nullopt}, {{"note", "kept"}});
  same("t", "update_metadata");
  EXPECT_EQ(saver->get_tuple({"t", "", std::nullopt})->metadata.value("note", ""), "kept");
}

TEST_F(SqliteLatest, AnotherConnectionsWriteIsSeenAtTheNextRead) {
  sp::CheckpointConfig at =
      saver->put({"t", "", std::nullopt}, cp("c1", {{"x", 1}}, {{"x", 1}}), json::object(), {{"x", 1}});
  ASSERT_EQ(saver->get_tuple({"t", "", std::nullopt})->checkpoint.id, "c1");  // remembered now
  sp::SqliteSaver other(path);  // another connection (as another process would have)
  other.put(at, cp("c2", {{"x", 2}}, {{"x", 2}}), json::object(), {{"x", 2}});
  auto latest = saver->get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.id, "c2");
  EXPECT_EQ(latest->checkpoint.channel_values["x"], 2);
  other.put_writes({"t", "", "c2"}, {{"x", 3}}, "task");
  EXPECT_EQ(saver->get_tuple({"t", "", std::nullopt})->pending_writes.size(), 1u);
  other.delete_thread("t");
  EXPECT_FALSE(saver->get_tuple({"t", "", std::nullopt}));
}

TEST_F(SqliteLatest, ForksDeletesCopiesAndPrunesAreFollowed) {
  sp::CheckpointConfig c1 =
      saver->put({"t", "", std::nullopt}, cp("c1", {{"x", 1}}, {{"x", 1}}), json::object(), {{"x", 1}});
  sp::CheckpointConfig c2 = saver->put(c1, cp("c2", {{"x", 2}}, {{"x", 2}}), json::object(), {{"x", 2}});
  same("t", "two puts");
  // A fork from c1 (an update_state on the past): the newest is the fork.
  saver->put(c1, cp("c3", {{"x", 30}}, {{"x", 3}}), {{"source", "update"}}, {{"x", 3}});
  same("t", "fork");
  // A put of an id that sorts before the newest does not become the newest.
  saver->put(c2, cp("c0", {{"x", 9}}, {{"x", 4}}), json::object(), {{"x", 4}});
  same("t", "older id");
  saver->copy_thread("t", "u");
  same("u", "copy");
  saver->prune({"u"});
  same("u", "prune");
  saver->delete_thread("t");
  same("t", "delete");
  EXPECT_FALSE(saver->get_tuple({"t", "", std::nullopt}));
}

TEST_F(SqliteLatest, ABatchRolledBackLeavesTheMemoryTrue) {
  // A file that may not grow much: a batch whose second put (on another thread) fills it is
  // rolled back whole (SQLite undoes the transaction on a full disk), the first put with it.
  sp::SqliteSaverOptions small;
  small.max_page_count = 60;
  sp::SqliteSaver limited(path, small);
  sp::CheckpointConfig c1 =
      limited.put({"t", "", std::nullopt}, cp("c1", {{"x", 1}}, {{"x", 1}}), json::object(), {{"x", 1}});
  ASSERT_EQ(limited.get_tuple({"t", "", std::nullopt})->checkpoint.id, "c1");
  EXPECT_THROW(limited.batch([&] {
    limited.put(c1, cp("c2", {{"x", 2}}, {{"x", 2}}), json::object(), {{"x", 2}});
    limited.put({"u", "", std::nullopt}, cp("c3", {{"x", std::string(1 << 20, 'z')}}, {{"x", 3}}), json::object(),
                {{"x", 3}});
  }),
               sp::CheckpointError);
  EXPECT_EQ(dump(storage->get_tuple({"t", "", std::nullopt})), dump(limited.get_tuple({"t", "", std::nullopt})));
  EXPECT_EQ(limited.get_tuple({"t", "", std::nullopt})->checkpoint.id, "c1");
  // A batch with a refused call commits the rest: the memory has it.
  EXPECT_THROW(limited.batch([&] {
    limited.put(c1, cp("c4", {{"x", 4}}, {{"x", 4}}), json::object(), {{"x", 4}});
    limited.put_writes({"t", "", std::nullopt}, {{"x", 5}}, "task");  // no checkpoint_id: refused
  }),
               sp::CheckpointError);
  EXPECT_EQ(dump(storage->get_tuple({"t", "", std::nullopt})), dump(limited.get_tuple({"t", "", std::nullopt})));
  EXPECT_EQ(limited.get_tuple({"t", "", std::nullopt})->checkpoint.id, "c4");
}

}  // namespace
