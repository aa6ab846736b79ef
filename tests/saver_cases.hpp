// The savers every persistence test runs on: memory, SQLite (a fresh file) and PostgreSQL (a
// fresh schema on the test server). The server comes from SUPERSTEP_PG_DSN, or from the file
// SUPERSTEP_PG_DSN_FILE names, which CTest's "postgres" fixture writes after starting a private
// cluster (scripts/pg-cluster). Without either, PostgreSQL cases are skipped, except under CI,
// where they fail: CI never silently drops them.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <superstep/checkpoint/memory_saver.hpp>
#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>

namespace testing_util {

struct SaverCase {
  std::string name;
  std::function<std::shared_ptr<superstep::CheckpointSaver>()> make;
  bool needs_postgres = false;
};

inline void PrintTo(const SaverCase& c, std::ostream* os) { *os << c.name; }

/// The test server's DSN, or "" when none is configured.
inline std::string pg_dsn() {
  if (const char* d = std::getenv("SUPERSTEP_PG_DSN"); d && *d) return d;
  if (const char* f = std::getenv("SUPERSTEP_PG_DSN_FILE"); f && *f) {
    std::ifstream in(f);
    std::string dsn;
    std::getline(in, dsn);
    return dsn;
  }
  return "";
}

/// Runs one SQL command on the test server. Throws std::runtime_error with the server's message.
inline void pg_exec(const std::string& dsn, const std::string& sql) {
  PGconn* c = PQconnectdb(dsn.c_str());
  std::string err;
  if (PQstatus(c) != CONNECTION_OK) err = PQerrorMessage(c);
  else {
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) err = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(c);
  if (!err.empty()) throw std::runtime_error("postgres test server: " + err);
}

/// `dsn` with its search_path set to `schema` (key=value DSNs and URIs alike).
inline std::string with_search_path(const std::string& dsn, const std::string& schema) {
  if (dsn.rfind("postgres", 0) == 0 && dsn.find("://") != std::string::npos)
    return dsn + (dsn.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  return dsn + " options='-csearch_path=" + schema + "'";
}

/// A new, empty schema on the test server and a DSN that uses it; the schema is dropped when the
/// returned guard goes.
struct PgSchema {
  std::string name, dsn;
  explicit PgSchema(const std::string& tag) {
    static std::atomic<int> n{0};
    name = "t_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++);
    pg_exec(pg_dsn(), "CREATE SCHEMA " + name);
    dsn = with_search_path(pg_dsn(), name);
  }
  ~PgSchema() {
    try {
      pg_exec(pg_dsn(), "DROP SCHEMA " + name + " CASCADE");
    } catch (...) {
    }
  }
  PgSchema(const PgSchema&) = delete;
  PgSchema& operator=(const PgSchema&) = delete;
};

/// A PostgresSaver on a fresh schema, which is dropped with the saver.
inline std::shared_ptr<superstep::PostgresSaver> fresh_postgres_saver(std::size_t pool = 4) {
  auto schema = std::make_shared<PgSchema>("saver");
  auto* saver = new superstep::PostgresSaver(schema->dsn, pool);
  return std::shared_ptr<superstep::PostgresSaver>(saver, [schema](superstep::PostgresSaver* s) { delete s; });
}

inline std::string scratch_db(const std::string& tag) {
  static std::atomic<int> n{0};
  auto dir = std::filesystem::temp_directory_path() / ("superstep_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / (tag + "_" + std::to_string(n++) + ".db");
  for (const char* suffix : {"", "-wal", "-shm", "-redo"}) std::filesystem::remove(path.string() + suffix);
  return path.string();
}

inline std::vector<SaverCase> saver_cases() {
  return {
      {"memory", [] { return std::make_shared<superstep::InMemorySaver>(); }},
      {"sqlite", [] { return std::make_shared<superstep::SqliteSaver>(scratch_db("saver")); }},
      // Group commit as `superstep serve` uses it, with a short delay so groups commit mid-test.
      {"sqlite_grouped",
       [] {
         return std::make_shared<superstep::SqliteSaver>(
             scratch_db("grouped"), superstep::SqliteSaverOptions{.group_commit = std::chrono::milliseconds(20)});
       }},
      {"postgres", [] { return fresh_postgres_saver(); }, true},
  };
}

}  // namespace testing_util

/// In a test's SetUp: skips (fails under CI) when a PostgreSQL case has no server configured.
#define SUPERSTEP_REQUIRE_POSTGRES()                                                                      \
  do {                                                                                                    \
    if (::testing_util::pg_dsn().empty()) {                                                               \
      if (std::getenv("CI")) FAIL() << "CI needs the PostgreSQL test server: run the tests through ctest " \
                                       "(fixture 'postgres') or set SUPERSTEP_PG_DSN";                    \
      GTEST_SKIP() << "no PostgreSQL test server: set SUPERSTEP_PG_DSN or run through ctest";             \
    }                                                                                                     \
  } while (0)
