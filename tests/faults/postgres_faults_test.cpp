// Injected faults on a real PostgreSQL server of the test's own (scripts/pg-cluster, not the
// shared test cluster, so it can be restarted and stopped), mid-run: the server restarts, every
// backend is killed (pg_terminate_backend), the server is down, a statement times out. The saver
// reconnects when a connection broke and its statement is safe to repeat (every write is one
// idempotent statement): a restart or killed backends cost the run nothing. A server that stays
// down, or a timeout, fails the run with a CheckpointError naming the thread; the last good
// checkpoint stays readable, and once the fault is gone the thread resumes to the state of an
// uninterrupted run. Skipped when the PostgreSQL server binaries are absent.
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "faults/fault_graph.hpp"
#include "saver_cases.hpp"

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

/// Runs `cmd` in a shell; returns its stdout, or nullopt when it fails.
std::optional<std::string> shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

/// The server binaries' folder (as scripts/pg-cluster finds it), or "".
std::string pg_bindir() {
  if (const char* d = std::getenv("PG_BINDIR"); d && *d) return d;
  return shell("ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1").value_or("");
}

/// A private cluster: CTest's fixture "postgres_faults" (SUPERSTEP_FAULTS_PG_DIR), else one
/// this process starts on first use and stops and removes at its end.
class Cluster {
 public:
  static Cluster& get() {
    static Cluster c;
    return c;
  }
  bool available() const { return !bin_.empty() && std::filesystem::exists(bin_ + "/pg_ctl"); }
  const std::string& dsn() {
    if (dsn_.empty() && shared_) {
      std::ifstream in(dir_ + "/dsn");
      std::getline(in, dsn_);
    }
    if (dsn_.empty()) {
      shared_ = false;
      auto out = shell(std::string(SUPERSTEP_SOURCE_DIR) + "/scripts/pg-cluster start " + dir_);
      if (!out) throw std::runtime_error("scripts/pg-cluster start " + dir_ + " failed");
      dsn_ = out->substr(out->rfind('\n') == std::string::npos ? 0 : out->rfind('\n') + 1);
    }
    return dsn_;
  }
  /// pg_ctl `what` (restart, stop, start) on the cluster, waiting for it to finish.
  void ctl(const std::string& what) {
    std::string owner = ::geteuid() == 0 ? "runuser -u postgres -- " : "";
    std::string opts;
    if (what == "start") {  // the options scripts/pg-cluster starts it with (restart keeps them)
      std::string port = dsn_.substr(dsn_.find("port=") + 5);
      port = port.substr(0, port.find(' '));
      opts = "-o '-p " + port + " -k " + dir_ + " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200' ";
    }
    std::string cmd = owner + bin_ + "/pg_ctl -D " + dir_ + "/data -m fast -w -t 60 -l " + dir_ + "/server.log " + opts +
                      what + " >/dev/null 2>&1";
    if (!shell(cmd)) throw std::runtime_error("pg_ctl " + what + " failed (" + dir_ + "/server.log)");
  }
  ~Cluster() {
    if (!dsn_.empty() && !shared_) shell(std::string(SUPERSTEP_SOURCE_DIR) + "/scripts/pg-cluster stop " + dir_);
  }

 private:
  Cluster() : bin_(pg_bindir()) {
    const char* fixture = std::getenv("SUPERSTEP_FAULTS_PG_DIR");
    shared_ = fixture && *fixture;
    dir_ = shared_ ? fixture : "/tmp/superstep-faults-pg-" + std::to_string(::getpid());
  }
  std::string bin_, dir_, dsn_;
  bool shared_ = false;  // the fixture's: left running
};

/// A connection of the test's own, to hold locks and kill backends.
struct Conn {
  PGconn* c;
  explicit Conn(const std::string& dsn) : c(PQconnectdb(dsn.c_str())) {
    if (PQstatus(c) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(c));
  }
  ~Conn() { PQfinish(c); }
  void exec(const std::string& sql) {
    PGresult* r = PQexec(c, sql.c_str());
    auto st = PQresultStatus(r);
    std::string err = PQresultErrorMessage(r);
    PQclear(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) throw std::runtime_error(sql + ": " + err);
  }
};

class PostgresFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Cluster::get().available()) GTEST_SKIP() << "no PostgreSQL server binaries (apt-get install postgresql)";
    static int n = 0;
    schema_ = "faults_" + std::to_string(n++);
    dsn_ = Cluster::get().dsn();
    testing_util::pg_exec(dsn_, "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE; CREATE SCHEMA " + schema_);
  }
  /// The DSN of this test's schema, with `options` (more -c settings) added.
  std::string dsn(const std::string& options = "") const {
    return dsn_ + " options='-csearch_path=" + schema_ + (options.empty() ? "" : " " + options) + "'";
  }
  std::string schema_, dsn_;
  json expected = fault_test::uninterrupted();
};

// The server restarts during step 3 (pg_ctl restart, fast: every connection is cut). The saver's
// next statement finds its connection broken, drops the pool's idle ones (dead too) and repeats
// the statement on a new connection: the run goes on and ends as an uninterrupted one.
TEST_F(PostgresFaults, ServerRestartMidRunIsSurvivedByReconnecting) {
  bool done = false;
  auto app = build(std::make_shared<sp::PostgresSaver>(dsn()), [&](int n) {
    if (n == 3 && !std::exchange(done, true)) Cluster::get().ctl("restart");
  });
  EXPECT_EQ(app.invoke(json{{"n", 0}}, thread("restart")), expected);
  EXPECT_TRUE(done);
  EXPECT_EQ(stored_step(app, "restart"), kSteps);
  expect_history_readable(app, "restart", kSteps);
}

// Every backend but the test's own is killed during step 3 (pg_terminate_backend): the saver's
// pooled connections and the one holding its claim on the thread. Survived as a restart is.
TEST_F(PostgresFaults, KilledBackendsMidRunAreSurvivedByReconnecting) {
  Conn admin(dsn_);
  bool done = false;
  auto app = build(std::make_shared<sp::PostgresSaver>(dsn(), 2), [&](int n) {
    if (n == 3 && !std::exchange(done, true))
      admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                 "AND pid <> pg_backend_pid()");
  });
  EXPECT_EQ(app.invoke(json{{"n", 0}}, thread("killed")), expected);
  EXPECT_TRUE(done);
  EXPECT_EQ(stored_step(app, "killed"), kSteps);
}

// The server goes down during step 3 and stays down: a new connection is refused too, and the
// run fails naming the thread and what it was saving. Once the server is back, the thread reads
// and resumes.
TEST_F(PostgresFaults, ServerDownMidRunFailsNamingTheThreadAndResumesWhenItIsBack) {
  bool done = false;
  auto app = build(std::make_shared<sp::PostgresSaver>(dsn(), 4, 300ms), [&](int n) {
    if (n == 3 && !std::exchange(done, true)) Cluster::get().ctl("stop");
  });
  sp::RunConfig cfg = thread("down");
  cfg.durability = sp::Durability::sync;
  std::string what = checkpoint_error([&] { app.invoke(json{{"n", 0}}, cfg); });
  Cluster::get().ctl("start");
  EXPECT_NE(what.find("graph 'faults', thread 'down': saving "), std::string::npos) << what;
  EXPECT_NE(what.find("failed: postgres: cannot connect: "), std::string::npos) << what;
  EXPECT_EQ(stored_step(app, "down"), 2);
  expect_history_readable(app, "down", 2);
  EXPECT_EQ(app.invoke(nullptr, thread("down")), expected);
}

// During step 3 another session holds an exclusive lock on checkpoint_writes; the saver's
// connections run with statement_timeout = 300 ms (set in the DSN). Its next write waits 300 ms,
// is cancelled by the server and fails the run naming the thread (a timeout is not a broken
// connection: nothing is retried). Once the lock is gone, the thread resumes.
TEST_F(PostgresFaults, StatementTimeoutFailsNamingTheThreadAndResumes) {
  Conn holder(dsn());
  auto saver = std::make_shared<sp::PostgresSaver>(dsn("-cstatement_timeout=300"));
  bool locked = false;
  auto app = build(saver, [&](int n) {
    if (n == 3 && !std::exchange(locked, true)) holder.exec("BEGIN; LOCK TABLE checkpoint_writes IN ACCESS EXCLUSIVE MODE");
  });
  sp::RunConfig cfg = thread("timeout");
  cfg.durability = sp::Durability::sync;
  auto t0 = std::chrono::steady_clock::now();
  std::string what = checkpoint_error([&] { app.invoke(json{{"n", 0}}, cfg); });
  auto took = std::chrono::steady_clock::now() - t0;
  holder.exec("ROLLBACK");
  EXPECT_NE(what.find("graph 'faults', thread 'timeout': saving the writes of task "), std::string::npos) << what;
  EXPECT_NE(what.find("failed: postgres: ERROR:  canceling statement due to statement timeout"), std::string::npos) << what;
  EXPECT_LT(took, 10s);
  EXPECT_EQ(stored_step(app, "timeout"), 2);
  EXPECT_EQ(app.invoke(nullptr, thread("timeout")), expected);
}

}  // namespace
