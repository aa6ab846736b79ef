// Core: thread administration: creating threads (with supersteps of updates and a time to
// live), patching, copying, pruning, and deleting threads whose time to live ran out.
#include <algorithm>

#include "server/civil_time.hpp"
#include "server/core.hpp"
#include "superstep/errors.hpp"

namespace superstep::server {

namespace {

/// A thread's time to live from a request: {ttl: minutes, strategy: delete|keep_latest}, a
/// number of minutes, or null (none). Returns null or {ttl, strategy}.
json parse_ttl(const json& v) {
  if (v.is_null()) return nullptr;
  json ttl = v.is_number() ? json{{"ttl", v}} : v;
  if (!ttl.is_object() || !ttl.contains("ttl") || !ttl["ttl"].is_number() || ttl["ttl"].get<double>() <= 0)
    throw HttpError(422, "thread 'ttl' must be a number of minutes (> 0) or {\"ttl\": minutes, \"strategy\": \"delete\"}");
  // Minutes become whole seconds in an int64 when threads are swept: a billion minutes (1,900
  // years) keeps that far from overflowing, which would be undefined behaviour.
  if (ttl["ttl"].get<double>() > 1e9) throw HttpError(422, "thread 'ttl' must be at most 1000000000 minutes");
  std::string strategy = ttl.value("strategy", std::string("delete"));
  if (strategy != "delete" && strategy != "keep_latest")
    throw HttpError(422, "thread ttl 'strategy' must be \"delete\" or \"keep_latest\"");
  return json{{"ttl", ttl["ttl"]}, {"strategy", strategy}};
}

/// `supersteps` of a thread create: [{updates: [{values, as_node, command?}]}].
std::vector<std::vector<StateUpdate>> parse_supersteps(const json& v) {
  if (!v.is_array()) throw HttpError(422, "threads create: 'supersteps' must be an array of {updates: [...]}");
  std::vector<std::vector<StateUpdate>> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& step = v[i];
    std::string at = "threads create: supersteps[" + std::to_string(i) + "]";
    if (!step.is_object() || !step.contains("updates") || !step["updates"].is_array() || step["updates"].empty())
      throw HttpError(422, at + " must be {updates: [{values, as_node}, ...]} with at least one update");
    std::vector<StateUpdate> updates;
    for (std::size_t j = 0; j < step["updates"].size(); ++j) {
      const json& u = step["updates"][j];
      std::string where = at + ".updates[" + std::to_string(j) + "]";
      if (!u.is_object() || !u.contains("as_node") || !u["as_node"].is_string())
        throw HttpError(422, where + ": 'as_node' (the node the values come from) is required");
      json values = u.contains("values") ? u["values"] : json(nullptr);
      if (u.contains("command") && u["command"].is_object() && u["command"].contains("update")) values = u["command"]["update"];
      updates.push_back({values, u["as_node"].get<std::string>()});
    }
    out.push_back(std::move(updates));
  }
  return out;
}

}  // namespace

json Core::create_thread(const json& body) {
  require_object(body, "threads create");
  std::string id = body.contains("thread_id") && body["thread_id"].is_string() ? body["thread_id"].get<std::string>() : new_uuid();
  if (!is_uuid(id)) throw HttpError(422, "thread_id '" + id + "' is not a UUID");
  json metadata = body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json::object();
  json ttl = parse_ttl(body.contains("ttl") ? body["ttl"] : json(nullptr));
  std::vector<std::vector<StateUpdate>> supersteps;
  if (body.contains("supersteps") && !body["supersteps"].is_null()) supersteps = parse_supersteps(body["supersteps"]);
  {
    std::lock_guard lock(mutex_);
    auto it = threads_.find(id);
    if (it != threads_.end()) {
      if (body.value("if_exists", std::string("raise")) == "do_nothing") return it->second;
      throw HttpError(409, "Thread with ID " + id + " already exists");
    }
  }
  if (!supersteps.empty()) {
    // The updates are applied before the thread exists: a bad one creates nothing.
    if (!metadata.contains("graph_id") || !metadata["graph_id"].is_string())
      throw HttpError(422, "threads create: 'supersteps' need the thread's graph: give metadata.graph_id");
    std::string graph_id = metadata["graph_id"];
    {
      std::lock_guard lock(mutex_);
      graph_entry(graph_id);  // 404 naming an unknown graph
    }
    try {
      graph_for(graph_id, json::object(), json::object()).bulk_update_state(RunConfig{.thread_id = id}, supersteps);
    } catch (const Error& e) {
      saver_->delete_thread(id);
      throw HttpError(422, std::string("threads create: supersteps: ") + e.what());
    }
  }
  std::lock_guard lock(mutex_);
  if (threads_.count(id)) throw HttpError(409, "Thread with ID " + id + " already exists");
  std::string now = now_iso();
  json t = new_thread_record(id, now, metadata);
  if (!supersteps.empty()) refresh_thread_locked(t, std::nullopt, nullptr, /*save=*/false);  // its values, status
  // Stored before it is visible: a failure (a 500, which the SDK retries) leaves no thread behind
  // (a TTL stored without its thread is swept as stale).
  set_ttl_locked(id, ttl);
  save_thread(t);
  return threads_[id] = std::move(t);
}

json Core::patch_thread(const std::string& id, const json& body) {
  require_object(body, "thread update");
  std::lock_guard lock(mutex_);
  json& t = thread_doc(id);
  // Checked and stored before the record in memory changes: a refused or failed update leaves
  // the thread as it was (it used to keep the metadata of a request answered 422 or 500).
  std::optional<json> ttl;
  if (body.contains("ttl")) ttl = parse_ttl(body["ttl"]);
  json next = t;
  if (body.contains("metadata")) {
    if (!body["metadata"].is_object()) throw HttpError(422, "thread update: 'metadata' must be an object");
    for (auto it = body["metadata"].begin(); it != body["metadata"].end(); ++it) next["metadata"][it.key()] = *it;
  }
  next["updated_at"] = now_iso();
  save_thread(next);
  t = std::move(next);
  if (ttl) set_ttl_locked(id, *ttl);
  return t;
}

void Core::set_ttl_locked(const std::string& id, const json& ttl) {
  if (ttl.is_null()) {
    if (ttls_.erase(id)) records_->remove("thread_ttl", id);
    return;
  }
  json doc = ttl;
  doc["thread_id"] = id;
  records_->put("thread_ttl", id, doc);
  ttls_[id] = std::move(doc);
}

std::size_t Core::sweep_threads(std::int64_t now) {
  std::vector<std::string> expired, stale;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, ttl] : ttls_) {
      auto t = threads_.find(id);
      if (t == threads_.end()) continue;
      const auto& slot = thread_slots_[id];
      if (!slot.pending.empty() || !slot.running.empty()) continue;  // busy: not idle for its ttl
      const std::string& updated = t->second["updated_at"].get_ref<const std::string&>();
      auto last = parse_iso(updated);
      if (!last || *last + static_cast<std::int64_t>(ttl["ttl"].get<double>() * 60) > now) continue;
      if (ttl["strategy"] == "delete") {
        expired.push_back(id);
      } else if (ttl.value("pruned_at", std::string()) != updated) {
        ttl["pruned_at"] = updated;  // once per quiet spell
        records_->put("thread_ttl", id, ttl);
        stale.push_back(id);
      }
    }
  }
  for (const auto& id : expired) {
    log_line("thread " + id + ": its ttl ran out: deleted");
    try {
      delete_thread(id);
    } catch (const HttpError&) {
      // deleted meanwhile
    }
  }
  if (!stale.empty()) saver_->prune(stale, true);
  for (const auto& id : stale) log_line("thread " + id + ": its ttl ran out: pruned to its latest checkpoint");
  return expired.size() + stale.size();
}

json Core::copy_thread(const std::string& id) {
  std::string to = new_uuid();
  json metadata;
  {
    std::lock_guard lock(mutex_);
    metadata = thread_doc(id)["metadata"];
  }
  if (!metadata.is_object()) metadata = json::object();
  metadata["thread_id"] = to;
  saver_->copy_thread(id, to);
  std::lock_guard lock(mutex_);
  std::string now = now_iso();
  json t = new_thread_record(to, now, metadata);
  refresh_thread_locked(t, std::nullopt, nullptr, /*save=*/false);  // the copied state's values, interrupts, status
  save_thread(t);  // before it is visible, as in create_thread
  return threads_[to] = std::move(t);
}

json Core::prune_threads(const json& body) {
  require_object(body, "threads prune");
  if (!body.contains("thread_ids") || !body["thread_ids"].is_array())
    throw HttpError(422, "threads prune: 'thread_ids' (an array of thread ids) is required");
  std::string strategy = body.value("strategy", std::string("delete"));
  if (strategy != "delete" && strategy != "keep_latest")
    throw HttpError(422, "threads prune: 'strategy' must be \"delete\" or \"keep_latest\"");
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& id : body["thread_ids"]) {
      if (!id.is_string()) throw HttpError(422, "threads prune: 'thread_ids' must hold thread ids");
      if (threads_.count(id.get<std::string>())) ids.push_back(id);
    }
  }
  if (strategy == "delete") {
    for (const auto& id : ids) delete_thread(id);
  } else {
    saver_->prune(ids, true);
  }
  return json{{"pruned_count", ids.size()}};
}

}  // namespace superstep::server
