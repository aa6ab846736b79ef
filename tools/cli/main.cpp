// superstep: run and draw graphs from the command line, and inspect or resume stored threads.
//   superstep list
//   superstep run NAME [--input JSON] [--stream-mode updates,custom] [--recursion-limit N]
//                      [--thread T [--db superstep.db]]
//   superstep resume T [--value JSON] [--db superstep.db]
//   superstep state T [--db superstep.db]
//   superstep history T [--db superstep.db] [--limit N]
//   superstep draw NAME [--format mermaid|dot]
//   superstep serve [--db superstep.db] [--host 127.0.0.1] [--port 2024] [--api-key K] [--workers N]
//                   [--run-timeout S] [--grace S] [--exclusive-db] [--group-commit MS]
// With --thread, a run is checkpointed in --db: a SQLite file, or a PostgreSQL database when --db
// is a libpq connection string (`postgresql://...` or `host=... dbname=...`). The graph's name is
// kept in the checkpoints' metadata, so resume/state/history find it from the thread alone.
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/prebuilt/react_agent.hpp>
#include <superstep/server/server.hpp>

#include "builtin_graphs.hpp"

namespace sp = superstep;
using sp::json;

namespace {

/// The saver --db names: PostgreSQL for a libpq connection string, else a SQLite file.
std::shared_ptr<sp::CheckpointSaver> open_saver(const std::string& db) {
  if (db.empty()) throw std::runtime_error("--db is empty: give a SQLite file or a PostgreSQL connection string");
  bool postgres = db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0 ||
                  db.find("dbname=") != std::string::npos || db.find("host=") != std::string::npos;
  if (postgres) return std::make_shared<sp::PostgresSaver>(db);
  return std::make_shared<sp::SqliteSaver>(db);
}


const cli::BuiltinGraph& require_graph(const std::string& name) {
  if (const auto* g = cli::find_builtin(name)) return *g;
  std::string known;
  for (const auto& g : cli::builtin_graphs()) known += (known.empty() ? "" : ", ") + g.name;
  throw std::runtime_error("unknown graph '" + name + "' (built-in graphs: " + known + ")");
}

std::vector<sp::StreamMode> parse_modes(const std::string& list) {
  std::vector<sp::StreamMode> modes;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto m = sp::parse_stream_mode(item);
    if (!m)
      throw std::runtime_error("unknown stream mode '" + item +
                               "' (values, updates, custom, messages, debug, tasks, checkpoints)");
    modes.push_back(*m);
  }
  return modes;
}

json parse_json(const std::string& text, const char* option) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string(option) + " is not valid JSON: " + e.what());
  }
}

/// The built-in graph a stored thread was run with (kept in its checkpoints' metadata).
const cli::BuiltinGraph& graph_of_thread(sp::CheckpointSaver& saver, const std::string& thread, const std::string& db) {
  auto tuple = saver.get_tuple({thread, "", std::nullopt});
  if (!tuple) throw std::runtime_error("thread '" + thread + "' has no checkpoint in " + db);
  const json& name = tuple->metadata["graph"];
  if (!name.is_string())
    throw std::runtime_error("thread '" + thread + "' in " + db + " was not run by `superstep run` (no graph name)");
  return require_graph(name.get<std::string>());
}

/// Prints each part as a JSON line, then ["final", the result] (with `__interrupt__` when the
/// run paused).
void print_run(sp::Stream stream) {
  for (const sp::StreamPart& part : stream)
    std::cout << json::array({std::string(sp::to_string(part.mode)), part.data}).dump() << std::endl;
  std::cout << json::array({"final", stream.result()}).dump() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"superstep: the LangGraph programming model in C++"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List the built-in graphs");

  auto* run = app.add_subcommand("run", "Run a built-in graph, printing each stream part as a JSON line");
  std::string run_name, input_text, modes_text = "updates,custom", thread, db = "superstep.db";
  int recursion_limit = 25;
  run->add_option("name", run_name, "Graph name (see `superstep list`)")->required();
  run->add_option("--input", input_text, "Input state as JSON (default: the graph's example input)");
  run->add_option("--stream-mode", modes_text, "Comma-separated stream modes")->capture_default_str();
  run->add_option("--recursion-limit", recursion_limit, "Maximum supersteps")->capture_default_str();
  run->add_option("--thread", thread, "Persist the run as this thread (checkpoints in --db)");
  run->add_option("--db", db, "SQLite file, or PostgreSQL connection string, for checkpoints")->capture_default_str();

  auto* resume = app.add_subcommand("resume", "Continue a stored thread (answering its interrupt with --value)");
  std::string resume_thread, value_text;
  resume->add_option("thread", resume_thread, "Thread id")->required();
  resume->add_option("--value", value_text, "Resume value as JSON (answers the pending interrupt)");
  resume->add_option("--db", db, "SQLite file, or PostgreSQL connection string, for checkpoints")->capture_default_str();
  resume->add_option("--stream-mode", modes_text, "Comma-separated stream modes")->capture_default_str();

  auto* state = app.add_subcommand("state", "Print a stored thread's current state snapshot as JSON");
  std::string state_thread;
  state->add_option("thread", state_thread, "Thread id")->required();
  state->add_option("--db", db, "SQLite file, or PostgreSQL connection string, for checkpoints")->capture_default_str();

  auto* history = app.add_subcommand("history", "Print a stored thread's snapshots, newest first, one JSON per line");
  std::string history_thread;
  std::size_t limit = 0;
  history->add_option("thread", history_thread, "Thread id")->required();
  history->add_option("--db", db, "SQLite file, or PostgreSQL connection string, for checkpoints")->capture_default_str();
  history->add_option("--limit", limit, "At most this many (0 = all)");

  auto* draw = app.add_subcommand("draw", "Print a built-in graph as Mermaid or Graphviz dot");
  std::string draw_name, format = "mermaid";
  draw->add_option("name", draw_name, "Graph name")->required();
  draw->add_option("--format", format, "mermaid or dot")->check(CLI::IsMember({"mermaid", "dot"}))->capture_default_str();

  auto* serve = app.add_subcommand("serve", "Serve the built-in graphs over the LangGraph Platform API (the SDK's server)");
  sp::server::ServerOptions server_options;
  double run_timeout = 0, grace = 10;
  serve->add_option("--db", server_options.database, "SQLite file, or PostgreSQL connection string")->capture_default_str();
  serve->add_option("--host", server_options.host, "Address to listen on")->capture_default_str();
  serve->add_option("--port", server_options.port, "Port (0: a free one)")->capture_default_str();
  serve->add_option("--api-key", server_options.api_key, "Require this x-api-key on requests")->envname("SUPERSTEP_API_KEY");
  serve->add_option("--workers", server_options.workers, "Runs executing at once")->capture_default_str();
  serve->add_option("--run-timeout", run_timeout, "Seconds after which a run ends with status timeout (0: none)");
  serve->add_flag("--exclusive-db", server_options.exclusive_database,
                  "SQLite: hold the file locked while serving (less CPU per run; no other process can read it)");
  double group_commit_ms = static_cast<double>(server_options.group_commit.count());
  serve->add_option("--group-commit", group_commit_ms,
                    "SQLite: milliseconds between commits of the grouped writes (each write is durable at once "
                    "through the redo log <db>-redo; 0: commit every write)")
      ->capture_default_str();
  serve->add_option("--grace", grace, "Seconds running runs get to reach a superstep boundary on SIGINT/SIGTERM")
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (*serve) {
    try {
      server_options.run_timeout = std::chrono::milliseconds(static_cast<long long>(run_timeout * 1000));
      server_options.grace = std::chrono::milliseconds(static_cast<long long>(grace * 1000));
      server_options.group_commit = std::chrono::milliseconds(static_cast<long long>(group_commit_ms));
      sp::server::Server server(server_options);
      for (const auto& g : cli::builtin_graphs())
        server.add_graph(g.name, [&g](const sp::CompileOptions& o) { return g.build(o); });
      if (std::getenv("OPENAI_BASE_URL") && std::getenv("SUPERSTEP_MODEL"))
        server.add_graph("agent", [](const sp::CompileOptions& o) {
          auto model = std::make_shared<sp::OpenAIChatModel>();
          sp::ReactAgentOptions agent;  // (set field by field: GCC 12 warns on the designated form)
          agent.checkpointer = o.checkpointer;
          agent.store = o.store;
          agent.name = "agent";
          return sp::create_react_agent(model, {}, agent);
        });
      server.start();
      std::cout << "superstep serve: listening on " << server.url() << " (database " << server_options.database
                << "; graphs:";
      for (const auto& g : cli::builtin_graphs()) std::cout << " " << g.name;
      if (std::getenv("OPENAI_BASE_URL") && std::getenv("SUPERSTEP_MODEL")) std::cout << " agent";
      std::cout << ")" << std::endl;
      server.run();
      std::cout << "superstep serve: stopping (runs get " << grace << " s to reach a superstep boundary)" << std::endl;
      if (std::size_t left = server.shutdown()) {
        std::cout << "superstep serve: " << left << " run(s) still executing are stored as pending; the next start resumes them"
                  << std::endl;
        std::_Exit(0);
      }
      server.stop();
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "superstep serve: " << e.what() << "\n";
      return 1;
    }
  }
  try {
    if (*list) {
      for (const auto& g : cli::builtin_graphs()) std::cout << g.name << "\t" << g.description << "\n";
      return 0;
    }
    if (*draw) {
      auto graph = require_graph(draw_name).build({}).get_graph();
      std::cout << (format == "dot" ? graph.draw_dot() : graph.draw_mermaid());
      return 0;
    }
    if (*run) {
      const auto& spec = require_graph(run_name);
      json input = input_text.empty() ? spec.default_input : parse_json(input_text, "--input");
      sp::RunConfig cfg{.recursion_limit = recursion_limit};
      sp::CompileOptions opts;
      if (!thread.empty()) {
        opts.checkpointer = open_saver(db);
        cfg.thread_id = thread;
        cfg.metadata = json{{"graph", spec.name}};
      }
      auto graph = spec.build(opts);
      print_run(graph.stream(input, cfg, parse_modes(modes_text)));
      return 0;
    }
    auto saver = open_saver(db);
    if (*resume) {
      const auto& spec = graph_of_thread(*saver, resume_thread, db);
      auto graph = spec.build({.checkpointer = saver});
      sp::RunConfig cfg{.thread_id = resume_thread};
      cfg.metadata = json{{"graph", spec.name}};
      auto modes = parse_modes(modes_text);
      if (value_text.empty()) print_run(graph.stream(nullptr, cfg, modes));
      else print_run(graph.stream(sp::Command{.resume = parse_json(value_text, "--value")}, cfg, modes));
      return 0;
    }
    if (*state) {
      auto graph = graph_of_thread(*saver, state_thread, db).build({.checkpointer = saver});
      std::cout << graph.get_state({.thread_id = state_thread}).to_json().dump(2) << std::endl;
      return 0;
    }
    auto graph = graph_of_thread(*saver, history_thread, db).build({.checkpointer = saver});
    auto snapshots = graph.get_state_history({.thread_id = history_thread}, nullptr, std::nullopt,
                                             limit ? std::optional<std::size_t>(limit) : std::nullopt);
    for (const auto& s : snapshots) std::cout << s.to_json().dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "superstep: " << e.what() << "\n";
    return 1;
  }
}
