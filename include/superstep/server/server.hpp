// superstep::server::Server: serves compiled graphs over the LangGraph Platform HTTP API
// (assistants, threads, runs, SSE streams), so the official LangGraph SDK (`@langchain/
// langgraph-sdk`), `useStream` and `RemoteGraph` drive them. One process, one database: the
// checkpoints, the server's assistants, threads and runs, and the run queue live in the same
// SQLite file (default) or PostgreSQL database. docs/server.md.
//
//   sp::server::Server server({.database = "app.db", .port = 2024});
//   server.add_graph("agent", [](const sp::CompileOptions& o) { return build_agent(o); });
//   server.run();   // until SIGINT/SIGTERM (or stop() from another thread)
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "superstep/graph/state_graph.hpp"

namespace superstep::server {

/// Builds the graph of one run: compile it with `options` (they carry the server's checkpointer
/// and store); `config` is the run's config (`configurable`, `tags`, ...) and `context` its
/// context, each with the assistant's deep-merged under the run's.
using GraphFactory =
    std::function<CompiledStateGraph(const CompileOptions& options, const json& config, const json& context)>;
/// Builds a graph once, at registration, with the server's options.
using GraphBuilder = std::function<CompiledStateGraph(const CompileOptions& options)>;

struct ServerOptions {
  /// A SQLite file (created if missing), or a libpq connection string (`postgresql://...`,
  /// `postgres://...` or `host=... dbname=...`) for PostgreSQL.
  std::string database = "superstep.db";
  std::string host = "127.0.0.1";
  unsigned short port = 2024;  ///< 0 binds a free port (port() tells which)
  /// When set, every request but `GET /ok` and CORS preflights must carry it in `x-api-key`
  /// (401 without, 403 with a wrong one).
  std::string api_key;
  std::size_t workers = 64;                  ///< runs executing at once
  std::size_t io_threads = 1;                ///< threads serving HTTP
  std::chrono::milliseconds run_timeout{0};  ///< a run still executing then ends `timeout`; 0 = none
  /// stop(): how long executing runs get to reach their next superstep boundary; those that
  /// do not are returned to `pending` and resume on the next start.
  std::chrono::milliseconds grace{10000};
  std::chrono::milliseconds heartbeat{10000};  ///< `:` comment lines on idle SSE responses
  bool log = true;                             ///< one line per request and per run on stderr
  /// SQLite: hold the file locked while serving (SqliteSaverOptions::exclusive): a few percent
  /// less CPU per run, but no other process (`superstep history`, `sqlite3`) can read the file
  /// meanwhile. Ignored for PostgreSQL.
  bool exclusive_database = false;
  /// SQLite: group commit (SqliteSaverOptions::group_commit): the runs' writes share one
  /// transaction, committed this often, each made durable when it returns by an append to the
  /// redo log `<file>-redo` (what a killed server acknowledged is replayed at the next start).
  /// Other processes reading the file see the server's writes up to about twice this late.
  /// 0: every write commits at once. Ignored for PostgreSQL.
  std::chrono::milliseconds group_commit{100};
  /// The wall clock crons fire by; empty: the system clock. Tests inject one to step time.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// How often the cron scheduler looks for due crons.
  std::chrono::milliseconds cron_poll{1000};
};

class Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Serves `build(options)` as graph `graph_id`, with its system assistant. Call before start().
  void add_graph(const std::string& graph_id, GraphBuilder build);
  /// Serves a graph built per run by `factory`.
  void add_graph(const std::string& graph_id, GraphFactory factory);

  /// Opens the database, binds and starts serving on background threads; runs left `pending`
  /// or `running` by a previous process are resumed. Throws Error when it cannot bind or open.
  void start();
  /// The bound port (after start()).
  unsigned short port() const;
  /// `http://host:port`.
  std::string url() const;
  /// start() if not started, then serves until SIGINT/SIGTERM or stop() (from another thread).
  /// Then call shutdown() or stop(), or destroy the server.
  void run();
  /// Stops taking requests and starting runs; executing runs get `grace` to reach their next
  /// superstep boundary and are returned to `pending` (the next start resumes them). Returns
  /// how many still execute after the grace period (they too are stored as pending, so a
  /// process may exit now without losing them).
  std::size_t shutdown();
  /// shutdown(), then waits for every executing run to end and stops the HTTP threads.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep::server
