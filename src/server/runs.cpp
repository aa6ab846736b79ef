// Core: runs. Creating one (validation, multitask strategies), the queue (one run at a time per
// thread, at most `workers` executing), executing it (AsyncStream on the graph's executor,
// every part appended to the run's event log), ending it (run and thread status), cancelling.
#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "internal/ids.hpp"
#include "internal/json_text.hpp"
#include "server/core.hpp"
#include "server/wire.hpp"
#include "superstep/async_stream.hpp"
#include "superstep/executor.hpp"

namespace superstep::server {

namespace {

const std::vector<std::string> kModes = {"values", "updates",     "messages", "messages-tuple", "custom",
                                         "debug",  "tasks",       "checkpoints", "events"};

json normalize_modes(const json& m) {
  json out = json::array();
  if (m.is_null()) return json::array({"values"});
  auto check = [&](const json& v) {
    if (!v.is_string() || std::find(kModes.begin(), kModes.end(), v.get<std::string>()) == kModes.end())
      throw HttpError(422, "stream_mode " + dump_wire(v) +
                               " is not one of values, updates, messages, messages-tuple, custom, debug, tasks, checkpoints, events");
    out.push_back(v);
  };
  if (m.is_array()) {
    for (const json& v : m) check(v);
  } else {
    check(m);
  }
  if (out.empty()) out.push_back("values");
  return out;
}

std::optional<std::vector<std::string>> node_list(const json& v, const char* field) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  if (!v.is_array()) throw HttpError(422, std::string("'") + field + "' must be \"*\" or a list of node names");
  std::vector<std::string> out;
  for (const json& n : v) {
    if (!n.is_string()) throw HttpError(422, std::string("'") + field + "' must be \"*\" or a list of node names");
    out.push_back(n);
  }
  return out;
}

Destination destination(const json& g) {
  if (g.is_string()) return g.get<std::string>();
  if (g.is_object() && g.contains("node") && g["node"].is_string())
    return Send{g["node"].get<std::string>(), g.value("input", json(nullptr))};
  throw HttpError(422, "command.goto: each item must be a node name or {\"node\", \"input\"}, got " + dump_wire(g));
}

/// The engine Command of a run's `command` field.
Command to_command(const json& c) {
  Command cmd;
  if (c.contains("resume")) cmd.resume = c["resume"];
  if (c.contains("update") && !c["update"].is_null()) {
    const json& u = c["update"];
    if (u.is_object()) {
      cmd.update = u;
    } else if (u.is_array()) {
      cmd.update = json::object();
      for (const json& pair : u) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string())
          throw HttpError(422, "command.update: a list must hold [key, value] pairs, got " + dump_wire(pair));
        cmd.update[pair[0].get<std::string>()] = pair[1];
      }
    } else {
      throw HttpError(422, "command.update must be an object or a list of [key, value] pairs");
    }
  }
  if (c.contains("goto") && !c["goto"].is_null()) {
    std::vector<Destination> items;
    if (c["goto"].is_array())
      for (const json& g : c["goto"]) items.push_back(destination(g));
    else
      items.push_back(destination(c["goto"]));
    cmd.go_to = Route(std::move(items));
  }
  return cmd;
}

bool has_command(const json& kwargs) {
  const json& c = kwargs["command"];
  return c.is_object() && (c.contains("resume") || (c.contains("update") && !c["update"].is_null()) ||
                           (c.contains("goto") && !c["goto"].is_null()));
}

}  // namespace

// --- creating --------------------------------------------------------------------------------

namespace {

/// What create_run reads from a run's body, checked before anything exists. A field read only
/// later, once the run is queued, running or ending, must not be able to throw there: a number
/// for `durability` once left the thread busy for good (the run's start threw, after the run
/// was queued), one for `on_completion` ended the process (its run's end threw), one for
/// `on_disconnect` got a 422 for a run that was created and ran. Absent or null: the default.
struct RunRequest {
  json modes;
  std::optional<std::vector<std::string>> before, after;
  double after_seconds = 0;
  std::string strategy, durability, on_disconnect, on_completion, if_not_exists;
  bool stream_subgraphs = false, stream_resumable = false;
};

RunRequest parse_run_request(const json& body, bool thread_scoped) {
  if (!body.is_object()) throw HttpError(422, "run create: the body must be a JSON object");
  if (!body.contains("assistant_id") || !body["assistant_id"].is_string())
    throw HttpError(422, "run create: 'assistant_id' (an assistant id or a graph id) is required");
  if (body.contains("input") && !body["input"].is_null() && !body["input"].is_object())
    throw HttpError(422, "run create: 'input' must be an object or null");
  if (body.contains("command") && !body["command"].is_null()) {
    if (!body["command"].is_object()) throw HttpError(422, "run create: 'command' must be an object");
    to_command(body["command"]);  // validates
  }
  auto option = [&](const char* key, std::string fallback, std::initializer_list<const char*> allowed) {
    if (!body.contains(key) || body[key].is_null()) return fallback;
    const json& v = body[key];
    std::string names;
    for (const char* a : allowed) {
      if (v.is_string() && v == a) return std::string(a);
      names += names.empty() ? a : std::string(", ") + a;
    }
    throw HttpError(422, "'" + std::string(key) + "' must be one of " + names);
  };
  auto flag = [&](const char* key) {
    if (!body.contains(key) || body[key].is_null()) return false;
    if (!body[key].is_boolean()) throw HttpError(422, "'" + std::string(key) + "' must be true or false");
    return body[key].get<bool>();
  };
  RunRequest r;
  r.strategy = option("multitask_strategy", "reject", {"reject", "interrupt", "rollback", "enqueue"});
  r.modes = normalize_modes(body.contains("stream_mode") ? body["stream_mode"] : json(nullptr));
  r.before = node_list(body.value("interrupt_before", json(nullptr)), "interrupt_before");
  r.after = node_list(body.value("interrupt_after", json(nullptr)), "interrupt_after");
  if (body.contains("after_seconds") && !body["after_seconds"].is_null()) {
    if (!body["after_seconds"].is_number() || body["after_seconds"].get<double>() < 0)
      throw HttpError(422, "'after_seconds' must be a non-negative number");
    // It becomes nanoseconds of the steady clock (an int64: 292 years); past that the conversion
    // would be undefined behaviour.
    if (body["after_seconds"].get<double>() > 1e9) throw HttpError(422, "'after_seconds' must be at most 1000000000 (31 years)");
    r.after_seconds = body["after_seconds"].get<double>();
  }
  r.durability = option("durability", "sync", {"sync", "async", "exit"});
  r.on_disconnect = option("on_disconnect", "continue", {"continue", "cancel"});
  r.on_completion = option("on_completion", thread_scoped ? "keep" : "delete", {"delete", "keep"});
  r.if_not_exists = option("if_not_exists", "reject", {"reject", "create"});
  r.stream_subgraphs = flag("stream_subgraphs");
  r.stream_resumable = flag("stream_resumable");
  return r;
}

}  // namespace

void Core::check_run_body(const json& body, bool thread_scoped) { (void)parse_run_request(body, thread_scoped); }

Core::Created Core::create_run(const std::optional<std::string>& thread_id, const json& body) {
  const RunRequest rq = parse_run_request(body, thread_id.has_value());
  const json& input = body.contains("input") ? body["input"] : json(nullptr);
  const std::string& strategy = rq.strategy;
  const double after_seconds = rq.after_seconds;
  json config = body.contains("config") && body["config"].is_object() ? body["config"] : json::object();
  json context = body.contains("context") && body["context"].is_object() ? body["context"] : json::object();
  json metadata = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json::object();

  std::unique_lock lock(mutex_);
  if (shutting_down_) throw HttpError(503, "the server is shutting down");
  const json& assistant = resolve_assistant(body["assistant_id"].get<std::string>());
  std::string tid;
  bool temporary = !thread_id;
  json* existing = nullptr;  // the thread's record, changed only once the run's record is stored
  if (thread_id) {
    tid = *thread_id;
    if (!is_uuid(tid)) throw HttpError(422, "thread_id '" + tid + "' is not a UUID");
    if (auto t = threads_.find(tid); t != threads_.end()) existing = &t->second;
    else if (rq.if_not_exists != "create")
      throw HttpError(404, "Thread with ID " + tid + " not found");
  } else {
    tid = new_uuid();
  }
  std::vector<std::string> inflight;
  if (auto ts = thread_slots_.find(tid); ts != thread_slots_.end()) {
    inflight.assign(ts->second.pending.begin(), ts->second.pending.end());
    if (!ts->second.running.empty()) inflight.push_back(ts->second.running);
  }
  if (!inflight.empty() && strategy == "reject")
    throw HttpError(422, "Thread " + tid + " is already running a task. Wait for it to finish or choose a different multitask strategy.");
  const bool changed = !existing || !names_assistant(*existing, assistant);

  std::string rid = new_uuid();
  std::string now = now_iso();
  // A delayed run is created in the future, as the reference server makes it: the record keeps
  // its start time through a restart (Core::open).
  std::string created = now;
  if (after_seconds > 0) {
    auto at = std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::microseconds>(
                                                     std::chrono::duration<double>(after_seconds));
    created = internal::iso8601_utc(
        std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count(), 3);
  }
  // Built field by field (json's initializer lists copy every pair through a temporary array).
  json kwargs = json::object();
  {
    json::object_t& k = kwargs.get_ref<json::object_t&>();
    k.emplace("input", input);
    k.emplace("command", body.value("command", json(nullptr)));
    k.emplace("config", deep_merge(assistant["config"], config));
    k.emplace("context", deep_merge(assistant["context"], context));
    k.emplace("stream_mode", rq.modes);
    k.emplace("stream_subgraphs", rq.stream_subgraphs);
    k.emplace("stream_resumable", rq.stream_resumable);
    k.emplace("interrupt_before", rq.before ? json(*rq.before) : json(nullptr));
    k.emplace("interrupt_after", rq.after ? json(*rq.after) : json(nullptr));
    k.emplace("checkpoint_id", body.value("checkpoint_id", json(nullptr)));
    k.emplace("checkpoint", body.value("checkpoint", json(nullptr)));
    k.emplace("on_disconnect", rq.on_disconnect);
    k.emplace("on_completion", rq.on_completion);
    k.emplace("durability", rq.durability);
    k.emplace("webhook", body.value("webhook", json(nullptr)));
    k.emplace("temporary", temporary);
  }
  auto slot = std::make_shared<RunSlot>();
  slot->doc = json::object();
  {
    json::object_t& d = slot->doc.get_ref<json::object_t&>();
    d.emplace("run_id", rid);
    d.emplace("thread_id", tid);
    d.emplace("assistant_id", assistant["assistant_id"]);
    d.emplace("status", "pending");
    d.emplace("metadata", std::move(metadata));
    d.emplace("multitask_strategy", strategy);
    d.emplace("created_at", created);
    d.emplace("updated_at", now);
    d.emplace("kwargs", std::move(kwargs));
    d.emplace("attempt", 1);
  }
  // The thread's record as this run leaves it, when that differs from the stored one (a new
  // thread, another graph or assistant). Stored with the run's record as one unit of storage
  // work (on SQLite one transaction): a process killed between two commits left a pending run
  // whose thread named no graph, so read as never run, and a client started the run again on
  // top of what it had done (torture found it; Core::open repairs that on PostgreSQL).
  json fresh;
  if (changed) {
    fresh = existing ? *existing : new_thread_record(tid, now, json::object());
    adopt_assistant(fresh, assistant);
    fresh["status"] = "busy";
    fresh["updated_at"] = now;
  }
  // The run exists once its record is stored, and not before: the SDK retries every 5xx, POSTs
  // included, so a failure here must leave nothing behind (no listed or pending run, no new
  // thread, the thread not busy, no in-flight run cancelled) for the retry to make the one run.
  saver_->batch([&] {
    save_run(slot->doc);
    // `busy` alone is not stored: a start-up makes every thread with a pending run busy.
    if (changed) try {
        save_thread(fresh);
      } catch (const std::exception& e) {  // the run is stored: it runs, and its end stores the thread
        log_line("thread " + tid + ": cannot store its record: " + e.what());
      }
  });
  if (strategy == "interrupt" || strategy == "rollback")
    for (const auto& id : inflight)
      if (auto it = runs_.find(id); it != runs_.end()) cancel_locked(it->second, strategy);
  if (!existing) existing = &(threads_[tid] = std::move(fresh));  // (a new thread is `changed`)
  json& thread = *existing;
  adopt_assistant(thread, assistant);
  thread["status"] = "busy";
  thread["updated_at"] = now;
  slot->log = std::make_shared<EventLog>(0);
  slot->not_before = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(after_seconds));
  runs_[rid] = slot;
  enqueue_locked(slot);
  log_line("run " + rid + " created on thread " + tid + " (graph " + assistant["graph_id"].get<std::string>() + ")");
  json as_created = slot->doc;  // answered as created, `pending`, as the reference (it may start at once below)
  schedule_locked();
  if (after_seconds > 0)
    arm_timer(slot->not_before, [this] {
      std::lock_guard l(mutex_);
      schedule_locked();
    });
  return {std::move(as_created), slot->log};
}

void Core::enqueue_locked(const std::shared_ptr<RunSlot>& run) {
  std::string rid = run->doc["run_id"];
  thread_slots_[run->doc["thread_id"].get<std::string>()].pending.push_back(rid);
  queue_.push_back(rid);
}

void Core::schedule_locked() {
  if (shutting_down_) return;
  auto now = std::chrono::steady_clock::now();
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (executing_ >= options_.workers) return;
    auto r = runs_.find(*it);
    if (r == runs_.end() || r->second->doc["status"] != "pending") {
      it = queue_.erase(it);
      continue;
    }
    auto& slot = r->second;
    auto& tslot = thread_slots_[slot->doc["thread_id"].get<std::string>()];
    if (!tslot.running.empty() || tslot.pending.empty() || tslot.pending.front() != *it || slot->not_before > now) {
      ++it;
      continue;
    }
    it = queue_.erase(it);
    start_locked(slot);
  }
}

void Core::arm_timer(std::chrono::steady_clock::time_point when, std::function<void()> fn) {
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, when);
  timer->async_wait([timer, fn = std::move(fn)](const boost::system::error_code& ec) {
    if (!ec) fn();
  });
}

// --- executing -------------------------------------------------------------------------------

void Core::start_locked(const std::shared_ptr<RunSlot>& run) {
  json& doc = run->doc;
  std::string rid = doc["run_id"], tid = doc["thread_id"];
  auto& tslot = thread_slots_[tid];
  tslot.pending.pop_front();
  tslot.running = rid;
  ++executing_;
  doc["status"] = "running";  // not stored: a restart tells a started run by its checkpoints
  doc["updated_at"] = now_iso();
  if (tslot.stream) run->log->mirror_to(tslot.stream);
  run->log->append("metadata", internal::dump_json(json{{"run_id", rid}, {"attempt", run->attempt}}));

  const json& kw = doc["kwargs"];
  RunConfig cfg;
  cfg.thread_id = tid;
  cfg.run_id = rid;
  const json& config = kw["config"];
  if (config.contains("recursion_limit") && config["recursion_limit"].is_number_integer())
    cfg.recursion_limit = config["recursion_limit"];
  if (config.contains("configurable") && config["configurable"].is_object()) cfg.configurable = config["configurable"];
  cfg.context = kw["context"];
  const json& assistant = assistants_.count(doc["assistant_id"]) ? assistants_[doc["assistant_id"]] : json::object();
  // (The thread's metadata is the client's to PATCH: read so that no value there can throw here,
  // where the run is already marked running.)
  std::string graph_id = string_at(assistant, "graph_id");
  if (graph_id.empty()) graph_id = string_at(threads_[tid]["metadata"], "graph_id");
  // Checkpoint metadata as the reference server writes it: the assistant's and the thread's
  // metadata under the run's own, the run's scalar `configurable` values, then the graph and
  // assistant, so history filters by any of them find the run's checkpoints.
  cfg.metadata = json::object();
  for (const json* m : {&assistant, static_cast<const json*>(&threads_[tid])})
    if (m->contains("metadata") && (*m)["metadata"].is_object())
      for (const auto& [k, v] : (*m)["metadata"].items()) cfg.metadata[k] = v;
  if (doc["metadata"].is_object())
    for (const auto& [k, v] : doc["metadata"].items()) cfg.metadata[k] = v;
  if (cfg.configurable.is_object())
    for (const auto& [k, v] : cfg.configurable.items())
      if (k.rfind("__", 0) != 0 && (v.is_string() || v.is_number() || v.is_boolean()) && !cfg.metadata.contains(k))
        cfg.metadata[k] = v;
  cfg.metadata["graph_id"] = graph_id;
  cfg.metadata["assistant_id"] = doc["assistant_id"];
  std::string durability = kw.value("durability", std::string("sync"));
  cfg.durability = durability == "exit" ? Durability::exit : durability == "async" ? Durability::async : Durability::sync;
  cfg.stop = run->stop.get_token();
  cfg.subgraphs = kw.value("stream_subgraphs", false);
  if (kw["interrupt_before"].is_array()) cfg.interrupt_before = kw["interrupt_before"].get<std::vector<std::string>>();
  if (kw["interrupt_after"].is_array()) cfg.interrupt_after = kw["interrupt_after"].get<std::vector<std::string>>();
  if (kw["checkpoint_id"].is_string()) cfg.checkpoint_id = kw["checkpoint_id"].get<std::string>();
  if (kw["checkpoint"].is_object()) {
    const json& c = kw["checkpoint"];
    if (c.contains("checkpoint_id") && c["checkpoint_id"].is_string()) cfg.checkpoint_id = c["checkpoint_id"].get<std::string>();
    if (c.contains("checkpoint_ns") && c["checkpoint_ns"].is_string()) cfg.checkpoint_ns = c["checkpoint_ns"];
  }
  bool resume_own = false;
  if (run->attempt > 1) {
    // Executed before (the last process stopped during it): continue from its own checkpoint.
    if (auto latest = saver_->get_tuple({tid, "", std::nullopt}))
      resume_own = string_at(latest->metadata, "run_id") == rid;
    if (resume_own) cfg.checkpoint_id.reset();
  }
  std::vector<StreamMode> modes = {StreamMode::values};
  for (const json& m : kw["stream_mode"]) {
    std::string name = m;
    if (name == "messages-tuple" || name == "messages") name = "messages";
    if (auto mode = parse_stream_mode(name); mode && *mode != StreamMode::values) modes.push_back(*mode);
  }
  if (options_.run_timeout.count() > 0)
    arm_timer(std::chrono::steady_clock::now() + options_.run_timeout, [this, run] {
      std::lock_guard l(mutex_);
      if (!run->done()) {
        run->timed_out = true;
        run->stop.request_stop();
      }
    });
  log_line("run " + rid + " started (attempt " + std::to_string(run->attempt) + ")");
  auto job = [this, run, graph_id, cfg = std::move(cfg), modes = std::move(modes), resume_own]() mutable {
    std::optional<CompiledStateGraph> graph;
    try {
      graph = graph_for(graph_id, run->doc["kwargs"]["config"], run->doc["kwargs"]["context"]);
    } catch (...) {
      finish(run, std::current_exception());
      return;
    }
    internal::start_detached(drive(run, std::move(*graph), std::move(cfg), std::move(modes), resume_own),
                             [this, run](std::exception_ptr e) { finish(run, e); });
  };
  // SQLite: on the HTTP threads, so the request that made the run is answered from the thread it
  // arrived on, with no wake-up of another thread between (io_threads.hpp). PostgreSQL: on the
  // pool, whose threads overlap the saves' round trips to the database (one HTTP thread waiting
  // on each in turn did 28 % fewer runs per second at 16 clients).
  if (start_on_io_) io_threads_.post_run(std::move(job));
  else ThreadPool::shared()->submit(std::move(job));
}

Task<void> Core::drive(std::shared_ptr<RunSlot> run, CompiledStateGraph graph, RunConfig config,
                       std::vector<StreamMode> modes, bool resume_own) {
  const json& kw = run->doc["kwargs"];
  AsyncStream stream = resume_own || !has_command(kw) ? graph.astream(resume_own ? json(nullptr) : kw["input"], config, modes)
                                                      : graph.astream(to_command(kw["command"]), config, modes);
  while (std::optional<StreamPart> part = co_await stream.next()) emit(*run, *part);
}

void Core::finish(const std::shared_ptr<RunSlot>& run, std::exception_ptr error) {
  std::string status = "success";
  std::optional<std::string> error_text;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const RunCancelledError&) {
      status = run->timed_out ? "timeout" : run->stopping_for_shutdown ? "pending" : "interrupted";
    } catch (const HttpError& e) {
      status = "error";
      run->error = json{{"error", "ValueError"}, {"message", e.what()}};
    } catch (const NodeError& e) {
      // Named after what the node threw (its message keeps the node, step and task).
      // (The log line keeps the node, step and task: e.what().)
      status = "error";
      std::string name = "Error", message = e.what();
      try {
        if (e.cause()) std::rethrow_exception(e.cause());
      } catch (const std::exception& cause) {
        name = error_name(cause);
        message = cause.what();
      } catch (...) {
      }
      run->error = json{{"error", name}, {"message", message}};
      log_line("run " + run->doc["run_id"].get<std::string>() + ": " + e.what());
    } catch (const std::exception& e) {
      status = "error";
      run->error = json{{"error", error_name(e)}, {"message", e.what()}};
    } catch (...) {
      status = "error";
      run->error = json{{"error", "Error"}, {"message", "unknown error"}};
    }
    if (status == "error") {
      error_text = run->error["message"].get<std::string>();
      run->log->append("error", dump_wire(run->error));
    }
  }
  std::string rid = run->doc["run_id"], tid = run->doc["thread_id"];
  bool delete_thread_after = false;
  bool save_ended = false;
  bool rollback;
  {
    std::lock_guard lock(mutex_);
    rollback = run->cancel_action == "rollback";
  }
  if (rollback) {
    // The run's record goes first: a process stopped between the two leaves checkpoints of a run
    // that is gone, where the other order left a pending run with no checkpoints, which the
    // next start would have run again from its input although it was cancelled.
    {
      std::lock_guard lock(mutex_);
      try {
        records_->remove("runs", rid);
      } catch (const std::exception& e) {
        log_line("run " + rid + ": cannot store its deletion: " + e.what());
      }
    }
    // The thread reads as before the run: its checkpoints and writes go (docs/persistence.md).
    try {
      saver_->delete_run_checkpoints(tid, rid);
    } catch (const std::exception& e) {
      log_line("run " + rid + ": rollback could not delete its checkpoints: " + e.what());
    }
  }
  {
    std::lock_guard lock(mutex_);
    auto& tslot = thread_slots_[tid];
    if (tslot.running == rid) tslot.running.clear();
    // Storage failures below are logged, not thrown: the run has ended (finish runs as its
    // completion, where an exception would end the process). A run whose end is not stored
    // reads as pending to the next start, which finishes it from its checkpoints.
    auto stored = [&](const char* what, const std::function<void()>& write) {
      try {
        write();
      } catch (const std::exception& e) {
        log_line("run " + rid + ": cannot store " + what + ": " + e.what());
      }
    };
    if (rollback) {  // (its record was removed above; also when a shutdown stopped it too)
      run->doc["status"] = "interrupted";
      runs_.erase(rid);
    } else if (status == "pending") {
      run->doc["status"] = "pending";
      stored("its return to pending", [&] { save_run(run->doc); });
    } else {
      run->doc["status"] = status;
      run->doc["updated_at"] = now_iso();
      if (!run->error.is_null()) run->doc["error"] = run->error;  // for joins once it left memory
      save_ended = true;  // with its thread's record, below
    }
    json* thread = nullptr;
    if (status != "pending" || rollback) {
      auto t = threads_.find(tid);
      if (t != threads_.end()) {
        refresh_thread_locked(t->second, error_text, run.get(), /*save=*/false);
        thread = &t->second;
        const json& kw = run->doc["kwargs"];
        if (kw.value("temporary", false) && kw.value("on_completion", std::string("delete")) == "delete" &&
            thread_slots_[tid].pending.empty())
          delete_thread_after = true;
      }
    }
    // The run's record and its thread's: one unit of storage work (with SQLite one transaction,
    // the records being on the saver's connection: docs/server.md, "Storage").
    if (save_ended || thread)
      stored("its end", [&] {
        saver_->batch([&] {
          if (save_ended) save_run(run->doc);
          if (delete_thread_after) records_->remove("threads", tid);
          else if (thread) save_thread(*thread);
        });
      });
    if (delete_thread_after) {
      threads_.erase(tid);
      thread_slots_.erase(tid);
    }
    log_line("run " + rid + " " + status + (error_text ? ": " + *error_text : std::string()));
    if (status != "pending" && runs_.count(rid)) retire_later(run);
  }
  if (delete_thread_after) {
    try {
      saver_->delete_thread(tid);
    } catch (const std::exception& e) {
      log_line("run " + rid + ": cannot delete its temporary thread's checkpoints: " + e.what());
    }
  }
  if (auto thread_stream = run->log->mirror())
    thread_stream->append("end", internal::dump_json(json{{"run_id", rid}, {"status", run->doc["status"]}}));
  run->log->close();
  if (run->doc["kwargs"].value("stream_resumable", false) && !rollback && !delete_thread_after) {
    // Kept for rejoins with Last-Event-ID after it leaves memory, and across restarts.
    try {
      records_->put("event_logs", rid, json{{"events", run->log->to_json()}});
    } catch (const std::exception& e) {
      log_line("run " + rid + ": cannot store its event log: " + e.what());
    }
  }
  // Last: once executing_ reaches zero a shutting-down server may destroy this object.
  std::lock_guard lock(mutex_);
  --executing_;
  schedule_locked();
  idle_.notify_all();
}

// --- cancelling, reading ---------------------------------------------------------------------

void Core::cancel_locked(const std::shared_ptr<RunSlot>& run, const std::string& action) {
  if (run->done()) return;
  run->cancel_action = action;
  if (run->doc["status"] == "running") {
    run->stop.request_stop();
    return;
  }
  std::string rid = run->doc["run_id"], tid = run->doc["thread_id"];
  auto& tslot = thread_slots_[tid];
  tslot.pending.erase(std::remove(tslot.pending.begin(), tslot.pending.end(), rid), tslot.pending.end());
  queue_.erase(std::remove(queue_.begin(), queue_.end(), rid), queue_.end());
  run->doc["status"] = "interrupted";
  run->doc["updated_at"] = now_iso();
  if (action == "rollback") {
    records_->remove("runs", rid);
  } else {
    save_run(run->doc);
  }
  run->log->close();
  if (auto t = threads_.find(tid); t != threads_.end() && tslot.running.empty() && tslot.pending.empty()) {
    t->second["status"] = t->second["interrupts"].empty() ? "idle" : "interrupted";
    save_thread(t->second);
  }
  if (action == "rollback") runs_.erase(rid);
  else retire_later(run);
}

std::shared_ptr<RunSlot> Core::find_run_locked(const std::optional<std::string>& thread_id, const std::string& run_id) {
  if (!is_uuid(run_id)) throw HttpError(422, "run_id '" + run_id + "' is not a UUID");
  if (thread_id && !is_uuid(*thread_id)) throw HttpError(422, "thread_id '" + *thread_id + "' is not a UUID");
  std::shared_ptr<RunSlot> run;
  if (auto it = runs_.find(run_id); it != runs_.end()) {
    run = it->second;
  } else if (json doc = records_->get("runs", run_id); doc.is_object()) {
    // Ended a while ago: its record, and its event log if it was stored (stream_resumable).
    run = std::make_shared<RunSlot>();
    run->doc = std::move(doc);
    run->log = std::make_shared<EventLog>();
    if (json stored = records_->get("event_logs", run_id); stored.is_object()) run->log->restore(stored["events"]);
    run->log->close();
  }
  if (!run || (thread_id && run->doc["thread_id"] != *thread_id)) throw HttpError(404, "Run with ID " + run_id + " not found");
  return run;
}

std::shared_ptr<EventLog> Core::cancel_run(const std::optional<std::string>& thread_id, const std::string& run_id,
                                           const std::string& action) {
  if (action != "interrupt" && action != "rollback")
    throw HttpError(422, "action '" + action + "' is not one of interrupt, rollback");
  std::lock_guard lock(mutex_);
  auto run = find_run_locked(thread_id, run_id);
  cancel_locked(run, action);
  return run->log;
}

std::size_t Core::cancel_runs(const json& body, const std::string& action) {
  require_object(body, "runs cancel");
  if (action != "interrupt" && action != "rollback")
    throw HttpError(422, "action '" + action + "' is not one of interrupt, rollback");
  bool by_ids = body.contains("run_ids") && !body["run_ids"].is_null();
  bool by_status = body.contains("status") && !body["status"].is_null();
  if (by_ids == by_status)
    throw HttpError(422, "runs cancel: give either 'thread_id' and 'run_ids', or 'status' (pending, running or all)");
  std::vector<std::shared_ptr<RunSlot>> chosen;
  std::lock_guard lock(mutex_);
  if (by_ids) {
    if (!body.contains("thread_id") || !body["thread_id"].is_string())
      throw HttpError(422, "runs cancel: 'run_ids' needs the 'thread_id' they belong to");
    if (!body["run_ids"].is_array()) throw HttpError(422, "runs cancel: 'run_ids' must be an array of run ids");
    std::string tid = body["thread_id"];
    for (const auto& id : body["run_ids"]) {
      if (!id.is_string()) throw HttpError(422, "runs cancel: 'run_ids' must be an array of run ids");
      chosen.push_back(find_run_locked(tid, id.get<std::string>()));  // 404 names an unknown one
    }
  } else {
    const json& st = body["status"];
    if (!st.is_string() || (st != "pending" && st != "running" && st != "all"))
      throw HttpError(422, "runs cancel: 'status' must be pending, running or all");
    for (auto& [id, r] : runs_) {
      if (r->done()) continue;
      if (body.contains("thread_id") && body["thread_id"].is_string() && r->doc["thread_id"] != body["thread_id"]) continue;
      if (st == "all" || r->doc["status"] == st) chosen.push_back(r);
    }
  }
  std::size_t n = 0;
  for (auto& r : chosen)
    if (!r->done()) {
      cancel_locked(r, action);
      ++n;
    }
  return n;
}

std::shared_ptr<EventLog> Core::thread_stream(const std::string& thread_id) {
  std::lock_guard lock(mutex_);
  thread_doc(thread_id);  // 404
  auto& slot = thread_slots_[thread_id];
  if (!slot.stream) {
    slot.stream = std::make_shared<EventLog>();
    if (auto r = runs_.find(slot.running); r != runs_.end() && !r->second->done()) r->second->log->mirror_to(slot.stream);
  }
  return slot.stream;
}

std::shared_ptr<EventLog> Core::run_log(const std::optional<std::string>& thread_id, const std::string& run_id) {
  std::lock_guard lock(mutex_);
  return find_run_locked(thread_id, run_id)->log;
}

json Core::get_run(const std::optional<std::string>& thread_id, const std::string& run_id) {
  std::lock_guard lock(mutex_);
  return find_run_locked(thread_id, run_id)->doc;
}

json Core::list_runs(const std::string& thread_id, const json& query) {
  std::string status = query.value("status", std::string());
  std::lock_guard lock(mutex_);
  thread_doc(thread_id);
  std::map<std::string, json> by_id;  // stored records, then the live state of those in memory
  for (json& d : records_->find("runs", json{{"thread_id", thread_id}})) {
    std::string id = d["run_id"];
    by_id[id] = std::move(d);
  }
  for (const auto& [id, r] : runs_)
    if (r->doc["thread_id"] == thread_id) by_id[id] = r->doc;
  std::vector<const json*> docs;
  for (const auto& [id, d] : by_id)
    if (status.empty() || d["status"] == status) docs.push_back(&d);
  return page(std::move(docs), query, "created_at", nullptr);
}

void Core::retire_later(const std::shared_ptr<RunSlot>& run) {
  std::chrono::steady_clock::duration keep = std::chrono::seconds(10);
  if (run->doc["kwargs"].value("stream_resumable", false)) keep = std::chrono::hours(1);
  auto when = std::chrono::steady_clock::now() + keep;
  std::weak_ptr<RunSlot> weak = run;
  arm_timer(when, [this, weak] {
    std::lock_guard lock(mutex_);
    auto r = weak.lock();
    if (r && r->done()) runs_.erase(r->doc["run_id"].get<std::string>());
  });
}

void Core::delete_run(const std::string& thread_id, const std::string& run_id) {
  std::lock_guard lock(mutex_);
  auto run = find_run_locked(thread_id, run_id);
  if (!run->done()) throw HttpError(409, "Run " + run_id + " is " + run->doc["status"].get<std::string>() + ": cancel it first");
  records_->remove("runs", run_id);
  records_->remove("event_logs", run_id);
  runs_.erase(run_id);
  // As the reference server: the run's checkpoints go with it (the thread reads as before it).
  try {
    saver_->delete_run_checkpoints(thread_id, run_id);
  } catch (const CheckpointError& e) {
    throw HttpError(409, std::string("Run ") + run_id + " was deleted, but not its checkpoints: " + e.what());
  }
  if (auto t = threads_.find(thread_id); t != threads_.end()) refresh_thread_locked(t->second, std::nullopt);
}

json Core::wait_body(const std::string& run_id) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<RunSlot> found;
  try {
    found = find_run_locked(std::nullopt, run_id);
  } catch (const HttpError&) {
    return json::object();
  }
  RunSlot& r = *found;
  if (!r.error.is_null()) return json{{"__error__", r.error}};
  if (r.doc.contains("error") && r.doc["error"].is_object()) return json{{"__error__", r.doc["error"]}};
  if (r.has_values) return r.last_values;
  auto t = threads_.find(r.doc["thread_id"].get<std::string>());
  if (t != threads_.end() && t->second["values"].is_object()) return t->second["values"];
  return json::object();
}

std::size_t Core::shutdown(std::chrono::milliseconds grace) {
  if (crons_) crons_->stop();
  std::unique_lock lock(mutex_);
  shutting_down_ = true;
  for (auto& [id, r] : runs_)
    if (r->doc["status"] == "running") {
      r->stopping_for_shutdown = true;
      r->stop.request_stop();
    }
  idle_.wait_for(lock, grace, [&] { return executing_ == 0; });
  for (auto& [id, r] : runs_)
    if (r->doc["status"] == "running") {
      json doc = r->doc;
      doc["status"] = "pending";
      save_run(doc);  // the next start resumes it from its last checkpoint
    }
  return executing_;
}

void Core::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return executing_ == 0; });
}

}  // namespace superstep::server
