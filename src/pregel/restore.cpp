// Restoring a run from a stored checkpoint (docs/persistence.md): channel values and versions,
// versions seen, pending Sends and writes; a tuple stored as changes applied to the run of the
// one before it; get_state_history's walk. Runs on the consumer's thread.
#include <algorithm>
#include <cstdlib>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"

namespace superstep::internal {
namespace {

uint64_t parse_version(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) return static_cast<uint64_t>(std::max<int64_t>(0, v.get<int64_t>()));
  if (v.is_number_float()) return static_cast<uint64_t>(std::max(0.0, v.get<double>()));
  if (v.is_string()) return std::strtoull(v.get_ref<const std::string&>().c_str(), nullptr, 10);
  return 0;
}

}  // namespace

void PregelRun::start_persist() {
  cp_ = std::make_unique<Persist>();
  Persist& p = *cp_;
  p.saver = saver();
  p.durability = config_.durability;
  // Not owning: batch runs only around queued jobs, each of which holds the saver. A pool
  // thread can hold the queue's state a moment after the run ended; owning the saver there
  // could make that thread destroy it, possibly while the process exits.
  p.queue = std::make_unique<SaveQueue>(g_->executor, [s = p.saver.get()](const std::function<void()>& run) {
    if (s) s->batch(run);
    else run();
  });
  p.interrupt_before = config_.interrupt_before ? *config_.interrupt_before : g_->interrupt_before;
  p.interrupt_after = config_.interrupt_after ? *config_.interrupt_after : g_->interrupt_after;
  p.run_id = config_.run_id.empty() ? uuid4() : config_.run_id;
  p.current = CheckpointConfig{config_.thread_id, config_.checkpoint_ns, std::nullopt};
  p.saved_version.assign(cs_.channels.size(), 0);
  p.stored_version.assign(cs_.channels.size(), nullptr);
  p.deltas = p.saver && p.saver->stores_deltas();
  p.interrupt_seen.assign(cs_.channels.size(), 0);
}

void PregelRun::load_sends(const std::function<void(const std::string&)>& fail) {
  const json& sends = cp_->sends;
  cs_.pending_sends.clear();
  if (sends.is_null()) return;
  if (!sends.is_array()) fail("stored '__pregel_tasks' is not a list");
  for (const json& s : sends) {
    if (!s.is_object() || !s.contains("node") || !s["node"].is_string()) fail("stored Send is malformed: " + preview(s));
    const std::string& node = s["node"].get_ref<const std::string&>();
    if (g_->find_node(node) <= 0) fail("stored Send targets node '" + node + "', which this graph does not have");
    if (g_->typed) {
      // A typed Send's argument is the state struct, stored through to_json.
      std::shared_ptr<const void> arg;
      try {
        arg = g_->typed->from_json(s.value("arg", json::object()));
      } catch (const std::exception& e) {
        fail("stored Send to '" + node + "' has an argument that does not load: " + e.what());
      }
      cs_.pending_sends.push_back(Send{node, nullptr, std::move(arg)});
      continue;
    }
    cs_.pending_sends.push_back(Send{node, s.value("arg", json(nullptr)), nullptr});
  }
}

void PregelRun::load_seen(const json& versions_seen) {
  Persist& p = *cp_;
  for (auto it = versions_seen.begin(); it != versions_seen.end(); ++it) {
    if (!it.value().is_object()) continue;
    if (it.key() == kInterruptChannel) {
      std::fill(p.interrupt_seen.begin(), p.interrupt_seen.end(), 0);
      for (auto ch = it.value().begin(); ch != it.value().end(); ++ch) {
        int id = g_->find_channel(ch.key());
        if (id >= 0) p.interrupt_seen[id] = parse_version(ch.value());
      }
      continue;
    }
    int n = g_->find_node(it.key());
    if (n < 0) continue;
    const NodeData& node = g_->nodes[n];
    for (std::size_t j = 0; j < node.triggers.size(); ++j) {
      auto v = it.value().find(g_->channels[node.triggers[j]].name);
      cs_.seen[n][j] = v != it.value().end() ? parse_version(*v) : 0;
    }
  }
}

void PregelRun::restore(const CheckpointTuple& tuple) {
  Persist& p = *cp_;
  const Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  cs_.channels[g_->start_channel]->restore(std::nullopt);
  p.sends = nullptr;
  for (auto it = c.channel_values.begin(); it != c.channel_values.end(); ++it) {
    const std::string& name = it.key();
    if (name == kTasksChannel) {
      p.sends = it.value();
      continue;
    }
    int id = g_->find_channel(name);
    if (id < 0) continue;  // a channel this version of the graph no longer has
    try {
      cs_.channels[id]->restore(it.value());
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
  }
  std::fill(cs_.versions.begin(), cs_.versions.end(), 0);
  cs_.max_version = 0;
  std::fill(p.stored_version.begin(), p.stored_version.end(), nullptr);
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    uint64_t v = parse_version(it.value());
    cs_.max_version = std::max(cs_.max_version, v);
    int id = g_->find_channel(it.key());
    if (id < 0) continue;
    cs_.versions[id] = v;
    if (c.channel_values.contains(it.key())) p.stored_version[id] = it.value();
  }
  p.interrupt_seen.assign(cs_.channels.size(), 0);
  for (auto& s : cs_.seen) std::fill(s.begin(), s.end(), 0);
  load_seen(c.versions_seen);
  load_sends(fail);
  restored(tuple, tuple.metadata, tuple.pending_writes);
}

void PregelRun::continue_versions_after_latest() {
  std::optional<CheckpointTuple> latest =
      cp_->saver->get_tuple(CheckpointConfig{config_.thread_id, config_.checkpoint_ns, std::nullopt});
  if (!latest || latest->checkpoint.id == checkpoint_id_) return;
  // Each run continues after the newest checkpoint, so the newest holds the thread's highest version.
  for (const json& v : latest->checkpoint.channel_versions) cs_.version_floor = std::max(cs_.version_floor, parse_version(v));
}

bool PregelRun::restore_changes(CheckpointTuple& tuple) {
  Persist& p = *cp_;
  Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  // Appends apply only to the value they were stored against: check them all before changing anything.
  json appended = json::object();
  if (auto found = c.extra.find(kValuesAppended); found != c.extra.end() && found->is_object())
    appended = std::move(*found);
  for (auto it = appended.begin(); it != appended.end(); ++it) {
    int id = g_->find_channel(it.key());
    if (id < 0) continue;
    const json* base = it->is_object() && it->contains("base") ? &(*it)["base"] : nullptr;
    if (!base || !(*it)["elements"].is_array() || !cs_.channels[id]->is_available() || parse_version(*base) != cs_.versions[id])
      return false;
  }
  // A channel whose version changed has the value stored at its new version, or none.
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    const std::string& name = it.key();
    auto value = c.channel_values.find(name);
    const bool has_value = value != c.channel_values.end();
    if (!it->is_null()) cs_.max_version = std::max(cs_.max_version, parse_version(*it));
    if (name == kTasksChannel) {
      p.sends = has_value ? std::move(*value) : json(nullptr);
      continue;
    }
    int id = g_->find_channel(name);
    if (id < 0) continue;
    auto append = appended.find(name);
    try {
      if (append != appended.end()) {
        // The value so far, then the elements appended: no copy of what was there.
        std::optional<json> whole;
        if (!g_->typed) whole = static_cast<JsonChannel*>(cs_.channels[id])->take();
        else whole = cs_.channels[id]->checkpoint();
        if (!whole || !whole->is_array()) fail("channel '" + name + "' holds no list to append the stored elements to");
        for (json& e : (*append)["elements"]) whole->push_back(std::move(e));
        cs_.channels[id]->restore_moved(std::move(*whole));
      } else if (has_value) {
        cs_.channels[id]->restore_moved(std::move(*value));
      } else {
        cs_.channels[id]->restore(std::nullopt);
      }
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
    cs_.versions[id] = it->is_null() ? 0 : parse_version(*it);
    p.stored_version[id] = has_value || append != appended.end() ? *it : json(nullptr);
  }
  load_seen(c.versions_seen);  // a node whose map changed has its whole map here
  load_sends(fail);  // every snapshot takes them: load them again even when unchanged
  restored(tuple, std::move(tuple.metadata), std::move(tuple.pending_writes));
  return true;
}

void PregelRun::restored(const CheckpointTuple& tuple, json metadata, std::vector<PendingWrite> pending) {
  Persist& p = *cp_;
  const Checkpoint& c = tuple.checkpoint;
  cs_.updated.clear();
  if (c.updated_channels.is_array()) {
    for (const json& name : c.updated_channels)
      if (name.is_string()) {
        int id = g_->find_channel(name.get_ref<const std::string&>());
        if (id >= 0 && (g_->channels[id].is_trigger || g_->channels[id].is_volatile)) cs_.updated.push_back(id);
      }
  } else {
    for (std::size_t i = 0; i < cs_.channels.size(); ++i)
      if (g_->channels[i].is_trigger) cs_.updated.push_back(static_cast<int>(i));
  }
  cs_.live_volatile.clear();
  for (int id : g_->volatile_channels)
    if (cs_.channels[id]->is_available()) cs_.live_volatile.push_back(id);

  p.has_checkpoint = true;
  p.seen_cache_valid = false;
  p.maps_id.reset();
  p.inspected_writes = false;
  p.current = tuple.config;
  p.parent = tuple.parent_config;
  p.metadata = std::move(metadata);
  p.pending = std::move(pending);
  p.created_at = c.ts;
  p.saved_version = cs_.versions;
  const json& step = p.metadata.is_object() ? p.metadata.value("step", json(-1)) : json(-1);
  p.loaded_step = step.is_number_integer() ? step.get<int64_t>() : -1;
  step_ = p.loaded_step + 1;
  stop_ = step_ + config_.recursion_limit;
  checkpoint_id_ = c.id;
}

namespace {
/// Whether tuple `k` of a listing (newest first) is stored as changes to tuple `k + 1`.
bool continues_next(const std::vector<CheckpointTuple>& tuples, std::size_t k) {
  auto from = tuples[k].checkpoint.extra.find(kVersionsFrom);
  return from != tuples[k].checkpoint.extra.end() && from->is_string() && k + 1 < tuples.size() &&
         tuples[k + 1].config.checkpoint_id == from->get_ref<const std::string&>();
}
}  // namespace

void PregelRun::walk_history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                             std::vector<CheckpointTuple>& tuples, std::vector<StateSnapshot>& out, std::size_t newest,
                             std::size_t oldest, const ParentLink* link) {
  std::unique_ptr<PregelRun> run;
  for (std::size_t k = oldest + 1; k-- > newest;) {
    CheckpointTuple& t = tuples[k];
    if (t.checkpoint.extra.contains(kVersionsFrom)) {
      // Changes to the tuple after it, which the run holds unless the last snapshot wrote to it.
      if (run && k < oldest && !run->cp_->inspected_writes && continues_next(tuples, k) && run->restore_changes(t)) {
        out[k] = run->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
        tuples[k + 1] = CheckpointTuple{};  // read for the last time (continues_next): freed on this thread
        continue;
      }
      const std::shared_ptr<CheckpointSaver>& saver = graph->checkpointer ? graph->checkpointer : link->saver;
      std::optional<CheckpointTuple> whole = saver->get_tuple(t.config);
      if (!whole)
        throw CheckpointError("graph '" + graph->name + "': thread '" + t.config.thread_id + "' has no checkpoint '" +
                              t.checkpoint.id + "'");
      t = std::move(*whole);
    }
    run = std::make_unique<PregelRun>(graph, config, &t, Inspect{}, link);
    out[k] = run->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
  }
}

std::vector<StateSnapshot> PregelRun::history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                              std::vector<CheckpointTuple> tuples, const ParentLink* link) {
  std::vector<StateSnapshot> out(tuples.size());
  // Oldest first on this thread: each tuple stored as changes to the one listed after it is applied
  // to the run that read that one. (Walked on the pool's threads as well, in spans from one whole
  // tuple to the next, the snapshots came from their malloc arenas and every history was slower
  // on this project's 2-core machine kind: docs/performance.md, "History reads, fourth round".)
  if (!tuples.empty()) walk_history(graph, config, tuples, out, 0, tuples.size() - 1, link);
  return out;
}

}  // namespace superstep::internal
