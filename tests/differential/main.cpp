// superstep-differential: runs one scenario of the differential suite and prints its
// transcript. Usage:
//   superstep-differential --list                 scenario names, "checkpointed" or "plain"
//   superstep-differential <scenario> [--saver memory|sqlite|postgres]
// PostgreSQL: the server named by SUPERSTEP_PG_DSN; each run gets a schema of its own, dropped
// at the end. SQLite: a file in the temp directory, removed at the end.
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <superstep/checkpoint/memory_saver.hpp>
#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>

#include "transcript.hpp"

namespace {

void pg_exec(const std::string& dsn, const std::string& sql) {
  PGconn* c = PQconnectdb(dsn.c_str());
  std::string err;
  if (PQstatus(c) != CONNECTION_OK) {
    err = PQerrorMessage(c);
  } else {
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK) err = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(c);
  if (!err.empty()) throw std::runtime_error("postgres: " + err);
}

std::string with_search_path(const std::string& dsn, const std::string& schema) {
  if (dsn.rfind("postgres", 0) == 0 && dsn.find("://") != std::string::npos)
    return dsn + (dsn.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  return dsn + " options='-csearch_path=" + schema + "'";
}

int usage() {
  std::cerr << "usage: superstep-differential --list | <scenario> [--saver memory|sqlite|postgres]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  if (args[0] == "--list") {
    for (const auto& s : diff::registry()) {
      std::cout << s.name << " " << (s.checkpointed ? "checkpointed" : "plain") << "\n";
      if (s.typed) std::cout << s.name << ".typed " << (s.checkpointed ? "checkpointed" : "plain") << "\n";
    }
    return 0;
  }
  std::string name = args[0], saver_name = "memory";
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--saver" && i + 1 < args.size()) saver_name = args[++i];
    else return usage();
  }
  bool typed = name.size() > 6 && name.ends_with(".typed");
  std::string base = typed ? name.substr(0, name.size() - 6) : name;
  const diff::Scenario* scenario = nullptr;
  for (const auto& s : diff::registry())
    if (s.name == base && (!typed || s.typed)) scenario = &s;
  if (!scenario) {
    std::cerr << "superstep-differential: no scenario '" << name << "'\n";
    return 2;
  }

  diff::Ctx ctx;
  ctx.saver_name = saver_name;
  std::string sqlite_path, pg_schema, pg_dsn;
  if (scenario->checkpointed) {
    if (saver_name == "memory") {
      ctx.saver = std::make_shared<superstep::InMemorySaver>();
    } else if (saver_name == "sqlite") {
      sqlite_path = (std::filesystem::temp_directory_path() /
                     ("superstep-differential-" + std::to_string(::getpid()) + ".db")).string();
      ctx.saver = std::make_shared<superstep::SqliteSaver>(sqlite_path);
    } else if (saver_name == "postgres") {
      const char* dsn = std::getenv("SUPERSTEP_PG_DSN");
      if (!dsn || !*dsn) {
        std::cerr << "superstep-differential: --saver postgres needs SUPERSTEP_PG_DSN\n";
        return 2;
      }
      pg_dsn = dsn;
      auto now = std::chrono::steady_clock::now().time_since_epoch().count();
      pg_schema = "diff_" + std::to_string(::getpid()) + "_" + std::to_string(now % 1000000007);
      pg_exec(pg_dsn, "CREATE SCHEMA " + pg_schema);
      ctx.saver = std::make_shared<superstep::PostgresSaver>(with_search_path(pg_dsn, pg_schema), 2);
    } else {
      return usage();
    }
  }
  int rc = 0;
  try {
    (typed ? scenario->typed : scenario->run)(ctx);
  } catch (const std::exception& e) {
    // A scenario lets no error escape; one that does is a bug of the scenario (or a crash of
    // the engine) and fails the run.
    std::cout.flush();
    std::cerr << "superstep-differential: " << name << ": uncaught: " << e.what() << "\n";
    rc = 1;
  }
  std::cout.flush();
  ctx.saver.reset();
  if (!sqlite_path.empty())
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(sqlite_path + suffix);
  if (!pg_schema.empty()) {
    try {
      pg_exec(pg_dsn, "DROP SCHEMA " + pg_schema + " CASCADE");
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
    }
  }
  return rc;
}
