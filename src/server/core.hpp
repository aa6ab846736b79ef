// Core: the server's state and logic behind the HTTP routes: assistants, threads, runs, the run
// queue and the executing runs. Everything is JSON in the wire shapes of the LangGraph Platform
// API (../docs/server.md). One mutex guards the records; every change is written through to
// the database (records.hpp) before the request that made it is answered, so a killed server
// loses nothing it acknowledged. Runs execute on the graphs' executor as coroutines
// (AsyncStream): a run waiting on a timer or a model holds no thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/crons.hpp"
#include "server/event_log.hpp"
#include "server/io_threads.hpp"
#include "server/records.hpp"
#include "server/store_api.hpp"
#include "server/wire.hpp"
#include "superstep/checkpoint/saver.hpp"
#include "superstep/server/server.hpp"
#include "superstep/task.hpp"

namespace superstep::server {

struct GraphEntry {
  std::string id;
  GraphFactory factory;                      ///< per run (or once when build_once)
  bool build_once = false;
  std::optional<CompiledStateGraph> fixed;   ///< built once
};

/// A run while the server holds it in memory (pending, running, or ended recently).
struct RunSlot {
  json doc;                             ///< the wire Run, with "kwargs"
  std::shared_ptr<EventLog> log;
  std::stop_source stop;
  std::string cancel_action;            ///< "interrupt" / "rollback" once cancelled
  bool timed_out = false;
  bool stopping_for_shutdown = false;
  json last_values;                     ///< data of the last root `values` event
  bool has_values = false;
  json last_state;                      ///< the last root `values` event that was a state
  bool paused = false;                  ///< the last root `values` event was `__interrupt__`
  json error;                           ///< {error, message} when it failed
  // The legacy `messages` stream mode (events.cpp): messages described, completed, and the
  // chunks of each accumulated so far.
  std::set<std::string> messages_described, messages_completed;
  std::map<std::string, json> messages_partial;
  std::chrono::steady_clock::time_point not_before;
  int attempt = 1;
  bool done() const;
};

class Core {
 public:
  /// Runs start on `threads` (io_threads.hpp); its io_context serves timers and HTTP.
  Core(ServerOptions options, std::vector<GraphEntry> graphs, IoThreads& threads);
  ~Core();

  /// Opens the database, loads the records, makes the system assistants, requeues runs left
  /// pending or running.
  void open();
  /// Stops starting runs; stops executing ones at their next boundary (returned to pending).
  /// Returns once they all ended or `grace` passed: how many still execute (stored as pending).
  std::size_t shutdown(std::chrono::milliseconds grace);
  /// Returns once no run executes.
  void wait_idle();
  const ServerOptions& options() const { return options_; }
  /// The store endpoints (after open()).
  StoreApi& store_api() { return *store_api_; }
  /// The crons (after open()).
  Crons& crons() { return *crons_; }
  void log_line(const std::string& line) const;
  /// Reads from the database (GET /ok): nullopt when it answers, else what failed.
  std::optional<std::string> check_database();

  // Assistants
  json search_assistants(const json& body, std::size_t* total = nullptr);
  json get_assistant(const std::string& id);
  /// The drawing with `xray` levels of subgraphs inlined (-1: all).
  json assistant_graph(const std::string& id, int xray);
  json assistant_schemas(const std::string& id);
  /// {namespace: GraphSchema} of the graph's subgraphs (`ns`: only that one; `recurse`: nested).
  json assistant_subgraphs(const std::string& id, const std::string& ns, bool recurse);
  json count_assistants(const json& body);
  json create_assistant(const json& body);
  /// A new version: the fields given replace the assistant's (metadata is merged).
  json patch_assistant(const std::string& id, const json& body);
  /// Returns the id of the assistant deleted.
  std::string delete_assistant(const std::string& id, bool delete_threads);
  json assistant_versions(const std::string& id, const json& body);
  json set_latest_assistant(const std::string& id, const json& body);

  // Threads
  json create_thread(const json& body);
  json get_thread(const std::string& id);
  json search_threads(const json& body, std::size_t* total = nullptr);
  json count_threads(const json& body);
  json patch_thread(const std::string& id, const json& body);
  void delete_thread(const std::string& id);
  /// A new thread with the metadata (plus its own `thread_id`) and every checkpoint of `id`.
  json copy_thread(const std::string& id);
  /// `POST /threads/prune`: "delete" deletes the threads, "keep_latest" keeps only their latest
  /// checkpoint; returns `{pruned_count}`.
  json prune_threads(const json& body);
  /// Deletes (or prunes, by their strategy) the threads whose `ttl` minutes have passed since
  /// their last update at `now` (seconds since the epoch); returns how many.
  std::size_t sweep_threads(std::int64_t now);
  json thread_state(const std::string& id, const std::optional<std::string>& checkpoint_id,
                    const std::string& checkpoint_ns, bool subgraphs);
  json thread_history(const std::string& id, const json& body);
  json update_state(const std::string& id, const json& body);
  json patch_state(const std::string& id, const json& body);

  // Runs
  struct Created {
    json run;
    std::shared_ptr<EventLog> log;
  };
  /// Validates and queues a run (thread-scoped when `thread_id` is set, else stateless).
  Created create_run(const std::optional<std::string>& thread_id, const json& body);
  /// Throws the 422 create_run would for `body` (a cron's payload, checked when it is made or
  /// changed rather than each time it fires).
  static void check_run_body(const json& body, bool thread_scoped);
  json get_run(const std::optional<std::string>& thread_id, const std::string& run_id);
  /// `query`: {limit, offset, status?, select?}; newest first.
  json list_runs(const std::string& thread_id, const json& query);
  void delete_run(const std::string& thread_id, const std::string& run_id);
  /// Cancels (interrupt or rollback); returns the run's log to wait on.
  std::shared_ptr<EventLog> cancel_run(const std::optional<std::string>& thread_id, const std::string& run_id,
                                       const std::string& action);
  /// Bulk cancel (`POST /runs/cancel`): `{thread_id, run_ids}` or `{status: pending|running|all,
  /// thread_id?}`; returns how many runs it cancelled.
  std::size_t cancel_runs(const json& body, const std::string& action);
  /// The log of a run to join (404 when unknown).
  std::shared_ptr<EventLog> run_log(const std::optional<std::string>& thread_id, const std::string& run_id);
  /// The thread's stream (`GET /threads/{id}/stream`): from now on, every event of the runs on
  /// the thread, each run opened by its `metadata` event and closed by `end` {run_id, status}.
  std::shared_ptr<EventLog> thread_stream(const std::string& thread_id);
  /// The body of runs.wait / runs.join once the run ended.
  json wait_body(const std::string& run_id);

 private:
  struct ThreadSlot {
    std::deque<std::string> pending;  ///< run ids, in order
    std::string running;
    std::shared_ptr<EventLog> stream;  ///< GET /threads/{id}/stream: its runs' events (once joined)
  };

  // records (mutex held)
  json& thread_doc(const std::string& id);
  void save_thread(const json& doc);
  void save_run(const json& doc);
  /// A thread's record as it is made: idle, no values.
  static json new_thread_record(const std::string& id, const std::string& now, json metadata);
  /// Names the assistant (and its graph) in the thread's metadata, as a run on it does.
  static void adopt_assistant(json& thread, const json& assistant);
  /// Whether the thread's metadata names that assistant and its graph.
  static bool names_assistant(const json& thread, const json& assistant);
  /// Stores an assistant with its version record (the version first; taken back when the
  /// assistant's record fails). Throws what the store throws.
  void store_assistant(const json& assistant, const json& version);
  const GraphEntry& graph_entry(const std::string& graph_id) const;
  const json& resolve_assistant(const std::string& id_or_graph);
  /// The assistant id `id_or_graph` names: itself, or a served graph's system assistant (mutex_ held).
  std::string assistant_id_of(const std::string& id_or_graph) const;
  static json version_of(const json& assistant);
  CompiledStateGraph graph_for(const std::string& graph_id, const json& config, const json& context);
  CompiledStateGraph graph_of_thread(const json& thread);
  /// An assistant's (or a graph id's) graph id and its graph, built with no run's config.
  std::pair<std::string, CompiledStateGraph> graph_of_assistant(const std::string& id);
  /// The thread's values, interrupts and status after a run or an update. `run`: the run that
  /// just ended; when it ended without pausing or failing, its last state is the thread's and
  /// the checkpoint need not be read. `save`: stores the thread's record (false: the caller does).
  json refresh_thread_locked(json& thread, const std::optional<std::string>& error, const RunSlot* run = nullptr,
                             bool save = true);

  /// Sets (null: removes) a thread's time to live, {ttl: minutes, strategy}.
  void set_ttl_locked(const std::string& id, const json& ttl);

  // runs (runs.cpp)
  void enqueue_locked(const std::shared_ptr<RunSlot>& run);
  void schedule_locked();
  void start_locked(const std::shared_ptr<RunSlot>& run);
  Task<void> drive(std::shared_ptr<RunSlot> run, CompiledStateGraph graph, RunConfig config,
                   std::vector<StreamMode> modes, bool resume_own);
  void finish(const std::shared_ptr<RunSlot>& run, std::exception_ptr error);
  void cancel_locked(const std::shared_ptr<RunSlot>& run, const std::string& action);
  /// A part of the run's stream as SSE events in its log (events.cpp).
  void emit(RunSlot& run, const StreamPart& part);
  std::shared_ptr<RunSlot> find_run_locked(const std::optional<std::string>& thread_id, const std::string& run_id);
  void arm_timer(std::chrono::steady_clock::time_point when, std::function<void()> fn);
  /// After a run ended: keep it (and its event log) in memory for joins and replays, an hour
  /// when `stream_resumable`, 10 s otherwise; then only its record remains.
  void retire_later(const std::shared_ptr<RunSlot>& run);

  ServerOptions options_;
  std::vector<GraphEntry> graphs_;
  IoThreads& io_threads_;
  boost::asio::io_context& io_;
  std::shared_ptr<CheckpointSaver> saver_;
  // Runs start on the HTTP threads (SQLite: a run's stretch is CPU work), or on the graphs' pool
  // (PostgreSQL: each save waits a round trip to the database, which the pool's threads overlap).
  bool start_on_io_ = true;
  std::shared_ptr<BaseStore> store_;
  std::unique_ptr<StoreApi> store_api_;
  std::unique_ptr<Records> records_;
  std::unique_ptr<Crons> crons_;  ///< after records_: it writes through them

  mutable std::mutex mutex_;
  std::map<std::string, json> assistants_;  ///< by assistant_id
  std::unordered_map<std::string, json> threads_;
  std::unordered_map<std::string, ThreadSlot> thread_slots_;
  std::unordered_map<std::string, json> ttls_;  ///< thread id -> {ttl, strategy, pruned_at?}
  std::unordered_map<std::string, std::shared_ptr<RunSlot>> runs_;
  std::deque<std::string> queue_;  ///< pending run ids in creation order
  std::size_t executing_ = 0;
  bool shutting_down_ = false;
  std::condition_variable idle_;
};

}  // namespace superstep::server
