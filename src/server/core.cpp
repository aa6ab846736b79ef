// Core: opening the database, assistants, threads and their state (runs are in runs.cpp).
#include "server/core.hpp"

#include <algorithm>
#include <iostream>

#include "server/civil_time.hpp"
#include "server/server_saver.hpp"
#include "server/wire.hpp"
#include "superstep/checkpoint/postgres_saver.hpp"
#include "superstep/checkpoint/sqlite_saver.hpp"
#include "superstep/store/postgres_store.hpp"
#include "superstep/store/sqlite_store.hpp"

namespace superstep::server {

namespace {

bool is_postgres(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0 ||
         db.find("dbname=") != std::string::npos || db.find("host=") != std::string::npos;
}

}  // namespace

bool RunSlot::done() const {
  const std::string& s = doc["status"].get_ref<const std::string&>();
  return s != "pending" && s != "running";
}

Core::Core(ServerOptions options, std::vector<GraphEntry> graphs, IoThreads& threads)
    : options_(std::move(options)), graphs_(std::move(graphs)), io_threads_(threads), io_(threads.io()) {}

Core::~Core() = default;

void Core::log_line(const std::string& line) const {
  if (options_.log) std::cerr << now_iso() << " " + line + "\n" << std::flush;
}

void Core::open() {
  constexpr unsigned kServerWalPages = 4000;
  const std::string& db = options_.database;
  if (db.empty()) throw Error("server: the database is empty: give a SQLite file or a PostgreSQL connection string");
  if (is_postgres(db)) {
    start_on_io_ = false;
    saver_ = std::make_shared<ServerSaver>(std::make_shared<PostgresSaver>(db));
    store_ = std::make_shared<PostgresStore>(db);
  } else {
    // One connection for checkpoints and records: two on one file reload their page caches
    // after each other's every write (docs/perf-log/2026-11-26-server-vs-reference.md). A WAL of 4,000 pages:
    // the pages many runs rewrite are copied back once per 4,000, not per 1,000 (10,000 saved a
    // little more CPU but each copy stalled the runs longer: docs/performance.md).
    auto sqlite = std::make_shared<SqliteSaver>(
        db, SqliteSaverOptions{.exclusive = options_.exclusive_database,
                               .wal_autocheckpoint = kServerWalPages,
                               .group_commit = options_.group_commit});
    saver_ = std::make_shared<ServerSaver>(sqlite);
    store_ = std::make_shared<SqliteStore>(sqlite);
  }
  records_ = std::make_unique<Records>(store_);
  store_api_ = std::make_unique<StoreApi>(store_);
  // The records' own version (their shapes; the tables are the store's): a newer one is refused.
  constexpr int kRecordsVersion = 1;
  json meta = records_->get("meta", "schema");
  if (meta.is_object() && meta.value("version", 0) > kRecordsVersion)
    throw Error("server: the server records in '" + db + "' are version " + std::to_string(meta.value("version", 0)) +
                ", newer than this build's (" + std::to_string(kRecordsVersion) + ")");
  if (!meta.is_object()) records_->put("meta", "schema", json{{"version", kRecordsVersion}});
  crons_ = std::make_unique<Crons>(*this, *records_, options_.clock, io_, options_.cron_poll);
  CompileOptions opts{.checkpointer = saver_, .store = store_};
  for (GraphEntry& g : graphs_)
    if (g.build_once) g.fixed = g.factory(opts, json::object(), json::object());

  std::unique_lock lock(mutex_);
  for (json& a : records_->load("assistants")) {
    std::string id = a["assistant_id"];
    assistants_[id] = std::move(a);
  }
  for (const GraphEntry& g : graphs_) {
    std::string id = system_assistant_id(g.id);
    if (assistants_.count(id)) continue;
    std::string now = now_iso();
    json a = {{"assistant_id", id},   {"graph_id", g.id},     {"config", json::object()},
              {"context", json::object()}, {"metadata", {{"created_by", "system"}}},
              {"version", 1},         {"name", g.id},         {"description", nullptr},
              {"created_at", now},    {"updated_at", now}};
    store_assistant(a, version_of(a));
    assistants_[id] = std::move(a);
  }
  for (json& t : records_->load("thread_ttl")) {
    std::string id = t["thread_id"];
    ttls_[id] = std::move(t);
  }
  for (json& t : records_->load("threads")) {
    std::string id = t["thread_id"].get<std::string>();
    threads_[id] = std::move(t);
  }
  std::vector<std::shared_ptr<RunSlot>> requeue;
  for (json& r : records_->load("runs")) {
    auto slot = std::make_shared<RunSlot>();
    slot->attempt = r.value("attempt", 1);
    slot->doc = std::move(r);
    std::string status = slot->doc["status"];
    if (status == "running" || status == "pending") {
      // It was executing when the last process stopped if it stored a checkpoint: resume it.
      std::string tid = slot->doc["thread_id"];
      auto latest = saver_->get_tuple({tid, "", std::nullopt});
      if (latest && string_at(latest->metadata, "run_id") == slot->doc["run_id"]) {  // metadata: PATCHable
        slot->attempt += 1;
        slot->doc["attempt"] = slot->attempt;
      }
      slot->doc["status"] = "pending";
    }
    slot->log = std::make_shared<EventLog>(static_cast<std::int64_t>(slot->attempt - 1) << 32);
    if (json stored = records_->get("event_logs", slot->doc["run_id"]); stored.is_object())
      slot->log->restore(stored["events"]);  // what clients saw before the restart, with its ids
    if (slot->done()) continue;  // ended: served from its record when asked for
    requeue.push_back(slot);
    runs_[slot->doc["run_id"].get<std::string>()] = slot;
  }
  std::sort(requeue.begin(), requeue.end(), [](const auto& a, const auto& b) {
    return a->doc["created_at"].template get<std::string>() < b->doc["created_at"].template get<std::string>();
  });
  const std::int64_t wall_now = std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch()).count();
  for (auto& slot : requeue) {
    save_run(slot->doc);
    // A run's record and its thread's are stored together (create_run); on a store with no
    // transaction across them (PostgreSQL) a stop between the two left the thread without this
    // run's graph (or without a record): its state would read as never run. Named again here.
    std::string tid = slot->doc["thread_id"];
    auto a = assistants_.find(string_at(slot->doc, "assistant_id"));
    auto t = threads_.find(tid);
    if (t == threads_.end() || (a != assistants_.end() && !names_assistant(t->second, a->second))) {
      json& thread = t != threads_.end() ? t->second : (threads_[tid] = new_thread_record(tid, now_iso(), json::object()));
      if (a != assistants_.end()) adopt_assistant(thread, a->second);
      save_thread(thread);
      log_line("thread " + tid + ": its record did not name its pending run's graph; named again");
    }
    // A run created in the future (after_seconds) still waits out its delay.
    if (auto at = parse_iso(slot->doc["created_at"].get<std::string>()); at && *at > wall_now) {
      slot->not_before = std::chrono::steady_clock::now() + std::chrono::seconds(*at - wall_now);
      arm_timer(slot->not_before, [this] {
        std::lock_guard l(mutex_);
        schedule_locked();
      });
    }
    enqueue_locked(slot);
  }
  // Busy exactly when a run is pending.
  for (auto& [id, t] : threads_) {
    bool pending = !thread_slots_[id].pending.empty();
    if (pending && t["status"] != "busy") t["status"] = "busy";
    if (!pending && t["status"] == "busy") {
      t["status"] = "idle";
      save_thread(t);
    }
  }
  if (!requeue.empty()) log_line("resuming " + std::to_string(requeue.size()) + " run(s) left by the last process");
  schedule_locked();
  lock.unlock();
  crons_->start();
}

std::optional<std::string> Core::check_database() {
  try {
    records_->get("meta", "schema");
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

// --- records ---------------------------------------------------------------------------------

json& Core::thread_doc(const std::string& id) {
  if (!is_uuid(id)) throw HttpError(422, "thread_id '" + id + "' is not a UUID");
  auto it = threads_.find(id);
  if (it == threads_.end()) throw HttpError(404, "Thread with ID " + id + " not found");
  return it->second;
}

void Core::save_thread(const json& doc) { records_->put("threads", doc["thread_id"].get<std::string>(), doc); }

void Core::save_run(const json& doc) { records_->put("runs", doc["run_id"].get<std::string>(), doc); }

json Core::new_thread_record(const std::string& id, const std::string& now, json metadata) {
  return json{{"thread_id", id},    {"created_at", now},         {"updated_at", now},
              {"metadata", std::move(metadata)}, {"status", "idle"}, {"config", json::object()},
              {"values", nullptr}, {"interrupts", json::object()}};
}

bool Core::names_assistant(const json& thread, const json& assistant) {
  auto m = thread.find("metadata");
  return m != thread.end() && m->is_object() && m->value("graph_id", json()) == assistant["graph_id"] &&
         m->value("assistant_id", json()) == assistant["assistant_id"];
}

void Core::adopt_assistant(json& thread, const json& assistant) {
  json& meta = thread["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta["graph_id"] = assistant["graph_id"];
  meta["assistant_id"] = assistant["assistant_id"];
}

const GraphEntry& Core::graph_entry(const std::string& graph_id) const {
  for (const GraphEntry& g : graphs_)
    if (g.id == graph_id) return g;
  throw HttpError(404, "Graph '" + graph_id + "' is not served here");
}

std::string Core::assistant_id_of(const std::string& id_or_graph) const {
  if (assistants_.count(id_or_graph)) return id_or_graph;
  for (const GraphEntry& g : graphs_)
    if (g.id == id_or_graph && assistants_.count(system_assistant_id(g.id))) return system_assistant_id(g.id);
  return id_or_graph;  // the caller answers 404
}

const json& Core::resolve_assistant(const std::string& id_or_graph) {
  auto it = assistants_.find(id_or_graph);
  if (it != assistants_.end()) return it->second;
  for (const GraphEntry& g : graphs_)
    if (g.id == id_or_graph)
      if (auto s = assistants_.find(system_assistant_id(g.id)); s != assistants_.end()) return s->second;
  throw HttpError(404, "Assistant " + id_or_graph + " not found");
}

CompiledStateGraph Core::graph_for(const std::string& graph_id, const json& config, const json& context) {
  const GraphEntry& g = graph_entry(graph_id);
  if (g.fixed) return *g.fixed;
  CompileOptions opts{.checkpointer = saver_, .store = store_};
  return g.factory(opts, config, context);
}

CompiledStateGraph Core::graph_of_thread(const json& thread) {
  std::string graph_id = string_at(thread["metadata"], "graph_id");  // the client's to PATCH
  if (graph_id.empty())
    throw HttpError(409, "Thread " + thread["thread_id"].get<std::string>() + " has no graph yet: run it first");
  return graph_for(graph_id, json::object(), json::object());
}

// --- assistants ------------------------------------------------------------------------------

json Core::version_of(const json& a) {
  json v = a;
  v.erase("updated_at");
  return v;
}

json Core::create_assistant(const json& body) {
  require_object(body, "assistants create");
  if (!body.contains("graph_id") || !body["graph_id"].is_string())
    throw HttpError(422, "assistants create: 'graph_id' (a graph this server serves) is required");
  std::string graph_id = body["graph_id"];
  graph_entry(graph_id);  // 404 when not served
  std::string id = body.contains("assistant_id") && body["assistant_id"].is_string() ? body["assistant_id"].get<std::string>() : new_uuid();
  if (!is_uuid(id)) throw HttpError(422, "assistant_id '" + id + "' is not a UUID");
  auto obj = [&](const char* key) { return body.contains(key) && body[key].is_object() ? body[key] : json::object(); };
  std::lock_guard lock(mutex_);
  if (auto it = assistants_.find(id); it != assistants_.end()) {
    if (body.value("if_exists", std::string("raise")) == "do_nothing") return it->second;
    throw HttpError(409, "Assistant " + id + " already exists");
  }
  std::string now = now_iso();
  std::string name = body.contains("name") && body["name"].is_string() && !body["name"].get_ref<const std::string&>().empty()
                         ? body["name"].get<std::string>() : std::string("Untitled");  // as the reference
  json a = {{"assistant_id", id},        {"graph_id", graph_id},   {"config", obj("config")},
            {"context", obj("context")}, {"metadata", obj("metadata")}, {"version", 1},
            {"name", name},              {"description", body.value("description", json(nullptr))},
            {"created_at", now},         {"updated_at", now}};
  store_assistant(a, version_of(a));
  return assistants_[id] = std::move(a);
}

void Core::store_assistant(const json& assistant, const json& version) {
  // The version first, then the assistant: an answer of 500 (which the SDK retries) leaves no
  // assistant record ahead of memory, and the version it stored is taken back where it can be.
  std::string id = assistant["assistant_id"], key = id + ":" + std::to_string(assistant["version"].get<int>());
  records_->put("assistant_versions", key, version);
  try {
    records_->put("assistants", id, assistant);
  } catch (...) {
    try {
      records_->remove("assistant_versions", key);
    } catch (const std::exception& e) {
      log_line("assistant " + id + ": cannot take back version record " + key + ": " + e.what());
    }
    throw;
  }
}

json Core::patch_assistant(const std::string& id_or_graph, const json& body) {
  require_object(body, "assistant update");
  std::lock_guard lock(mutex_);
  const std::string id = assistant_id_of(id_or_graph);
  auto it = assistants_.find(id);
  if (it == assistants_.end()) throw HttpError(404, "Assistant " + id + " not found");
  json a = it->second;  // in memory once stored
  if (body.contains("graph_id") && body["graph_id"].is_string()) {
    graph_entry(body["graph_id"]);
    a["graph_id"] = body["graph_id"];
  }
  for (const char* key : {"config", "context"})
    if (body.contains(key) && body[key].is_object()) a[key] = body[key];
  if (body.contains("metadata") && body["metadata"].is_object())
    for (auto m = body["metadata"].begin(); m != body["metadata"].end(); ++m) a["metadata"][m.key()] = *m;
  if (body.contains("name") && body["name"].is_string()) a["name"] = body["name"];
  if (body.contains("description") && !body["description"].is_null()) a["description"] = body["description"];
  int latest = a.value("version", 0);  // (after setLatest the current version may be an older one)
  for (const json& v : records_->find("assistant_versions", json{{"assistant_id", id}})) latest = std::max(latest, v.value("version", 0));
  a["version"] = latest + 1;
  a["updated_at"] = now_iso();
  json v = version_of(a);
  v["created_at"] = a["updated_at"];
  store_assistant(a, v);
  return it->second = std::move(a);
}

std::string Core::delete_assistant(const std::string& id_or_graph, bool delete_threads) {
  std::vector<std::string> threads;
  std::string id;
  {
    std::lock_guard lock(mutex_);
    id = assistant_id_of(id_or_graph);
    if (!assistants_.count(id)) throw HttpError(404, "Assistant " + id + " not found");
    assistants_.erase(id);
    records_->remove("assistants", id);
    for (const json& v : records_->find("assistant_versions", json{{"assistant_id", id}}))
      records_->remove("assistant_versions", id + ":" + std::to_string(v.value("version", 0)));
    if (delete_threads)
      for (const auto& [tid, t] : threads_)
        if (t["metadata"].is_object() && t["metadata"].value("assistant_id", json()) == id) threads.push_back(tid);
  }
  crons_->remove_for("assistant_id", id);
  for (const auto& tid : threads) delete_thread(tid);
  return id;
}

json Core::assistant_versions(const std::string& id_or_graph, const json& body) {
  require_object(body, "assistant versions");
  std::string id;
  {
    std::lock_guard lock(mutex_);
    id = assistant_id_of(id_or_graph);
    if (!assistants_.count(id)) throw HttpError(404, "Assistant " + id + " not found");
  }
  std::vector<json> versions = records_->find("assistant_versions", json{{"assistant_id", id}});
  std::sort(versions.begin(), versions.end(), [](const json& a, const json& b) { return a.value("version", 0) > b.value("version", 0); });
  std::vector<const json*> hits;
  for (const json& v : versions)
    if (!body.contains("metadata") || contains(v["metadata"], body["metadata"])) hits.push_back(&v);
  json b = body;
  b["sort_by"] = "version";
  return page(std::move(hits), b, "version", nullptr);
}

json Core::set_latest_assistant(const std::string& id_or_graph, const json& body) {
  require_object(body, "assistant latest");
  if (!body.contains("version") || !body["version"].is_number_integer())
    throw HttpError(422, "assistant latest: 'version' must be an integer");
  int version = body["version"];
  std::lock_guard lock(mutex_);
  const std::string id = assistant_id_of(id_or_graph);
  auto it = assistants_.find(id);
  if (it == assistants_.end()) throw HttpError(404, "Assistant " + id + " not found");
  json v = records_->get("assistant_versions", id + ":" + std::to_string(version));
  if (!v.is_object()) throw HttpError(404, "Assistant " + id + " has no version " + std::to_string(version));
  json a = it->second;  // in memory once stored
  for (const char* key : {"graph_id", "config", "context", "metadata", "name", "description", "version"})
    if (v.contains(key)) a[key] = v[key];
  a["updated_at"] = now_iso();
  records_->put("assistants", id, a);
  return it->second = std::move(a);
}

json Core::search_assistants(const json& body, std::size_t* total) {
  require_object(body, "assistants search");
  std::lock_guard lock(mutex_);
  std::vector<const json*> hits;
  for (const auto& [id, a] : assistants_) {
    if (body.contains("graph_id") && body["graph_id"].is_string() && a["graph_id"] != body["graph_id"]) continue;
    if (body.contains("name") && body["name"].is_string() &&
        !contains_ignoring_case(a.value("name", std::string()), body["name"].get<std::string>()))
      continue;
    if (body.contains("metadata") && !contains(a["metadata"], body["metadata"])) continue;
    hits.push_back(&a);
  }
  return page(std::move(hits), body, "created_at", total);
}

json Core::count_assistants(const json& body) {
  std::size_t total = 0;
  search_assistants(count_query(body), &total);
  return total;
}

json Core::get_assistant(const std::string& id) {
  std::lock_guard lock(mutex_);
  return resolve_assistant(id);
}

std::pair<std::string, CompiledStateGraph> Core::graph_of_assistant(const std::string& id) {
  std::string graph_id;
  {
    std::lock_guard lock(mutex_);
    graph_id = resolve_assistant(id)["graph_id"];
  }
  return {graph_id, graph_for(graph_id, json::object(), json::object())};
}

json Core::assistant_graph(const std::string& id, int xray) { return graph_wire(graph_of_assistant(id).second.get_graph(xray)); }

json Core::assistant_schemas(const std::string& id) {
  auto [graph_id, graph] = graph_of_assistant(id);
  return graph_schema_wire(graph_id, graph);
}

json Core::assistant_subgraphs(const std::string& id, const std::string& ns, bool recurse) {
  json out = json::object();
  for (const auto& [name, sub] : graph_of_assistant(id).second.get_subgraphs(ns, recurse))
    out[name] = graph_schema_wire(sub.name(), sub);
  return out;
}

// --- threads ---------------------------------------------------------------------------------


json Core::get_thread(const std::string& id) {
  std::lock_guard lock(mutex_);
  return thread_doc(id);
}

json Core::search_threads(const json& body, std::size_t* total) {
  require_object(body, "threads search");
  std::lock_guard lock(mutex_);
  std::vector<const json*> hits;
  std::vector<std::string> ids;
  if (body.contains("ids") && body["ids"].is_array())
    for (const auto& i : body["ids"])
      if (i.is_string()) ids.push_back(i);
  for (const auto& [id, t] : threads_) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
    if (body.contains("status") && body["status"].is_string() && t["status"] != body["status"]) continue;
    if (body.contains("metadata") && !contains(t["metadata"], body["metadata"])) continue;
    if (body.contains("values") && body["values"].is_object() && !contains(t["values"], body["values"])) continue;
    hits.push_back(&t);
  }
  return page(std::move(hits), body, "created_at", total);
}

json Core::count_threads(const json& body) {
  std::size_t total = 0;
  search_threads(count_query(body), &total);
  return total;
}


void Core::delete_thread(const std::string& id) {
  std::vector<std::string> run_ids;
  {
    std::lock_guard lock(mutex_);
    thread_doc(id);
    auto& slot = thread_slots_[id];
    for (auto& [rid, r] : runs_)
      if (r->doc["thread_id"] == id) {
        if (!r->done()) cancel_locked(r, "interrupt");
        run_ids.push_back(rid);
      }
    for (const json& r : records_->find("runs", json{{"thread_id", id}})) run_ids.push_back(r["run_id"]);
    (void)slot;
    for (const auto& rid : run_ids) {
      records_->remove("runs", rid);
      records_->remove("event_logs", rid);
      runs_.erase(rid);
    }
    records_->remove("threads", id);
    if (ttls_.erase(id)) records_->remove("thread_ttl", id);
    threads_.erase(id);
    if (slot.stream) slot.stream->close();
    thread_slots_.erase(id);
  }
  crons_->remove_for("thread_id", id);
  saver_->delete_thread(id);
}



// --- thread state ----------------------------------------------------------------------------

json Core::thread_state(const std::string& id, const std::optional<std::string>& checkpoint_id,
                        const std::string& checkpoint_ns, bool subgraphs) {
  json thread;
  {
    std::lock_guard lock(mutex_);
    thread = thread_doc(id);
  }
  if (!thread["metadata"].is_object() || !thread["metadata"].contains("graph_id")) return empty_state_wire();
  auto graph = graph_of_thread(thread);
  RunConfig cfg{.thread_id = id, .checkpoint_id = checkpoint_id, .checkpoint_ns = checkpoint_ns};
  try {
    return state_wire(graph.get_state(cfg, subgraphs));
  } catch (const CheckpointError& e) {
    throw HttpError(404, e.what());
  }
}

json Core::thread_history(const std::string& id, const json& body) {
  require_object(body, "thread history");
  json thread;
  {
    std::lock_guard lock(mutex_);
    thread = thread_doc(id);
  }
  if (!thread["metadata"].is_object() || !thread["metadata"].contains("graph_id")) return json::array();
  auto graph = graph_of_thread(thread);
  RunConfig cfg{.thread_id = id};
  if (body.contains("checkpoint") && body["checkpoint"].is_object()) {
    const json& c = body["checkpoint"];
    if (c.contains("checkpoint_id") && c["checkpoint_id"].is_string()) cfg.checkpoint_id = c["checkpoint_id"].get<std::string>();
    if (c.contains("checkpoint_ns") && c["checkpoint_ns"].is_string()) cfg.checkpoint_ns = c["checkpoint_ns"];
  }
  std::optional<std::string> before;
  if (body.contains("before")) {
    const json& b = body["before"];
    if (b.is_string()) before = b.get<std::string>();
    else if (b.is_object() && b.contains("checkpoint_id") && b["checkpoint_id"].is_string()) before = b["checkpoint_id"].get<std::string>();
    else if (b.is_object() && b.contains("configurable") && b["configurable"].is_object() &&
             b["configurable"].contains("checkpoint_id"))
      before = b["configurable"]["checkpoint_id"].get<std::string>();
    else if (!b.is_null())
      throw HttpError(422, "thread history: 'before' must be a checkpoint id, a checkpoint or a config");
  }
  std::size_t limit = 10;
  if (body.contains("limit") && !body["limit"].is_null()) {
    if (!body["limit"].is_number_integer() || body["limit"].get<std::int64_t>() < 0)
      throw HttpError(422, "thread history: 'limit' must be a non-negative integer");
    limit = body["limit"].get<std::size_t>();
  }
  json filter = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json(nullptr);
  json out = json::array();
  try {
    for (const StateSnapshot& s : graph.get_state_history(cfg, filter, before, limit)) out.push_back(state_wire(s));
  } catch (const CheckpointError& e) {
    throw HttpError(404, e.what());
  }
  return out;
}

json Core::refresh_thread_locked(json& thread, const std::optional<std::string>& error, const RunSlot* run, bool save) {
  std::string id = thread["thread_id"];
  auto& slot = thread_slots_[id];
  bool busy = !slot.pending.empty() || !slot.running.empty();
  StateSnapshot s;
  bool have = false;
  if (run && !error && run->has_values && !run->paused && run->cancel_action.empty() && !run->timed_out) {
    // It ran to its end: no next, no interrupts, and its last values event is the state.
    thread["values"] = run->last_state;
    thread["interrupts"] = json::object();
  } else if (thread["metadata"].is_object() && thread["metadata"].contains("graph_id")) {
    try {
      s = graph_of_thread(thread).get_state({.thread_id = id});
      have = s.config.checkpoint_id.has_value();
    } catch (const std::exception& e) {
      log_line("thread " + id + ": cannot read its state: " + e.what());
    }
  }
  if (have) {
    thread["values"] = s.values;
    json interrupts = json::object();
    for (const PregelTask& t : s.tasks)
      if (!t.interrupts.empty()) {
        json list = json::array();
        for (const Interrupt& i : t.interrupts) list.push_back(i.to_json());
        interrupts[t.id] = std::move(list);
      }
    thread["interrupts"] = std::move(interrupts);
  }
  if (busy) thread["status"] = "busy";
  else if (error) thread["status"] = "error";
  else if (have && !s.next.empty()) thread["status"] = "interrupted";
  else thread["status"] = "idle";
  if (error) thread["error"] = *error;
  else thread.erase("error");
  thread["updated_at"] = now_iso();
  if (save) save_thread(thread);
  return thread;
}

json Core::update_state(const std::string& id, const json& body) {
  require_object(body, "thread state update");
  json thread;
  {
    std::lock_guard lock(mutex_);
    json& t = thread_doc(id);
    auto& slot = thread_slots_[id];
    if (!slot.pending.empty() || !slot.running.empty())
      throw HttpError(409, "Thread " + id + " is busy: a run is pending or running");
    thread = t;
  }
  auto graph = graph_of_thread(thread);
  RunConfig cfg{.thread_id = id};
  // As the reference: the update's checkpoint names the graph, so history filters by graph_id find it.
  cfg.metadata = json{{"graph_id", thread["metadata"]["graph_id"]}};
  if (body.contains("checkpoint_id") && body["checkpoint_id"].is_string()) cfg.checkpoint_id = body["checkpoint_id"].get<std::string>();
  if (body.contains("checkpoint") && body["checkpoint"].is_object()) {
    const json& c = body["checkpoint"];
    if (c.contains("checkpoint_id") && c["checkpoint_id"].is_string()) cfg.checkpoint_id = c["checkpoint_id"].get<std::string>();
    if (c.contains("checkpoint_ns") && c["checkpoint_ns"].is_string()) cfg.checkpoint_ns = c["checkpoint_ns"];
  }
  std::string as_node = body.contains("as_node") && body["as_node"].is_string() ? body["as_node"].get<std::string>() : "";
  json values = body.contains("values") ? body["values"] : json(nullptr);
  // A list applies its updates one checkpoint each: every one is checked first, so a bad one
  // refuses the request before any is stored (an object, or null for "no values").
  if (values.is_array())
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!values[i].is_object() && !values[i].is_null())
        throw HttpError(422, "update state: 'values'[" + std::to_string(i) + "] must be an object or null");
  auto refresh_thread = [&] {
    std::lock_guard lock(mutex_);
    auto it = threads_.find(id);
    // The update is stored: a failure to store the thread's record now must not become a 5xx,
    // which the SDK would retry, applying the update twice. The record is stored again when the
    // thread next changes.
    try {
      if (it != threads_.end()) refresh_thread_locked(it->second, std::nullopt);
    } catch (const std::exception& e) {
      log_line("thread " + id + ": state updated, but its record could not be stored: " + e.what());
    }
  };
  RunConfig out;
  std::size_t applied = 0;
  try {
    if (values.is_array()) {
      for (const json& v : values) out = graph.update_state(cfg, v, as_node), cfg.checkpoint_id = out.checkpoint_id, ++applied;
      if (values.empty()) out = graph.update_state(cfg, nullptr, as_node);
    } else {
      out = graph.update_state(cfg, values, as_node);
    }
  } catch (const CheckpointError& e) {
    if (applied > 0) refresh_thread();  // the thread reads as the updates that were stored
    throw HttpError(404, e.what());
  } catch (const Error& e) {
    if (applied > 0) refresh_thread();
    throw HttpError(422, e.what());
  }
  refresh_thread();
  return json{{"checkpoint", {{"thread_id", id}, {"checkpoint_ns", out.checkpoint_ns},
                              {"checkpoint_id", out.checkpoint_id ? json(*out.checkpoint_id) : json(nullptr)}}}};
}

json Core::patch_state(const std::string& id, const json& body) {
  require_object(body, "thread state patch");
  {
    std::lock_guard lock(mutex_);
    thread_doc(id);
  }
  if (!body.contains("metadata") || !body["metadata"].is_object())
    throw HttpError(422, "thread state patch: 'metadata' must be an object");
  CheckpointConfig c{id, "", std::nullopt};
  if (body.contains("checkpoint_id") && body["checkpoint_id"].is_string()) c.checkpoint_id = body["checkpoint_id"].get<std::string>();
  if (body.contains("checkpoint") && body["checkpoint"].is_object()) {
    const json& cp = body["checkpoint"];
    if (cp.contains("checkpoint_id") && cp["checkpoint_id"].is_string()) c.checkpoint_id = cp["checkpoint_id"].get<std::string>();
    if (cp.contains("checkpoint_ns") && cp["checkpoint_ns"].is_string()) c.checkpoint_ns = cp["checkpoint_ns"];
  }
  try {
    saver_->update_metadata(c, body["metadata"]);
  } catch (const CheckpointError& e) {
    throw HttpError(404, e.what());
  }
  return json::object();
}

}  // namespace superstep::server
