// One conformance suite over every CheckpointSaver (the storage contract of docs/checkpoint_schema.md).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <thread>

#include "checkpoint/saver_common.hpp"
#include "superstep/checkpoint/forwarding_saver.hpp"
#include "saver_cases.hpp"
#include "test_util.hpp"

namespace {

using testing_util::SaverCase;

std::string scratch_file(const std::string& name) { return testing_util::scratch_db(name); }

sp::Checkpoint cp(const std::string& id, json values, json versions) {
  sp::Checkpoint c;
  c.id = id;
  c.ts = "2026-11-22T00:00:00.000Z";
  c.channel_values = std::move(values);
  c.channel_versions = std::move(versions);
  c.versions_seen = {{"node", {{"a", 1}}}};
  return c;
}

class SaverConformance : public ::testing::TestWithParam<SaverCase> {
 protected:
  void SetUp() override {
    if (GetParam().needs_postgres) SUPERSTEP_REQUIRE_POSTGRES();
    saver = GetParam().make();
  }
  std::shared_ptr<sp::CheckpointSaver> saver;
};

TEST_P(SaverConformance, PutThenGetLatestAndById) {
  EXPECT_FALSE(saver->get_tuple({"t1", "", std::nullopt}).has_value());
  auto c1 = saver->put({"t1", "", std::nullopt}, cp("0001", {{"a", 1}, {"b", "x"}}, {{"a", 1}, {"b", 1}}),
                       {{"source", "input"}, {"step", -1}}, {{"a", 1}, {"b", 1}});
  EXPECT_EQ(c1.checkpoint_id, "0001");
  auto c2 = saver->put(c1, cp("0002", {{"a", 2}, {"b", "x"}}, {{"a", 2}, {"b", 1}}), {{"source", "loop"}, {"step", 0}},
                       {{"a", 2}});
  auto latest = saver->get_tuple({"t1", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.id, "0002");
  // "b" was not in new_versions: its value comes from the version-1 blob written before.
  EXPECT_EQ(latest->checkpoint.channel_values, json({{"a", 2}, {"b", "x"}}));
  EXPECT_EQ(latest->checkpoint.versions_seen, json({{"node", {{"a", 1}}}}));
  EXPECT_EQ(latest->metadata, json({{"source", "loop"}, {"step", 0}}));
  ASSERT_TRUE(latest->parent_config);
  EXPECT_EQ(latest->parent_config->checkpoint_id, "0001");
  auto first = saver->get_tuple({"t1", "", "0001"});
  ASSERT_TRUE(first);
  EXPECT_EQ(first->checkpoint.channel_values, json({{"a", 1}, {"b", "x"}}));
  EXPECT_FALSE(first->parent_config);
  EXPECT_FALSE(saver->get_tuple({"t1", "", "nope"}).has_value());
  EXPECT_FALSE(saver->get_tuple({"t1", "other-ns", std::nullopt}).has_value());
}

TEST_P(SaverConformance, UpdateMetadataMergesIntoTheNamedOrTheNewestCheckpoint) {
  auto c1 = saver->put({"t1", "", std::nullopt}, cp("0001", {{"a", 1}}, {{"a", 1}}), {{"source", "input"}, {"step", -1}},
                       {{"a", 1}});
  saver->put(c1, cp("0002", {{"a", 2}}, {{"a", 2}}), {{"source", "loop"}, {"step", 0}, {"tag", "x"}}, {{"a", 2}});
  saver->put({"t1", "ns", std::nullopt}, cp("0003", {{"a", 1}}, {{"a", 1}}), {{"source", "input"}}, {{"a", 1}});
  // No checkpoint id: the newest of the namespace. A key replaced, one added, a null removes one.
  auto updated = saver->update_metadata({"t1", "", std::nullopt}, {{"tag", "y"}, {"reviewed", true}, {"step", nullptr}});
  EXPECT_EQ(updated.checkpoint_id, "0002");
  EXPECT_EQ(saver->get_tuple({"t1", "", "0002"})->metadata, json({{"source", "loop"}, {"tag", "y"}, {"reviewed", true}}));
  // A named checkpoint; the others are untouched (the other namespace too).
  EXPECT_EQ(saver->update_metadata({"t1", "", "0001"}, {{"note", "first"}}).checkpoint_id, "0001");
  EXPECT_EQ(saver->get_tuple({"t1", "", "0001"})->metadata, json({{"source", "input"}, {"step", -1}, {"note", "first"}}));
  EXPECT_EQ(saver->get_tuple({"t1", "ns", std::nullopt})->metadata, json({{"source", "input"}}));
  // list() filters see the new metadata; values and parents are unchanged.
  auto hits = saver->list({.thread_id = "t1", .checkpoint_ns = "", .filter = {{"reviewed", true}}});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].checkpoint.id, "0002");
  EXPECT_EQ(hits[0].checkpoint.channel_values, json({{"a", 2}}));
  EXPECT_EQ(hits[0].parent_config->checkpoint_id, "0001");
  // Errors name the problem: no such checkpoint or thread, a patch that is not an object.
  for (const sp::CheckpointConfig& missing : {sp::CheckpointConfig{"t1", "", "nope"}, sp::CheckpointConfig{"t2", "", std::nullopt}}) {
    try {
      saver->update_metadata(missing, {{"x", 1}});
      ADD_FAILURE() << "no error";
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("has no checkpoint"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + missing.thread_id + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(saver->update_metadata({"t1", "", std::nullopt}, json::array({1})), sp::CheckpointError);
  EXPECT_THROW(saver->update_metadata({"", "", std::nullopt}, {{"x", 1}}), sp::CheckpointError);
}

TEST_P(SaverConformance, DeleteRunCheckpointsRollsTheThreadBackToBeforeTheRun) {
  auto meta = [](const std::string& run) { return json{{"source", "loop"}, {"run_id", run}}; };
  auto c1 = saver->put({"t", "", std::nullopt}, cp("0001", {{"a", "one"}}, {{"a", 1}}), meta("r1"), {{"a", 1}});
  auto c2 = saver->put(c1, cp("0002", {{"a", "two"}, {"b", 1}}, {{"a", 2}, {"b", 2}}), meta("r1"), {{"a", 2}, {"b", 2}});
  auto c3 = saver->put(c2, cp("0003", {{"a", "three"}, {"b", 1}}, {{"a", 3}, {"b", 2}}), meta("r2"), {{"a", 3}});
  auto c4 = saver->put(c3, cp("0004", {{"a", "four"}, {"b", 5}}, {{"a", 4}, {"b", 4}}), meta("r2"), {{"a", 4}, {"b", 4}});
  saver->put_writes(c4, {{"a", "pending"}}, "task-1");
  saver->put({"t", "sub:1", std::nullopt}, cp("0005", {{"a", "inner"}}, {{"a", 1}}), meta("r2"), {{"a", 1}});
  saver->put({"other", "", std::nullopt}, cp("0006", {{"a", "x"}}, {{"a", 3}}), meta("r2"), {{"a", 3}});

  EXPECT_EQ(saver->delete_run_checkpoints("t", "nobody"), 0u);
  EXPECT_EQ(saver->delete_run_checkpoints("t", "r2"), 3u);
  auto latest = saver->get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.id, "0002");
  EXPECT_EQ(latest->checkpoint.channel_values, json({{"a", "two"}, {"b", 1}}));
  EXPECT_FALSE(saver->get_tuple({"t", "", "0004"}));
  EXPECT_FALSE(saver->get_tuple({"t", "sub:1", std::nullopt}));
  EXPECT_EQ(saver->list({.thread_id = "t"}).size(), 2u);
  EXPECT_EQ(saver->get_tuple({"other", "", std::nullopt})->checkpoint.channel_values, json({{"a", "x"}}));  // another thread
  // The thread continues from 0002: the versions the rolled-back run used are free again, and a
  // channel stored at one of them reads the new value.
  auto c7 = saver->put(c2, cp("0007", {{"a", "again"}, {"b", 1}}, {{"a", 3}, {"b", 2}}), meta("r3"), {{"a", 3}});
  EXPECT_EQ(saver->get_tuple(c7)->checkpoint.channel_values, json({{"a", "again"}, {"b", 1}}));
  EXPECT_TRUE(saver->get_tuple(c7)->pending_writes.empty());

  // A checkpoint of a later run continuing from the run's: refused, nothing deleted.
  try {
    saver->delete_run_checkpoints("t", "r1");
    ADD_FAILURE() << "no error";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("'0007'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("roll back the later run first"), std::string::npos) << e.what();
  }
  EXPECT_EQ(saver->list({.thread_id = "t"}).size(), 3u);
}

TEST_P(SaverConformance, ValuesAreStoredOnlyForNewVersions) {
  saver->put({"t", "", std::nullopt}, cp("1", {{"a", "kept"}}, {{"a", 1}}), json::object(), json::object());
  auto t = saver->get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.channel_values, json::object());  // never stored: no value
  EXPECT_EQ(t->checkpoint.channel_versions, json({{"a", 1}}));
}

TEST_P(SaverConformance, PendingWritesKeepTheFirstAndUpsertSpecialChannels) {
  auto c = saver->put({"t", "", std::nullopt}, cp("1", json::object(), json::object()), json::object(), json::object());
  saver->put_writes(c, {{"a", 1}, {"b", 2}}, "task-b", "~1");
  saver->put_writes(c, {{"a", 99}}, "task-b", "~1");  // same slot: the first stays
  saver->put_writes(c, {{"x", "first"}}, "task-a", "~0");
  saver->put_writes(c, {{sp::kInterruptChannel, "old"}}, "task-a", "~0");
  saver->put_writes(c, {{sp::kInterruptChannel, "new"}}, "task-a", "~0");  // special: replaced
  auto t = saver->get_tuple(c);
  ASSERT_TRUE(t);
  std::vector<std::tuple<std::string, std::string, json>> got;
  for (const auto& w : t->pending_writes) got.emplace_back(w.task_id, w.channel, w.value);
  std::vector<std::tuple<std::string, std::string, json>> want = {{"task-a", sp::kInterruptChannel, "new"},
                                                                   {"task-a", "x", "first"},
                                                                   {"task-b", "a", 1},
                                                                   {"task-b", "b", 2}};
  EXPECT_EQ(got, want);
  EXPECT_THROW(saver->put_writes({"t", "", std::nullopt}, {{"a", 1}}, "task"), sp::CheckpointError);
}

TEST_P(SaverConformance, ListNewestFirstWithFilterBeforeAndLimit) {
  for (std::string thread : {"t2", "t1"}) {
    sp::CheckpointConfig parent{thread, "", std::nullopt};
    for (int i = 1; i <= 4; ++i) {
      std::string id = "000" + std::to_string(i);
      parent = saver->put(parent, cp(id, {{"n", i}}, {{"n", i}}),
                          {{"source", i == 1 ? "input" : "loop"}, {"step", i - 2}, {"nested", {{"k", i % 2}}}},
                          {{"n", i}});
    }
  }
  saver->put({"t1", "child:1", std::nullopt}, cp("0009", json::object(), json::object()), {{"source", "loop"}},
             json::object());
  // Threads whose names sort right before and after t1's: never part of a listing of t1.
  for (std::string thread : {"t", "t10", "t1\x01"})
    saver->put({thread, "", std::nullopt}, cp("0002", json::object(), json::object()), {{"source", "input"}},
               json::object());
  auto ids = [](const std::vector<sp::CheckpointTuple>& ts) {
    std::vector<std::string> out;
    for (const auto& t : ts) out.push_back(t.config.thread_id + "/" + t.config.checkpoint_ns + "/" + t.checkpoint.id);
    return out;
  };
  sp::CheckpointQuery q;
  q.thread_id = "t1";
  q.checkpoint_ns = "";
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1//0004", "t1//0003", "t1//0002", "t1//0001"}));
  q.before = "0003";
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1//0002", "t1//0001"}));
  q.before.reset();
  q.limit = 1;
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1//0004"}));
  q.limit.reset();
  q.filter = {{"source", "loop"}, {"nested", {{"k", 1}}}};
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1//0003"}));
  q.filter = json::object();
  q.checkpoint_id = "0002";
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1//0002"}));
  q.checkpoint_id.reset();
  q.checkpoint_ns = "child:1";
  EXPECT_EQ(ids(saver->list(q)), (std::vector<std::string>{"t1/child:1/0009"}));
  q.checkpoint_ns = "child";
  EXPECT_TRUE(saver->list(q).empty());
  sp::CheckpointQuery all_ns;
  all_ns.thread_id = "t1";
  EXPECT_EQ(ids(saver->list(all_ns)),
            (std::vector<std::string>{"t1//0004", "t1//0003", "t1//0002", "t1//0001", "t1/child:1/0009"}));
  all_ns.thread_id = "t0";
  EXPECT_TRUE(saver->list(all_ns).empty());
  sp::CheckpointQuery everything;
  everything.filter = {{"source", "input"}};
  EXPECT_EQ(ids(saver->list(everything)),
            (std::vector<std::string>{"t//0002", "t1//0001", "t1\x01//0002", "t10//0002", "t2//0001"}));
}

TEST_P(SaverConformance, DeleteCopyAndPruneThreads) {
  sp::CheckpointConfig parent{"src", "", std::nullopt};
  for (int i = 1; i <= 3; ++i) {
    parent = saver->put(parent, cp("000" + std::to_string(i), {{"n", i}, {"fixed", "f"}}, {{"n", i}, {"fixed", 1}}),
                        {{"step", i}}, i == 1 ? json{{"n", i}, {"fixed", 1}} : json{{"n", i}});
    saver->put_writes(parent, {{"n", i * 10}}, "task" + std::to_string(i));
  }
  saver->copy_thread("src", "dst");
  sp::CheckpointQuery q;
  q.thread_id = "dst";
  ASSERT_EQ(saver->list(q).size(), 3u);
  auto copied = saver->get_tuple({"dst", "", std::nullopt});
  ASSERT_TRUE(copied);
  EXPECT_EQ(copied->checkpoint.channel_values, json({{"fixed", "f"}, {"n", 3}}));
  EXPECT_EQ(copied->pending_writes.size(), 1u);

  saver->prune({"dst"});
  auto kept = saver->list(q);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].checkpoint.id, "0003");
  EXPECT_EQ(kept[0].checkpoint.channel_values, json({{"fixed", "f"}, {"n", 3}}));  // older blob still needed
  EXPECT_FALSE(kept[0].parent_config);
  EXPECT_EQ(kept[0].pending_writes.size(), 1u);

  saver->delete_thread("src");
  q.thread_id = "src";
  EXPECT_TRUE(saver->list(q).empty());
  EXPECT_TRUE(saver->get_tuple({"dst", "", std::nullopt}).has_value());  // other threads untouched
  saver->prune({"dst"}, /*keep_latest=*/false);
  EXPECT_FALSE(saver->get_tuple({"dst", "", std::nullopt}).has_value());
}

TEST_P(SaverConformance, AppendsStoredAsDeltasReadBackWhole) {
  ASSERT_TRUE(saver->stores_deltas());
  // Version 1 whole, then 2, 3, 4 as appends; "other" is stored whole each time.
  sp::CheckpointConfig at{"d", "", std::nullopt};
  at = saver->put(at, cp("1", {{"log", {"a"}}, {"other", 0}}, {{"log", 1}, {"other", 1}}), json::object(),
                  {{"log", 1}, {"other", 1}});
  for (int v = 2; v <= 4; ++v) {
    std::string item(1, static_cast<char>('a' + v - 1));
    at = saver->put_with_deltas(at, cp(std::to_string(v), {{"other", v}}, {{"log", v}, {"other", v}}), json::object(),
                                {{"log", v}, {"other", v}}, sp::PutDeltas{{sp::ChannelDelta{"log", v - 1, json::array({item})}}, {}});
  }
  auto latest = saver->get_tuple({"d", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.channel_values, (json{{"log", {"a", "b", "c", "d"}}, {"other", 4}}));
  EXPECT_EQ(saver->get_tuple({"d", "", "2"})->checkpoint.channel_values["log"], json({"a", "b"}));
  sp::CheckpointQuery q;
  q.thread_id = "d";
  std::vector<json> logs;
  for (const auto& t : saver->list(q)) logs.push_back(t.checkpoint.channel_values["log"]);
  EXPECT_EQ(logs, (std::vector<json>{{"a", "b", "c", "d"}, {"a", "b", "c"}, {"a", "b"}, {"a"}}));

  // A copy reads the same; pruning keeps the newest value whole although its base is gone.
  saver->copy_thread("d", "d2");
  EXPECT_EQ(saver->get_tuple({"d2", "", "3"})->checkpoint.channel_values["log"], json({"a", "b", "c"}));
  saver->prune({"d2"});
  auto pruned = saver->get_tuple({"d2", "", std::nullopt});
  ASSERT_TRUE(pruned);
  EXPECT_EQ(pruned->checkpoint.channel_values["log"], json({"a", "b", "c", "d"}));

  // An append whose base is missing is a clear error naming thread, checkpoint and channel.
  saver->put_with_deltas({"broken", "", std::nullopt}, cp("1", json::object(), {{"log", 7}}), json::object(),
                         {{"log", 7}}, sp::PutDeltas{{sp::ChannelDelta{"log", 6, json::array({"x"})}}, {}});
  try {
    saver->get_tuple({"broken", "", std::nullopt});
    ADD_FAILURE() << "the base version 6 was never stored";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'broken', checkpoint '1': stored value of channel 'log' at version 7 "
                                         "is an append to version 6, which is missing"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(saver->get_tuple({"d", "", std::nullopt}).has_value()) << "other threads are unaffected";
}

TEST_P(SaverConformance, VersionMapsStoredAsChangesReadBackWhole) {
  ASSERT_TRUE(saver->stores_deltas());
  // "m0" whole; "m1".."m3" each change the maps of the one before (a chain rooted at "m0").
  sp::Checkpoint root = cp("m0", {{"a", 1}}, {{"a", 1}, {"b", 1}, {"__pregel_tasks", 1}});
  root.versions_seen = {{"n1", {{"a", 1}}}, {"n2", {{"b", 1}}}};
  sp::CheckpointConfig at = saver->put({"m", "", std::nullopt}, root, json::object(), {{"a", 1}});
  struct Step {
    std::string id;
    json versions, seen, whole_versions, whole_seen;
  };
  std::vector<Step> steps = {
      {"m1", {{"a", 2}}, {{"n1", {{"a", 2}}}}, {{"a", 2}, {"b", 1}, {"__pregel_tasks", 1}},
       {{"n1", {{"a", 2}}}, {"n2", {{"b", 1}}}}},
      {"m2", {{"b", 3}, {"d", 3}, {"__pregel_tasks", nullptr}}, {{"n3", {{"d", 3}}}},
       {{"a", 2}, {"b", 3}, {"d", 3}}, {{"n1", {{"a", 2}}}, {"n2", {{"b", 1}}}, {"n3", {{"d", 3}}}}},
      {"m3", json::object(), {{"n2", {{"b", 3}}}}, {{"a", 2}, {"b", 3}, {"d", 3}},
       {{"n1", {{"a", 2}}}, {"n2", {{"b", 3}}}, {"n3", {{"d", 3}}}}},
  };
  for (const Step& st : steps) {
    sp::Checkpoint c = cp(st.id, json::object(), st.versions);
    c.versions_seen = st.seen;
    sp::PutDeltas d;
    d.versions_root = "m0";
    at = saver->put_with_deltas(at, c, json{{"step", st.id}}, json::object(), d);
  }
  for (const Step& st : steps) {
    auto t = saver->get_tuple({"m", "", st.id});
    ASSERT_TRUE(t) << st.id;
    EXPECT_EQ(t->checkpoint.channel_versions, st.whole_versions) << st.id;
    EXPECT_EQ(t->checkpoint.versions_seen, st.whole_seen) << st.id;
    EXPECT_FALSE(t->checkpoint.extra.contains("versions_from")) << "the marks are storage, not data";
    EXPECT_EQ(t->checkpoint.channel_values, json::object()) << "a's value at version 2 was never stored";
  }
  auto latest = saver->get_tuple({"m", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.channel_versions, steps.back().whole_versions);
  // A history reads every chain element whole, newest first.
  sp::CheckpointQuery q;
  q.thread_id = "m";
  auto all = saver->list(q);
  ASSERT_EQ(all.size(), 4u);
  for (std::size_t i = 0; i < steps.size(); ++i)
    EXPECT_EQ(all[steps.size() - 1 - i].checkpoint.versions_seen, steps[i].whole_seen) << steps[i].id;
  EXPECT_EQ(all.back().checkpoint.channel_versions, root.channel_versions);
  q.limit = 1;
  q.before = "m3";
  auto one = saver->list(q);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].checkpoint.channel_versions, steps[1].whole_versions);

  // A copy reads the same; pruning keeps the newest whole although its parents are gone.
  saver->copy_thread("m", "m2");
  EXPECT_EQ(saver->get_tuple({"m2", "", "m2"})->checkpoint.versions_seen, steps[1].whole_seen);
  saver->prune({"m2"});
  auto pruned = saver->get_tuple({"m2", "", std::nullopt});
  ASSERT_TRUE(pruned);
  EXPECT_EQ(pruned->checkpoint.id, "m3");
  EXPECT_FALSE(pruned->parent_config);
  EXPECT_EQ(pruned->checkpoint.channel_versions, steps.back().whole_versions);
  EXPECT_EQ(pruned->checkpoint.versions_seen, steps.back().whole_seen);

  // Changes on top of a checkpoint that is not there: a clear error naming both.
  sp::Checkpoint orphan = cp("o2", json::object(), {{"a", 9}});
  sp::PutDeltas d;
  d.versions_root = "o0";
  saver->put_with_deltas({"orphan", "", "o1"}, orphan, json::object(), json::object(), d);
  try {
    saver->get_tuple({"orphan", "", std::nullopt});
    ADD_FAILURE() << "o1 was never stored";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'orphan', checkpoint 'o2': checkpoint 'o1', whose version maps it builds "
                                         "on, is missing"),
              std::string::npos)
        << e.what();
  }
  // Changes with no parent named are refused at put.
  EXPECT_THROW(saver->put_with_deltas({"orphan", "", std::nullopt}, orphan, json::object(), json::object(), d),
               sp::CheckpointError);
}

TEST_P(SaverConformance, ListAsChangesGivesEachTupleAsChangesToTheOneListedAfterIt) {
  // "h0" whole; "h1" appends to `l` and sets `a`; "h2" drops the __pregel_tasks version.
  sp::Checkpoint root = cp("h0", {{"a", 1}, {"l", {1}}, {"__pregel_tasks", json::array()}},
                           {{"a", 1}, {"l", 1}, {"__pregel_tasks", 1}});
  sp::CheckpointConfig at = saver->put({"h", "", std::nullopt}, root, json{{"source", "input"}},
                                       {{"a", 1}, {"l", 1}, {"__pregel_tasks", 1}});
  sp::Checkpoint one = cp("h1", {{"a", 2}}, {{"a", 2}, {"l", 2}});
  one.versions_seen = {{"n1", {{"a", 1}}}};
  sp::PutDeltas d1;
  d1.versions_root = "h0";
  d1.appends.push_back(sp::ChannelDelta{"l", 1, json::array({2, 3})});
  at = saver->put_with_deltas(at, one, json{{"source", "loop"}}, {{"a", 2}, {"l", 2}}, d1);
  saver->put_writes(at, {{"a", 5}}, "task-1", "");
  sp::Checkpoint two = cp("h2", json::object(), {{"__pregel_tasks", nullptr}});
  two.versions_seen = json::object();
  sp::PutDeltas d2;
  d2.versions_root = "h0";
  at = saver->put_with_deltas(at, two, json{{"source", "loop"}}, json::object(), d2);

  sp::CheckpointQuery q;
  q.thread_id = "h";
  q.as_changes = true;
  auto got = saver->list(q);
  ASSERT_EQ(got.size(), 3u);
  // h2: changes to h1 (the removal only), no values.
  EXPECT_EQ(got[0].checkpoint.extra.value("versions_from", ""), "h1");
  EXPECT_EQ(got[0].checkpoint.channel_versions, (json{{"__pregel_tasks", nullptr}}));
  EXPECT_EQ(got[0].checkpoint.versions_seen, json::object());
  EXPECT_EQ(got[0].checkpoint.channel_values, json::object());
  // h1: changes to h0; `a` whole, `l` as the elements appended to its value at version 1.
  EXPECT_EQ(got[1].checkpoint.extra.value("versions_from", ""), "h0");
  EXPECT_EQ(got[1].checkpoint.channel_versions, (json{{"a", 2}, {"l", 2}}));
  EXPECT_EQ(got[1].checkpoint.versions_seen, (json{{"n1", {{"a", 1}}}}));
  EXPECT_EQ(got[1].checkpoint.channel_values, (json{{"a", 2}}));
  EXPECT_EQ(got[1].checkpoint.extra["values_appended"], (json{{"l", {{"base", 1}, {"elements", {2, 3}}}}}));
  ASSERT_EQ(got[1].pending_writes.size(), 1u);
  EXPECT_EQ(got[1].pending_writes[0].value, 5);
  EXPECT_EQ(got[1].metadata, (json{{"source", "loop"}}));
  // h0, the last listed, is whole.
  EXPECT_FALSE(got[2].checkpoint.extra.contains("versions_from"));
  EXPECT_EQ(got[2].checkpoint.channel_values, root.channel_values);

  // When the tuple after one is not its parent (cut by `before`/`limit`, or by a filter), it is whole.
  q.before = "h2";
  q.limit = 1;
  auto cut = saver->list(q);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_FALSE(cut[0].checkpoint.extra.contains("versions_from"));
  EXPECT_EQ(cut[0].checkpoint.channel_versions, (json{{"a", 2}, {"l", 2}, {"__pregel_tasks", 1}}));
  EXPECT_EQ(cut[0].checkpoint.channel_values, (json{{"a", 2}, {"l", {1, 2, 3}}, {"__pregel_tasks", json::array()}}));
  sp::CheckpointQuery f;
  f.thread_id = "h";
  f.as_changes = true;
  f.filter = json{{"source", "input"}};
  auto inputs = saver->list(f);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_FALSE(inputs[0].checkpoint.extra.contains("versions_from"));
  f.filter = json{{"source", "loop"}};
  auto loops = saver->list(f);
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0].checkpoint.extra.value("versions_from", ""), "h1");
  EXPECT_FALSE(loops[1].checkpoint.extra.contains("versions_from")) << "h0, its parent, is filtered out";
  EXPECT_EQ(loops[1].checkpoint.channel_values["l"], json({1, 2, 3}));
}

TEST_P(SaverConformance, BatchStoresEveryCallThatSucceeded) {
  sp::CheckpointConfig a;
  EXPECT_THROW(saver->batch([&] {
    a = saver->put({"b", "", std::nullopt}, cp("1", {{"x", 1}}, {{"x", 1}}), json::object(), {{"x", 1}});
    saver->put_writes(a, {{"x", 2}}, "task", "");
    EXPECT_THROW(saver->put_writes({"b", "", std::nullopt}, {{"x", 3}}, "task", ""), sp::CheckpointError);
    saver->put(a, cp("2", {{"x", 2}}, {{"x", 2}}), json::object(), {{"x", 2}});
    throw std::runtime_error("the caller fails after the calls");
  }), std::runtime_error);
  auto t = saver->get_tuple({"b", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, "2");
  EXPECT_EQ(t->checkpoint.channel_values, json({{"x", 2}}));
  auto first = saver->get_tuple(a);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->pending_writes.size(), 1u);
  EXPECT_EQ(first->pending_writes[0].value, 2);
  // Reads and writes work as before once the batch is over.
  saver->put_writes(a, {{"y", 1}}, "other", "");
  EXPECT_EQ(saver->get_tuple(a)->pending_writes.size(), 2u);
}

TEST_P(SaverConformance, ThreadIdsWithQuotesNulsAndSqlAreJustNames) {
  const std::string evil = std::string("a'; DROP TABLE checkpoints; --\"") + '\0' + "z";
  saver->put({evil, "ns'\"", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
  saver->put({"plain", "", std::nullopt}, cp("1", {{"k", "w"}}, {{"k", 1}}), json::object(), {{"k", 1}});
  auto t = saver->get_tuple({evil, "ns'\"", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->config.thread_id, evil);
  EXPECT_EQ(t->checkpoint.channel_values, json({{"k", "v"}}));
  EXPECT_FALSE(saver->get_tuple({"a'; DROP TABLE checkpoints; --\"", "ns'\"", std::nullopt}).has_value());
  auto plain = saver->get_tuple({"plain", "", std::nullopt});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->checkpoint.channel_values, json({{"k", "w"}}));
}

TEST_P(SaverConformance, FormatThreeCheckpointsGetPendingSendsFromTheParent) {
  auto parent = saver->put({"t", "", std::nullopt}, cp("1", json::object(), {{"a", 1}}), json::object(), json::object());
  saver->put_writes(parent, {{sp::kTasksChannel, "send-1"}, {sp::kTasksChannel, "send-2"}}, "task");
  sp::Checkpoint old = cp("2", json::object(), {{"a", 3}, {"b", 2}});
  old.v = 3;
  saver->put(parent, old, json::object(), json::object());
  auto t = saver->get_tuple({"t", "", "2"});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.channel_values[sp::kTasksChannel], json({"send-1", "send-2"}));
  EXPECT_EQ(t->checkpoint.channel_versions[sp::kTasksChannel], 3);
}

INSTANTIATE_TEST_SUITE_P(Savers, SaverConformance, ::testing::ValuesIn(testing_util::saver_cases()),
                         [](const auto& info) { return info.param.name; });

// ForwardingSaver hands every call on: the whole suite passes through one, over SQLite (whose
// every call, claims and batches included, has its own implementation).
std::vector<testing_util::SaverCase> forwarding_cases() {
  return {{"forwarding_sqlite", [] {
             return std::make_shared<sp::ForwardingSaver>(
                 std::make_shared<sp::SqliteSaver>(testing_util::scratch_db("forwarding")));
           }}};
}
INSTANTIATE_TEST_SUITE_P(Forwarding, SaverConformance, ::testing::ValuesIn(forwarding_cases()),
                         [](const auto& info) { return info.param.name; });

// SQLite and PostgreSQL write the stored form's text directly; it must be the stored form dumped.
TEST(StoredCheckpoint, TextIsTheStoredFormDumped) {
  sp::Checkpoint c = cp("1f1e6fe2", {{"k", "v"}}, {{"k", 1}, {"branch:to:a", 2}});
  c.updated_channels = json::array({"k"});
  std::vector<sp::Checkpoint> cases{c};
  c.updated_channels = nullptr;
  c.extra = {{"aa", 1}, {"v", 9}, {"zz", {{"x", "\"quoted\"\n"}}}, {"channel_values", {{"k", 1}}}, {"pending_sends", json::array()}};
  cases.push_back(c);
  c.extra = json::object();
  cases.push_back(c);
  for (const sp::Checkpoint& one : cases) {
    EXPECT_EQ(sp::internal::dump_stored_checkpoint(one, std::nullopt, {}), sp::internal::stored_checkpoint(one).dump());
    sp::PutDeltas chain;
    chain.versions_root = "root";
    EXPECT_EQ(sp::internal::dump_stored_checkpoint(one, std::string("parent"), chain),
              sp::internal::stored_checkpoint(one, std::string("parent"), chain).dump());
  }
}

TEST(SqliteSaver, CorruptStoredValueNamesThreadAndCheckpointAndSparesOtherThreads) {
  std::string path = scratch_file("corrupt");
  {
    sp::SqliteSaver saver(path);
    saver.put({"bad", "", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
    saver.put({"good", "", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
    // Values of several versions in one put are stored a row each (checkpoint_blobs).
    saver.put({"bad2", "", std::nullopt}, cp("1", {{"k", "v"}, {"j", "w"}}, {{"k", 1}, {"j", 2}}), json::object(),
              {{"k", 1}, {"j", 2}});
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  // A step's values are stored in one row per version (schema 5).
  ASSERT_EQ(sqlite3_exec(db, "UPDATE checkpoint_version_values SET channel_values = '{\"trunc' WHERE thread_id = 'bad'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_changes(db), 1);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE checkpoint_blobs SET value = '{\"trunc' WHERE thread_id = 'bad2' AND channel = 'k'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
  sp::SqliteSaver saver(path);
  try {
    saver.get_tuple({"bad", "", std::nullopt});
    ADD_FAILURE() << "a truncated value must not load";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'bad', checkpoint '1': stored value of channel 'k' (in the row of version 1) is corrupt"),
              std::string::npos)
        << e.what();
  }
  try {
    saver.get_tuple({"bad2", "", std::nullopt});
    ADD_FAILURE() << "a truncated value must not load";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'bad2', checkpoint '1': stored value of channel 'k' is corrupt"),
              std::string::npos)
        << e.what();
  }
  auto good = saver.get_tuple({"good", "", std::nullopt});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->checkpoint.channel_values, json({{"k", "v"}}));
}

// A long listing parses its checkpoints on two threads; a corrupt one fails the listing with
// its name, whichever thread read it.
TEST(SqliteSaver, ACorruptCheckpointInALongListingNamesIt) {
  std::string path = scratch_file("corruptlist");
  {
    sp::SqliteSaver saver(path);
    std::optional<std::string> parent;
    for (int i = 0; i < 80; ++i) {
      std::string id = "c" + std::to_string(100 + i);
      saver.put({"t", "", parent}, cp(id, {{"k", i}}, {{"k", i + 1}}), json{{"step", i}}, {{"k", i + 1}});
      parent = id;
    }
  }
  // One corrupt at a time (the older half, then the newer half of the listing): with two, either
  // thread may be the first to fail.
  auto exec = [&](const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  for (const char* id : {"c105", "c175"}) {
    const std::string where = std::string(" WHERE checkpoint_id = '") + id + "'";
    exec("CREATE TABLE kept AS SELECT checkpoint FROM checkpoints" + where);
    exec("UPDATE checkpoints SET checkpoint = '{\"trunc'" + where);
    {
      sp::SqliteSaver saver(path);
      sp::CheckpointQuery q;
      q.thread_id = "t";
      try {
        saver.list(q);
        ADD_FAILURE() << "a truncated checkpoint must not list";
      } catch (const sp::CheckpointError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("thread 't', checkpoint '") + id + "': stored checkpoint is corrupt"),
                  std::string::npos)
            << e.what();
      }
    }
    exec("UPDATE checkpoints SET checkpoint = (SELECT checkpoint FROM kept)" + where + "; DROP TABLE kept");
  }
  sp::SqliteSaver saver(path);
  sp::CheckpointQuery q;
  q.thread_id = "t";
  EXPECT_EQ(saver.list(q).size(), 80u) << "the listing reads again once the texts are put back";
}

// A file written by schema 4 (one row per value, rowid tables) opens, migrates to 5 and reads
// back as it was; new puts go to the new layout beside the old rows.
TEST(SqliteSaver, MigratesASchema4FileAndReadsItsRowsBack) {
  std::string path = scratch_file("schema4");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* v4 = R"sql(
CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT, checkpoint TEXT NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
CREATE TABLE checkpoint_blobs (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', channel TEXT NOT NULL,
  version TEXT NOT NULL, value TEXT NOT NULL, delta_base TEXT, PRIMARY KEY (thread_id, checkpoint_ns, channel, version));
CREATE TABLE checkpoint_writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, value TEXT NOT NULL, task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
CREATE TABLE thread_claims (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, owner TEXT NOT NULL, host TEXT NOT NULL,
  pid INTEGER NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns));
INSERT INTO checkpoints VALUES ('t', '', '1', NULL,
  '{"v":4,"id":"1","ts":"2026-11-22T00:00:00.000Z","channel_versions":{"k":1,"l":2},"versions_seen":{}}', '{"step":0}');
INSERT INTO checkpoint_blobs VALUES ('t', '', 'k', '1', '"v"', NULL);
INSERT INTO checkpoint_blobs VALUES ('t', '', 'l', '1', '["a"]', NULL);
INSERT INTO checkpoint_blobs VALUES ('t', '', 'l', '2', '["b"]', '1');
INSERT INTO checkpoint_writes VALUES ('t', '', '1', 'task', 0, 'k', '"w"', '~p');
PRAGMA user_version = 4;
)sql";
  ASSERT_EQ(sqlite3_exec(db, v4, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  sp::SqliteSaver saver(path);
  auto t = saver.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.channel_values, json({{"k", "v"}, {"l", {"a", "b"}}}));
  ASSERT_EQ(t->pending_writes.size(), 1u);
  EXPECT_EQ(t->pending_writes[0].value, "w");
  saver.put({"t", "", "1"}, cp("2", {{"k", "x"}}, {{"k", 3}, {"l", 2}}), json{{"step", 1}}, {{"k", 3}});
  auto next = saver.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(next);
  EXPECT_EQ(next->checkpoint.channel_values, json({{"k", "x"}, {"l", {"a", "b"}}}));
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), sp::SqliteSaver::schema_version());
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// A file written by schema 6 (checkpoints as a WITHOUT ROWID table) opens, its checkpoints move
// to a rowid table (rows on the table's last page, keys in the primary-key index) and read back.
TEST(SqliteSaver, MigratesASchema6FileToARowidCheckpointsTable) {
  std::string path = scratch_file("schema6");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* v6 = R"sql(
CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT, checkpoint TEXT NOT NULL, metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)) WITHOUT ROWID;
CREATE TABLE checkpoint_blobs (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', channel TEXT NOT NULL,
  version TEXT NOT NULL, value TEXT NOT NULL, delta_base TEXT, PRIMARY KEY (thread_id, checkpoint_ns, channel, version));
CREATE TABLE checkpoint_writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, value TEXT NOT NULL, task_path TEXT NOT NULL DEFAULT '',
  run_id TEXT, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)) WITHOUT ROWID;
CREATE TABLE thread_claims (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, owner TEXT NOT NULL, host TEXT NOT NULL,
  pid INTEGER NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns));
CREATE TABLE checkpoint_version_values (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
  version TEXT NOT NULL, channel_values TEXT NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, version)) WITHOUT ROWID;
INSERT INTO checkpoints VALUES ('t', '', '1', NULL,
  '{"v":4,"id":"1","ts":"2026-11-22T00:00:00.000Z","channel_versions":{"k":1},"versions_seen":{}}', '{"step":0}');
INSERT INTO checkpoints VALUES ('t', '', '2', '1',
  '{"v":4,"id":"2","ts":"2026-11-22T00:00:01.000Z","channel_versions":{"k":2},"versions_seen":{}}', '{"step":1}');
INSERT INTO checkpoint_version_values VALUES ('t', '', '1', '{"k":["v"]}');
INSERT INTO checkpoint_version_values VALUES ('t', '', '2', '{"k":["w"]}');
INSERT INTO checkpoint_writes VALUES ('t', '', '2', 'task', 0, 'k', '"x"', '~p', 'r');
PRAGMA user_version = 6;
)sql";
  ASSERT_EQ(sqlite3_exec(db, v6, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  {
    sp::SqliteSaver saver(path);
    auto t = saver.get_tuple({"t", "", std::nullopt});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->checkpoint.id, "2");
    EXPECT_EQ(t->checkpoint.channel_values, json({{"k", "w"}}));
    ASSERT_EQ(t->pending_writes.size(), 1u);
    EXPECT_EQ(t->pending_writes[0].value, "x");
    sp::CheckpointQuery q;
    q.thread_id = "t";
    EXPECT_EQ(saver.list(q).size(), 2u);
    saver.put({"t", "", "2"}, cp("3", {{"k", "y"}}, {{"k", 3}}), json{{"step", 2}}, {{"k", 3}});
    auto next = saver.get_tuple({"t", "", std::nullopt});
    ASSERT_TRUE(next);
    EXPECT_EQ(next->checkpoint.channel_values, json({{"k", "y"}}));
    EXPECT_EQ(next->parent_config->checkpoint_id, "2");
  }
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE name = 'checkpoints'", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  std::string sql = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  EXPECT_EQ(sql.find("WITHOUT ROWID"), std::string::npos) << sql;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM checkpoints", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 3);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// With `exclusive`, the file stays locked while the saver is open: another saver, or a plain
// SQLite connection, fails with "database is locked" after its busy timeout; once the first
// closes, the file opens and holds what it wrote.
TEST(SqliteSaver, ExclusiveHoldsTheFileUntilTheSaverCloses) {
  std::string path = scratch_file("exclusive");
  const sp::SqliteSaver::Options quick{.busy_timeout = std::chrono::milliseconds(100)};
  {
    sp::SqliteSaver owner(path, sp::SqliteSaver::Options{.exclusive = true});
    owner.put({"t", "", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json{{"step", 0}}, {{"k", 1}});
    try {
      sp::SqliteSaver other(path, quick);
      other.get_tuple({"t", "", std::nullopt});
      ADD_FAILURE() << "a second saver opened a file held exclusively";
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("database is locked"), std::string::npos) << e.what();
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "SELECT count(*) FROM checkpoints", nullptr, nullptr, nullptr), SQLITE_BUSY);
    sqlite3_close(db);
    owner.put({"t", "", "1"}, cp("2", {{"k", "w"}}, {{"k", 2}}), json{{"step", 1}}, {{"k", 2}});
  }
  sp::SqliteSaver later(path, quick);
  auto t = later.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, "2");
  EXPECT_EQ(t->checkpoint.channel_values, json({{"k", "w"}}));
}

// The WAL is copied back into the database file while the saver is open (SQLite's
// auto-checkpoint; a WAL hook of our own once replaced it and, by mistake, checkpointed nothing).
TEST(SqliteSaver, CopiesTheWalBackIntoTheDatabaseFileWhileOpen) {
  std::string path = scratch_file("walcopy");
  sp::SqliteSaver saver(path);
  const auto db_size = [&] { return std::filesystem::file_size(path); };
  const auto before = db_size();
  const std::string big(64 * 1024, 'x');
  // ~6 MB of values: the WAL passes 1,000 pages (4 MB) several times.
  std::optional<std::string> parent;
  for (int i = 0; i < 100; ++i) {
    std::string id = "c" + std::to_string(1000 + i);
    saver.put({"t", "", parent}, cp(id, {{"k", big + std::to_string(i)}}, {{"k", i + 1}}), json::object(), {{"k", i + 1}});
    parent = id;
  }
  for (int wait = 0; wait < 200 && db_size() < before + 2 * 1024 * 1024; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_GE(db_size(), before + 2 * 1024 * 1024) << "the database file did not grow: the WAL was not copied back";
  auto t = saver.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.channel_values["k"], big + "99");
}

// `wal_autocheckpoint` moves the point where the WAL is copied back: the ~6 MB that pass
// SQLite's 1,000 pages above stay in a WAL of 10,000 pages (the file keeps its size, the WAL
// holds them), and everything reads back; on close the WAL is copied back all the same.
TEST(SqliteSaver, KeepsALargerWalWhenAskedTo) {
  std::string path = scratch_file("walpages");
  const std::string big(64 * 1024, 'x');
  std::uintmax_t before = 0;
  {
    sp::SqliteSaver saver(path, sp::SqliteSaver::Options{.wal_autocheckpoint = 10000});
    before = std::filesystem::file_size(path);
    std::optional<std::string> parent;
    for (int i = 0; i < 100; ++i) {
      std::string id = "c" + std::to_string(1000 + i);
      saver.put({"t", "", parent}, cp(id, {{"k", big + std::to_string(i)}}, {{"k", i + 1}}), json::object(), {{"k", i + 1}});
      parent = id;
    }
    EXPECT_LT(std::filesystem::file_size(path), before + 1024 * 1024) << "the WAL was copied back before 10,000 pages";
    EXPECT_GT(std::filesystem::file_size(path + "-wal"), 5u * 1024 * 1024);
    auto t = saver.get_tuple({"t", "", std::nullopt});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->checkpoint.channel_values["k"], big + "99");
  }
  EXPECT_GE(std::filesystem::file_size(path), before + 5 * 1024 * 1024) << "closing did not copy the WAL back";
  auto t = sp::SqliteSaver(path).get_tuple({"t", "", "c1050"});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.channel_values["k"], big + "50");
}

TEST(SqliteSaver, ReopensAnExistingFileAndRefusesANewerSchema) {
  std::string path = scratch_file("reopen");
  { sp::SqliteSaver(path).put({"t", "", std::nullopt}, cp("1", json::object(), json::object()), json::object(), json::object()); }
  EXPECT_TRUE(sp::SqliteSaver(path).get_tuple({"t", "", std::nullopt}).has_value());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    sp::SqliteSaver newer(path);
    ADD_FAILURE() << "a newer schema must be refused";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99 is newer than this build's (" + std::to_string(sp::SqliteSaver::schema_version()) + ")"), std::string::npos) << e.what();
  }
}

}  // namespace
