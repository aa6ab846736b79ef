// PostgresSaver beyond the shared conformance suite: corrupt rows, schema versions and
// concurrent migration, a lost connection, many writers through the pool, bad DSNs, a whole
// history read in one round trip.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <thread>
#include <utility>

#include "saver_cases.hpp"
#include "test_util.hpp"

namespace {

using testing_util::PgSchema;
using testing_util::pg_exec;

sp::Checkpoint cp(const std::string& id, json values, json versions) {
  sp::Checkpoint c;
  c.id = id;
  c.ts = "2026-11-22T00:00:00.000Z";
  c.channel_values = std::move(values);
  c.channel_versions = std::move(versions);
  return c;
}

class PostgresSaverTest : public ::testing::Test {
 protected:
  void SetUp() override { SUPERSTEP_REQUIRE_POSTGRES(); }
};

TEST_F(PostgresSaverTest, CorruptStoredValueNamesThreadAndCheckpointAndSparesOtherThreads) {
  PgSchema schema("corrupt");
  sp::PostgresSaver saver(schema.dsn);
  saver.put({"bad", "", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
  saver.put({"good", "", std::nullopt}, cp("1", {{"k", "v"}}, {{"k", 1}}), json::object(), {{"k", 1}});
  pg_exec(schema.dsn, "UPDATE checkpoint_blobs SET value = '{\"trunc' WHERE thread_id = 'bad'::bytea");
  try {
    saver.get_tuple({"bad", "", std::nullopt});
    ADD_FAILURE() << "a truncated value must not load";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'bad', checkpoint '1': stored value of channel 'k' is corrupt"),
              std::string::npos)
        << e.what();
  }
  auto good = saver.get_tuple({"good", "", std::nullopt});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->checkpoint.channel_values, json({{"k", "v"}}));
  // A corrupt checkpoint row is reported the same way by list().
  pg_exec(schema.dsn, "UPDATE checkpoints SET checkpoint = 'not json' WHERE thread_id = 'bad'::bytea");
  sp::CheckpointQuery q;
  q.thread_id = "bad";
  EXPECT_THROW(saver.list(q), sp::CheckpointError);
  q.thread_id = "good";
  EXPECT_EQ(saver.list(q).size(), 1u);
}

TEST_F(PostgresSaverTest, ReopensAndRefusesANewerSchema) {
  PgSchema schema("reopen");
  { sp::PostgresSaver(schema.dsn).put({"t", "", std::nullopt}, cp("1", json::object(), json::object()), json::object(), json::object()); }
  EXPECT_TRUE(sp::PostgresSaver(schema.dsn).get_tuple({"t", "", std::nullopt}).has_value());
  pg_exec(schema.dsn, "UPDATE superstep_schema SET version = 99");
  try {
    sp::PostgresSaver newer(schema.dsn);
    ADD_FAILURE() << "a newer schema must be refused";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99 is newer than this build's (4)"), std::string::npos) << e.what();
  }
}

TEST_F(PostgresSaverTest, SeveralProcessesMigratingAtOnceAgreeOnOneSchema) {
  PgSchema schema("migrate");
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&] {
      try {
        sp::PostgresSaver s(schema.dsn, 1);
        ++ok;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 6);
  sp::PostgresSaver s(schema.dsn);
  s.put({"t", "", std::nullopt}, cp("1", json::object(), json::object()), json::object(), json::object());
  EXPECT_EQ(s.list({}).size(), 1u);
}

TEST_F(PostgresSaverTest, ALostConnectionIsReplacedAndNothingIsLost) {
  PgSchema schema("lost");
  std::string app = "superstep_lost_" + std::to_string(::getpid());
  sp::PostgresSaver saver(schema.dsn + " application_name=" + app, 2);
  auto c1 = saver.put({"t", "", std::nullopt}, cp("1", {{"k", 1}}, {{"k", 1}}), json::object(), {{"k", 1}});
  // The server ends the saver's connections (a restart, an idle timeout, an admin).
  pg_exec(schema.dsn, "DO $$ BEGIN IF (SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                      "application_name = '" + app + "') = 0 THEN RAISE EXCEPTION 'no connection to end'; END IF; END $$");
  auto c2 = saver.put(c1, cp("2", {{"k", 2}}, {{"k", 2}}), json::object(), {{"k", 2}});
  saver.put_writes(c2, {{"k", 3}}, "task");
  auto t = saver.get_tuple({"t", "", std::nullopt});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->checkpoint.id, "2");
  EXPECT_EQ(t->checkpoint.channel_values["k"], 2);
  ASSERT_EQ(t->pending_writes.size(), 1u);
  EXPECT_EQ(saver.list({}).size(), 2u);
  // A whole history read (its three statements in one round trip) also moves to a new connection.
  pg_exec(schema.dsn, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + app + "'");
  sp::CheckpointQuery whole;
  whole.thread_id = "t";
  whole.checkpoint_ns = "";
  auto listed = saver.list(whole);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].pending_writes.size(), 1u);
}

// A listing of a whole thread and namespace sends its three statements in one round trip
// (libpq's pipeline mode): it reads what the statement-by-statement path reads, an empty thread
// reads as empty, and a failure inside the pipeline leaves the saver's only connection usable.
TEST_F(PostgresSaverTest, AWholeHistoryInOneRoundTripReadsTheSameAndFailsCleanly) {
  PgSchema schema("pipeline");
  sp::PostgresSaver saver(schema.dsn, 1);
  std::optional<std::string> parent;
  for (int i = 0; i < 70; ++i) {  // 64 and more parse on two threads
    char id[8];
    std::snprintf(id, sizeof id, "%03d", i);
    auto c = saver.put({"t", "", parent}, cp(id, {{"k", i}, {"log", json::array({i})}}, {{"k", i + 1}, {"log", i + 1}}),
                       {{"step", i}}, {{"k", i + 1}, {"log", i + 1}});
    saver.put_writes(c, {{"k", i * 10}, {"log", json::array({-i})}}, "task-" + std::string(id));
    parent = c.checkpoint_id;
  }
  sp::CheckpointQuery whole;
  whole.thread_id = "t";
  whole.checkpoint_ns = "";
  sp::CheckpointQuery stepwise = whole;
  stepwise.limit = 1000;  // not a whole listing: the statement-by-statement path
  auto a = saver.list(whole), b = saver.list(stepwise);
  ASSERT_EQ(a.size(), 70u);
  ASSERT_EQ(b.size(), 70u);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].checkpoint.to_json(), b[k].checkpoint.to_json()) << k;
    EXPECT_EQ(a[k].metadata, b[k].metadata) << k;
    ASSERT_EQ(a[k].pending_writes.size(), 2u) << k;
    EXPECT_EQ(a[k].pending_writes[0].value, b[k].pending_writes[0].value) << k;
    EXPECT_EQ(a[k].pending_writes[1].value, b[k].pending_writes[1].value) << k;
  }
  EXPECT_EQ(a[0].checkpoint.channel_values, json({{"k", 69}, {"log", {69}}}));
  EXPECT_EQ(a[0].pending_writes[1].value, json::array({-69}));

  // A corrupt value read while the tuples are built on two threads: named with its thread,
  // checkpoint and channel, whichever thread reads it; nothing stored changes.
  // (version of k, the checkpoint that stored it): one of the older half, then one of the newer.
  for (auto [version, id] : {std::pair{"10", "009"}, std::pair{"60", "059"}}) {
    const std::string where = std::string(" WHERE channel = 'k' AND version = '") + version + "'";
    pg_exec(schema.dsn, "UPDATE checkpoint_blobs SET value = '{\"trunc'" + where);
    try {
      saver.list(whole);
      ADD_FAILURE() << "a corrupt value must fail the read";
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("thread 't', checkpoint '") + id + "': stored value of channel 'k'"),
                std::string::npos)
          << e.what();
    }
    pg_exec(schema.dsn, std::string("UPDATE checkpoint_blobs SET value = '") + version + "'" + where);
  }
  EXPECT_EQ(saver.list(whole).size(), 70u);

  // A thread with no checkpoint lists nothing, again and again, on the same connection.
  sp::CheckpointQuery none = whole;
  none.thread_id = "no such thread";
  sp::PostgresSaver one(schema.dsn, 1);
  EXPECT_TRUE(one.list(none).empty());
  EXPECT_TRUE(one.list(none).empty());
  EXPECT_EQ(one.list(whole).size(), 70u);

  // A statement fails inside the pipeline (the writes' result type changed under the prepared
  // statement, the third of three): a clear error, and the next read works on the same connection.
  pg_exec(schema.dsn, "ALTER TABLE checkpoint_writes ALTER COLUMN task_path TYPE varchar");
  try {
    one.list(whole);
    ADD_FAILURE() << "a changed table must fail the read";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("cached plan must not change result type"), std::string::npos) << e.what();
  }
  pg_exec(schema.dsn, "ALTER TABLE checkpoint_writes ALTER COLUMN task_path TYPE text COLLATE \"C\"");
  EXPECT_EQ(one.list(whole).size(), 70u);
  EXPECT_EQ(one.get_tuple({"t", "", std::nullopt})->checkpoint.id, "069");

  // A table missing when the statements are prepared: a clear error, and then reads work.
  sp::PostgresSaver fresh(schema.dsn, 1);
  pg_exec(schema.dsn, "ALTER TABLE checkpoint_writes RENAME TO checkpoint_writes_away");
  try {
    fresh.list(whole);
    ADD_FAILURE() << "a missing table must fail the read";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint_writes"), std::string::npos) << e.what();
  }
  pg_exec(schema.dsn, "ALTER TABLE checkpoint_writes_away RENAME TO checkpoint_writes");
  EXPECT_EQ(fresh.list(whole).size(), 70u);

  // A corrupt checkpoint in either half of the parse: named, and the connection still serves.
  for (const char* id : {"060", "003"}) {
    pg_exec(schema.dsn, std::string("UPDATE checkpoints SET metadata = '{\"trunc' WHERE checkpoint_id = '") + id + "'");
    try {
      saver.list(whole);
      ADD_FAILURE() << "a corrupt row must fail the read";
    } catch (const sp::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("thread 't', checkpoint '") + id + "'"), std::string::npos)
          << e.what();
    }
    pg_exec(schema.dsn, std::string("UPDATE checkpoints SET metadata = '{}' WHERE checkpoint_id = '") + id + "'");
    EXPECT_EQ(saver.list(whole).size(), 70u);
  }
}

TEST_F(PostgresSaverTest, ManyWritersThroughThePoolKeepEveryThreadIntact) {
  PgSchema schema("pool");
  sp::PostgresSaver saver(schema.dsn, 3);
  constexpr int kThreads = 8, kSteps = 25;
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w)
    threads.emplace_back([&, w] {
      std::string thread = "thread-" + std::to_string(w);
      sp::CheckpointConfig at{thread, "", std::nullopt};
      for (int i = 0; i < kSteps; ++i) {
        char id[8];
        std::snprintf(id, sizeof id, "%04d", i);
        at = saver.put(at, cp(id, {{"n", i}}, {{"n", i + 1}}), {{"step", i}}, {{"n", i + 1}});
        saver.put_writes(at, {{"n", i + 1}}, "task-" + std::to_string(i));
      }
    });
  for (auto& t : threads) t.join();
  for (int w = 0; w < kThreads; ++w) {
    sp::CheckpointQuery q;
    q.thread_id = "thread-" + std::to_string(w);
    auto history = saver.list(q);
    ASSERT_EQ(history.size(), static_cast<std::size_t>(kSteps));
    for (int i = 0; i < kSteps; ++i) {
      const auto& t = history[static_cast<std::size_t>(kSteps - 1 - i)];
      EXPECT_EQ(t.checkpoint.channel_values["n"], i);
      EXPECT_EQ(t.metadata["step"], i);
      ASSERT_EQ(t.pending_writes.size(), 1u);
      EXPECT_EQ(t.pending_writes[0].value, i + 1);
      if (i > 0) {
        EXPECT_EQ(t.parent_config->checkpoint_id, history[static_cast<std::size_t>(kSteps - i)].checkpoint.id);
      }
    }
  }
}

TEST_F(PostgresSaverTest, BadDsnAndUnstorableNamesGiveClearErrors) {
  try {
    sp::PostgresSaver s("host=127.0.0.1 port=1 user=postgres dbname=postgres connect_timeout=2");
    ADD_FAILURE() << "no server listens on port 1";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("postgres: cannot connect"), std::string::npos) << e.what();
  }
  PgSchema schema("nul");
  sp::PostgresSaver saver(schema.dsn);
  std::string nul_channel = std::string("a") + '\0' + "b";
  try {
    saver.put({"t", "", std::nullopt}, cp("1", {{nul_channel, 1}}, {{nul_channel, 1}}), json::object(), {{nul_channel, 1}});
    ADD_FAILURE() << "a NUL in a channel name cannot be stored in PostgreSQL text";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("channel name cannot contain a NUL"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(saver.get_tuple({"t", "", std::nullopt}).has_value()) << "a refused put stores nothing";
}

}  // namespace
