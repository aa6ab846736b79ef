// Restoring a run from a stored checkpoint (docs/persistence.md): channel values and versions,
// versions seen, pending Sends and writes; a tuple stored as changes applied to the run of the
// one before it; get_state_history's walk. Runs on the consumer's thread.
#include <algorithm>
#include <cstdlib>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/loop.hpp"
#include "pregel/persistence.hpp"

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

Persistence::Persistence(RunState& s, PregelLoop& loop) : s_(s), loop_(loop) {
  s_.checkpointed = true;
  saver_ = s_.saver();
  durability_ = s_.config.durability;
  // Not owning: batch runs only around queued jobs, each of which holds the saver. A pool
  // thread can hold the queue's state a moment after the run ended; owning the saver there
  // could make that thread destroy it, possibly while the process exits.
  queue_ = std::make_unique<SaveQueue>(s_.g->executor, [s = saver_.get()](const std::function<void()>& run) {
    if (s) s->batch(run);
    else run();
  });
  interrupt_before_ = s_.config.interrupt_before ? *s_.config.interrupt_before : s_.g->interrupt_before;
  interrupt_after_ = s_.config.interrupt_after ? *s_.config.interrupt_after : s_.g->interrupt_after;
  run_id_ = s_.config.run_id.empty() ? uuid4() : s_.config.run_id;
  current_ = CheckpointConfig{s_.config.thread_id, s_.config.checkpoint_ns, std::nullopt};
  saved_version_.assign(s_.cs.channels.size(), 0);
  stored_version_.assign(s_.cs.channels.size(), nullptr);
  deltas_ = saver_ && saver_->stores_deltas();
  interrupt_seen_.assign(s_.cs.channels.size(), 0);
}

void Persistence::load_sends(const std::function<void(const std::string&)>& fail) {
  const json& sends = sends_;
  s_.cs.pending_sends.clear();
  if (sends.is_null()) return;
  if (!sends.is_array()) fail("stored '__pregel_tasks' is not a list");
  for (const json& s : sends) {
    if (!s.is_object() || !s.contains("node") || !s["node"].is_string()) fail("stored Send is malformed: " + preview(s));
    const std::string& node = s["node"].get_ref<const std::string&>();
    if (s_.g->find_node(node) <= 0) fail("stored Send targets node '" + node + "', which this graph does not have");
    if (s_.g->typed) {
      // A typed Send's argument is the state struct, stored through to_json.
      std::shared_ptr<const void> arg;
      try {
        arg = s_.g->typed->from_json(s.value("arg", json::object()));
      } catch (const std::exception& e) {
        fail("stored Send to '" + node + "' has an argument that does not load: " + e.what());
      }
      s_.cs.pending_sends.push_back(Send{node, nullptr, std::move(arg)});
      continue;
    }
    s_.cs.pending_sends.push_back(Send{node, s.value("arg", json(nullptr)), nullptr});
  }
}

void Persistence::load_seen(const json& versions_seen) {
  for (auto it = versions_seen.begin(); it != versions_seen.end(); ++it) {
    if (!it.value().is_object()) continue;
    if (it.key() == kInterruptChannel) {
      std::fill(interrupt_seen_.begin(), interrupt_seen_.end(), 0);
      for (auto ch = it.value().begin(); ch != it.value().end(); ++ch) {
        int id = s_.g->find_channel(ch.key());
        if (id >= 0) interrupt_seen_[id] = parse_version(ch.value());
      }
      continue;
    }
    int n = s_.g->find_node(it.key());
    if (n < 0) continue;
    const NodeData& node = s_.g->nodes[n];
    for (std::size_t j = 0; j < node.triggers.size(); ++j) {
      auto v = it.value().find(s_.g->channels[node.triggers[j]].name);
      s_.cs.seen[n][j] = v != it.value().end() ? parse_version(*v) : 0;
    }
  }
}

void Persistence::restore(const CheckpointTuple& tuple) {
  const Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  s_.cs.channels[s_.g->start_channel]->restore(std::nullopt);
  sends_ = nullptr;
  for (auto it = c.channel_values.begin(); it != c.channel_values.end(); ++it) {
    const std::string& name = it.key();
    if (name == kTasksChannel) {
      sends_ = it.value();
      continue;
    }
    int id = s_.g->find_channel(name);
    if (id < 0) continue;  // a channel this version of the graph no longer has
    try {
      s_.cs.channels[id]->restore(it.value());
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
  }
  std::fill(s_.cs.versions.begin(), s_.cs.versions.end(), 0);
  s_.cs.max_version = 0;
  std::fill(stored_version_.begin(), stored_version_.end(), nullptr);
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    uint64_t v = parse_version(it.value());
    s_.cs.max_version = std::max(s_.cs.max_version, v);
    int id = s_.g->find_channel(it.key());
    if (id < 0) continue;
    s_.cs.versions[id] = v;
    if (c.channel_values.contains(it.key())) stored_version_[id] = it.value();
  }
  interrupt_seen_.assign(s_.cs.channels.size(), 0);
  for (auto& s : s_.cs.seen) std::fill(s.begin(), s.end(), 0);
  load_seen(c.versions_seen);
  load_sends(fail);
  restored(tuple, tuple.metadata, tuple.pending_writes);
}

bool Persistence::continue_versions_after_latest() {
  std::optional<CheckpointTuple> latest =
      saver_->get_tuple(CheckpointConfig{s_.config.thread_id, s_.config.checkpoint_ns, std::nullopt});
  if (!latest || latest->checkpoint.id == s_.checkpoint_id()) return false;
  // Each run continues after the newest checkpoint, so the newest holds the thread's highest version.
  for (const json& v : latest->checkpoint.channel_versions) s_.cs.version_floor = std::max(s_.cs.version_floor, parse_version(v));
  return true;
}

bool Persistence::restore_changes(CheckpointTuple& tuple) {
  Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  // Appends apply only to the value they were stored against: check them all before changing anything.
  json appended = json::object();
  if (auto found = c.extra.find(kValuesAppended); found != c.extra.end() && found->is_object())
    appended = std::move(*found);
  for (auto it = appended.begin(); it != appended.end(); ++it) {
    int id = s_.g->find_channel(it.key());
    if (id < 0) continue;
    const json* base = it->is_object() && it->contains("base") ? &(*it)["base"] : nullptr;
    if (!base || !(*it)["elements"].is_array() || !s_.cs.channels[id]->is_available() || parse_version(*base) != s_.cs.versions[id])
      return false;
  }
  // A channel whose version changed has the value stored at its new version, or none.
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    const std::string& name = it.key();
    auto value = c.channel_values.find(name);
    const bool has_value = value != c.channel_values.end();
    if (!it->is_null()) s_.cs.max_version = std::max(s_.cs.max_version, parse_version(*it));
    if (name == kTasksChannel) {
      sends_ = has_value ? std::move(*value) : json(nullptr);
      continue;
    }
    int id = s_.g->find_channel(name);
    if (id < 0) continue;
    auto append = appended.find(name);
    try {
      if (append != appended.end()) {
        // The value so far, then the elements appended: no copy of what was there.
        std::optional<json> whole;
        if (!s_.g->typed) whole = static_cast<JsonChannel*>(s_.cs.channels[id])->take();
        else whole = s_.cs.channels[id]->checkpoint();
        if (!whole || !whole->is_array()) fail("channel '" + name + "' holds no list to append the stored elements to");
        for (json& e : (*append)["elements"]) whole->push_back(std::move(e));
        s_.cs.channels[id]->restore_moved(std::move(*whole));
      } else if (has_value) {
        s_.cs.channels[id]->restore_moved(std::move(*value));
      } else {
        s_.cs.channels[id]->restore(std::nullopt);
      }
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
    s_.cs.versions[id] = it->is_null() ? 0 : parse_version(*it);
    stored_version_[id] = has_value || append != appended.end() ? *it : json(nullptr);
  }
  load_seen(c.versions_seen);  // a node whose map changed has its whole map here
  load_sends(fail);  // every snapshot takes them: load them again even when unchanged
  restored(tuple, std::move(tuple.metadata), std::move(tuple.pending_writes));
  return true;
}

void Persistence::restored(const CheckpointTuple& tuple, json metadata, std::vector<PendingWrite> pending) {
  const Checkpoint& c = tuple.checkpoint;
  // As LangGraph plans from a loaded checkpoint: every trigger channel is looked at (a node is due
  // when one of its triggers is newer than what it saw), not only the channels the checkpoint's
  // step updated. They differ after update_state as a join's target: the join's barrier, full
  // and not consumed (an update runs no node), was not updated by that step, and its node is due.
  s_.cs.updated = s_.g->trigger_channels;
  s_.cs.live_volatile.clear();
  for (int id : s_.g->volatile_channels)
    if (s_.cs.channels[id]->is_available()) s_.cs.live_volatile.push_back(id);

  has_checkpoint_ = true;
  seen_cache_valid_ = false;
  maps_id_.reset();
  inspected_writes_ = false;
  current_ = tuple.config;
  parent_ = tuple.parent_config;
  metadata_ = std::move(metadata);
  pending_ = std::move(pending);
  created_at_ = c.ts;
  saved_version_ = s_.cs.versions;
  const json& step = metadata_.is_object() ? metadata_.value("step", json(-1)) : json(-1);
  loaded_step_ = step.is_number_integer() ? step.get<int64_t>() : -1;
  s_.step = loaded_step_ + 1;
  s_.stop = s_.step + 1 + s_.config.recursion_limit;
  s_.set_checkpoint_id(c.id);
}

namespace {
/// Whether tuple `k` of a listing (newest first) is stored as changes to tuple `k + 1`.
bool continues_next(const std::vector<CheckpointTuple>& tuples, std::size_t k) {
  auto from = tuples[k].checkpoint.extra.find(kVersionsFrom);
  return from != tuples[k].checkpoint.extra.end() && from->is_string() && k + 1 < tuples.size() &&
         tuples[k + 1].config.checkpoint_id == from->get_ref<const std::string&>();
}
}  // namespace

void Persistence::walk_history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                             std::vector<CheckpointTuple>& tuples, std::vector<StateSnapshot>& out, std::size_t newest,
                             std::size_t oldest, const ParentLink* link) {
  std::unique_ptr<PregelLoop> run;
  for (std::size_t k = oldest + 1; k-- > newest;) {
    CheckpointTuple& t = tuples[k];
    if (t.checkpoint.extra.contains(kVersionsFrom)) {
      // Changes to the tuple after it, which the run holds unless the last snapshot wrote to it.
      Persistence* p = run ? run->persistence() : nullptr;
      if (p && k < oldest && !p->inspected_writes_ && continues_next(tuples, k) && p->restore_changes(t)) {
        out[k] = p->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
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
    run = std::make_unique<PregelLoop>(graph, config, &t, PregelLoop::Inspect{}, link);
    out[k] = run->persistence()->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
  }
}

std::vector<StateSnapshot> Persistence::history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                              std::vector<CheckpointTuple> tuples, const ParentLink* link) {
  std::vector<StateSnapshot> out(tuples.size());
  // Oldest first on this thread: each tuple stored as changes to the one listed after it is applied
  // to the run that read that one. (Walked on the pool's threads as well, in spans from one whole
  // tuple to the next, the snapshots came from their malloc arenas and every history was slower
  // on this project's 2-core machine kind: docs/perf-log/2026-11-24-history-reads-fourth-round.md.)
  if (!tuples.empty()) walk_history(graph, config, tuples, out, 0, tuples.size() - 1, link);
  return out;
}

}  // namespace superstep::internal
