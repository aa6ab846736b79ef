// Planning and the barrier (docs/semantics.md, "The loop", steps 3 and 6). No threads here: these run on the
// consumer's thread between steps, when no task is running.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/run.hpp"

namespace superstep::internal {
namespace {

/// A router's view: the step's channels plus, for keys other tasks also wrote, the value this
/// task alone would have produced (LangGraph's fresh read).
class FreshView final : public StateSource {
 public:
  FreshView(const GraphData& g, const std::vector<Channel*>& channels,
            const std::vector<std::pair<int, std::unique_ptr<Channel>>>& overlay)
      : g_(g), channels_(channels), overlay_(overlay) {}
  const json* find(std::string_view key) const override {
    int id = g_.find_key(key);
    return id < 0 ? nullptr : value(id);
  }
  void for_each(const std::function<void(const std::string&, const json&)>& fn) const override {
    for (int id = 0; id < g_.num_state_keys; ++id)
      if (const json* v = value(id)) fn(g_.state_keys[id], *v);
  }

 private:
  const json* value(int id) const {
    for (const auto& [oid, ch] : overlay_)
      if (oid == id) return static_cast<const JsonChannel&>(*ch).peek();
    return static_cast<const JsonChannel*>(channels_[id])->peek();
  }
  const GraphData& g_;
  const std::vector<Channel*>& channels_;
  const std::vector<std::pair<int, std::unique_ptr<Channel>>>& overlay_;
};

}  // namespace

void PregelRun::recycle_tasks() {
  for (auto& t : tasks_) {
    t->recycle();
    spare_tasks_.push_back(std::move(t));
  }
  tasks_.clear();
}

void PregelRun::prepare_next_tasks() {
  recycle_tasks();
  if (!cp_) checkpoint_id_.clear();  // made on first use: most runs never need a task id
  auto make = [&](const NodeData& node) {
    TaskPtr t;
    if (!spare_tasks_.empty()) {
      t = std::move(spare_tasks_.back());
      spare_tasks_.pop_back();
    } else {
      t.reset(new ExecutableTask());
    }
    t->run = this;
    t->node = &node;
    t->step = step_;
    return t;
  };
  // PUSH tasks first: one per pending Send, in Send order.
  for (std::size_t i = 0; i < pending_sends_.size(); ++i) {
    Send& s = pending_sends_[i];
    auto t = make(g_->nodes[g_->find_node(s.node)]);
    t->push = true;
    t->push_index = i;
    if (s.typed_arg) {
      t->typed_arg = std::move(s.typed_arg);
      t->input.emplace(t->typed_arg.get(), nullptr);
    } else {
      t->send_arg = std::move(s.arg);
      t->input.emplace(*t->send_arg);
    }
    t->runtime.emplace(*t);
    tasks_.push_back(std::move(t));
  }
  pending_sends_.clear();

  // PULL tasks: only nodes subscribed to a channel updated by the last step, in name order.
  ++epoch_;
  std::vector<int>& candidates = candidates_;
  candidates.clear();
  for (int c : updated_)
    for (int n : g_->trigger_to_nodes[c])
      if (node_mark_[n] != epoch_) {
        node_mark_[n] = epoch_;
        candidates.push_back(n);
      }
  std::sort(candidates.begin(), candidates.end(),
            [&](int a, int b) { return g_->nodes[a].rank < g_->nodes[b].rank; });
  for (int n : candidates) {
    const NodeData& node = g_->nodes[n];
    bool fire = false;
    for (std::size_t j = 0; j < node.triggers.size() && !fire; ++j) {
      int c = node.triggers[j];
      fire = ch_[c]->is_available() && version_[c] > seen_[n][j];
    }
    if (!fire) continue;
    auto t = make(node);
    if (g_->typed) {
      t->input.emplace(g_->typed->state(*ch_[g_->holder_channel]), nullptr);
    } else {
      t->view.emplace(*this, &node);
      t->input.emplace(*t->view);
    }
    t->runtime.emplace(*t);
    tasks_.push_back(std::move(t));
  }
}

void PregelRun::bump(int channel, uint64_t version, bool& any_trigger_updated) {
  version_[channel] = version;
  const ChannelData& info = g_->channels[channel];
  if (!info.is_trigger && !info.is_volatile) return;  // only triggers and volatile channels are tracked
  if (!ch_[channel]->is_available()) return;  // unavailable channels cannot trigger anything
  if (chan_mark_[channel] != epoch_) {
    chan_mark_[channel] = epoch_;
    updated_.push_back(channel);
    if (info.is_trigger) any_trigger_updated = true;
  }
}

bool PregelRun::apply_batches(const std::vector<ExecutableTask*>& order, uint64_t version) {
  batches_.clear();
  for (ExecutableTask* t : order) {
    if (!t->writes.empty()) return false;
    if (t->batch) batches_.push_back(t->batch.get());
  }
  if (batches_.empty()) return true;
  int failed = -1;
  try {
    batches_.front()->apply_together(batches_, ch_.data(), version_.data(), version, failed);
  } catch (const InvalidUpdateError& e) {
    std::string writers;
    for (ExecutableTask* t : order)
      if (t->batch && failed >= 0 && t->batch->writes(failed))
        writers += (writers.empty() ? "'" : ", '") + t->node->name + "'";
    throw InvalidUpdateError("graph '" + g_->name + "', step " + std::to_string(step_) + ": " + e.what() +
                             " (written by " + writers + ")");
  }
  for (ExecutableTask* t : order) t->batch.reset();
  return true;
}

bool PregelRun::distinct_keys(const std::vector<std::pair<int, Value>>& writes) {
  if (!g_->typed || writes.size() < 2) return true;  // JSON updates are objects: distinct keys
  if (dup_mark_.size() < ch_.size()) dup_mark_.assign(ch_.size(), 0);
  ++dup_epoch_;
  for (const auto& w : writes) {
    if (dup_mark_[w.first] == dup_epoch_) return false;
    dup_mark_[w.first] = dup_epoch_;
  }
  return true;
}

void PregelRun::apply_grouped(const std::vector<ExecutableTask*>& order, bool control, uint64_t version,
                              bool& any_trigger) {
  if (control && order.size() == 1) {
    // One task's branch and join writes: each channel takes them one by one (the same branch
    // written twice, by an edge and a go_to, ends the same either way).
    ExecutableTask& t = *order.front();
    for (int c : t.control) {
      Value v = g_->channels[c].role == ChannelRole::join ? json(t.node->name) : json(nullptr);
      if (ch_[c]->update_values(std::span<Value>(&v, 1))) bump(c, version, any_trigger);
    }
    return;
  }
  if (!control && order.size() == 1) {
    ExecutableTask& t = *order.front();
    auto rethrow = [&](const InvalidUpdateError& e) {
      throw InvalidUpdateError("graph '" + g_->name + "', step " + std::to_string(step_) + ": " + e.what() +
                               " (written by '" + t.node->name + "')");
    };
    if (t.batch) {
      // A typed batch folds into the field channels directly (unless a field was set twice).
      bool applied = false;
      try {
        applied = t.batch->apply(ch_.data(), version_.data(), version);
      } catch (const InvalidUpdateError& e) {
        rethrow(e);
      }
      if (!applied) t.batch->explode(t.writes);
      t.batch.reset();
    }
    if (distinct_keys(t.writes)) {
      // One task writing each key once: each channel takes its write in place, without grouping.
      for (auto& [c, v] : t.writes) {
        bool changed = false;
        try {
          changed = ch_[c]->update_values(std::span<Value>(&v, 1));
        } catch (const InvalidUpdateError& e) {
          rethrow(e);
        }
        if (changed) bump(c, version, any_trigger);
      }
      return;
    }
  }
  if (!control && g_->typed && apply_batches(order, version)) return;
  for (ExecutableTask* t : order)
    if (t->batch) {  // mixed with flattened writes: group everything as pairs
      t->batch->explode(t->writes);
      t->batch.reset();
    }
  touched_.clear();
  for (ExecutableTask* t : order) {
    if (control) {
      for (int c : t->control) {
        if (buckets_[c].empty()) touched_.push_back(c);
        if (g_->channels[c].role == ChannelRole::join) buckets_[c].emplace_back(json(t->node->name));
        else buckets_[c].emplace_back(json(nullptr));
      }
    } else {
      for (auto& [c, v] : t->writes) {
        if (buckets_[c].empty()) touched_.push_back(c);
        buckets_[c].push_back(std::move(v));
      }
    }
  }
  for (int c : touched_) {
    std::vector<Value>& vals = buckets_[c];
    bool changed = false;
    try {
      changed = ch_[c]->update_values(std::span<Value>(vals));
    } catch (const InvalidUpdateError& e) {
      vals.clear();
      std::string writers;
      for (ExecutableTask* t : order) {
        bool wrote = false;
        for (const auto& w : t->writes) wrote = wrote || w.first == c;
        for (int cc : t->control) wrote = wrote || cc == c;
        if (wrote) writers += (writers.empty() ? "'" : ", '") + t->node->name + "'";
      }
      for (int other : touched_) buckets_[other].clear();
      throw InvalidUpdateError("graph '" + g_->name + "', step " + std::to_string(step_) + ": " + e.what() +
                               " (written by " + writers + ")");
    }
    vals.clear();
    if (changed) bump(c, version, any_trigger);
  }
}

void PregelRun::run_routers(ExecutableTask& t, const State& state) {
  const NodeData& node = *t.node;
  for (const BranchData& br : node.branches) {
    Route route;
    try {
      route = br.router(state, *t.runtime);
    } catch (...) {
      std::string what;
      try {
        throw;
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
        what = "unknown exception";
      }
      throw NodeError(node.name, t.id(), step_, std::current_exception(), "router failed: " + what);
    }
    for (Destination& d : route.items()) {
      if (std::holds_alternative<Send>(d)) {
        route_to(t, d, nullptr);
        continue;
      }
      std::string& name = std::get<std::string>(d);
      if (!br.path_map.mapping().empty()) {
        auto it = br.path_map.mapping().find(name);
        if (it == br.path_map.mapping().end()) {
          std::string keys;
          for (const auto& [k, v] : br.path_map.mapping()) keys += (keys.empty() ? "" : ", ") + k;
          throw InvalidUpdateError("graph '" + g_->name + "': router of node '" + node.name + "' returned '" + name +
                                   "', which is not in its path map (keys: " + keys + ")");
        }
        name = it->second;
      } else if (const auto& declared = br.path_map.destinations(); !declared.empty() &&
                 std::find(declared.begin(), declared.end(), name) == declared.end()) {
        // As LangGraph: a router given its destinations may return only those (END included).
        std::string list;
        for (const auto& dest : declared) list += (list.empty() ? "" : ", ") + dest;
        throw InvalidUpdateError("graph '" + g_->name + "': router of node '" + node.name + "' returned '" + name +
                                 "', which is not among its declared destinations (" + list + ")");
      }
      route_to(t, d, nullptr);
    }
  }
}

void PregelRun::unknown_node(const std::string& target, const std::string& who) const {
  throw InvalidUpdateError("graph '" + g_->name + "': " + who + " unknown node '" + target + "' (nodes: " +
                           g_->node_list() + ")");
}

void PregelRun::unknown_key(std::string_view key, const std::string& who) const {
  throw InvalidUpdateError("graph '" + g_->name + "': " + who + " unknown key '" + std::string(key) +
                           "' (state keys: " + g_->key_list() + ")");
}

void PregelRun::route_to(ExecutableTask& t, Destination& d, const char* what) {
  // "router of node 'r' returned unknown node 'x'", "node 'a' returned Command going to unknown
  // node 'x'", "... sent to unknown node 'x'".
  const bool send = std::holds_alternative<Send>(d);
  auto who = [&] {
    std::string by = what ? "node '" + t.node->name + "' returned " + what : "router of node '" + t.node->name + "'";
    return by + (send ? " sent to" : what ? " going to" : " returned");
  };
  if (send) {
    Send& s = std::get<Send>(d);
    if (s.node == END) return;  // a Send to END runs nothing
    node_of(s.node, who);
    t.sends.push_back(std::move(s));
    return;
  }
  if (int id = node_of(std::get<std::string>(d), who)) t.control.push_back(g_->branch_channel[id]);
}

void PregelRun::apply_writes() {
  // Tasks in path order: PULL tasks by node name, then PUSH tasks by Send index (never in
  // completion order).
  std::vector<ExecutableTask*>& order = order_;
  order.clear();
  for (auto& t : tasks_)
    if (!t->push) order.push_back(t.get());
  for (auto& t : tasks_)
    if (t->push) order.push_back(t.get());

  // Routers of a step with several tasks see copies with their own task's writes: typed
  // batches become pairs for that.
  bool any_router = false;
  for (ExecutableTask* t : order) any_router = any_router || !t->node->branches.empty();
  if (order.size() > 1 && any_router)
    for (ExecutableTask* t : order)
      if (t->batch) {
        t->batch->explode(t->writes);
        t->batch.reset();
      }

  for (ExecutableTask* t : order) {
    if (t->push || t->synthetic) continue;
    const NodeData& node = *t->node;
    for (std::size_t j = 0; j < node.triggers.size(); ++j) seen_[node.id][j] = version_[node.triggers[j]];
  }

  // Routers see the state plus their own task's writes only. Where another task of this step
  // wrote a key, copy that key's pre-step channel and apply this task's writes to the copy.
  std::vector<std::vector<std::pair<int, std::unique_ptr<Channel>>>> overlays;
  // Typed state: a router whose task has siblings that wrote gets a copy of the struct with only
  // its own task's writes folded in.
  std::vector<std::shared_ptr<const void>> typed_fresh;
  if (any_router && order.size() > 1 && g_->typed) {
    typed_fresh.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i]->node->branches.empty()) continue;
      bool others_wrote = false;
      for (ExecutableTask* other : order) others_wrote = others_wrote || (other != order[i] && !other->writes.empty());
      if (!others_wrote) continue;
      std::vector<std::pair<int, Value>> mine;
      for (const auto& w : order[i]->writes) mine.emplace_back(w.first, w.second.clone());
      typed_fresh[i] = g_->typed->fresh_copy(*ch_[g_->holder_channel], std::move(mine));
    }
  } else if (any_router && order.size() > 1) {
    overlays.resize(order.size());
    std::vector<int> writers(g_->num_state_keys, 0);
    for (ExecutableTask* t : order) {
      ++epoch_;
      for (const auto& w : t->writes)
        if (chan_mark_[w.first] != epoch_) {
          chan_mark_[w.first] = epoch_;
          ++writers[w.first];
        }
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      ExecutableTask* t = order[i];
      if (t->node->branches.empty()) continue;
      for (int k = 0; k < g_->num_state_keys; ++k) {
        int own = 0;
        std::vector<Value> mine;
        for (const auto& w : t->writes)
          if (w.first == k) {
            own = 1;
            mine.push_back(w.second.clone());
          }
        if (writers[k] - own <= 0) continue;
        auto copy = ch_[k]->clone();
        if (!mine.empty()) copy->update_values(std::span<Value>(mine));
        overlays[i].emplace_back(k, std::move(copy));
      }
    }
  }

  const uint64_t version = next_version();
  ++epoch_;
  updated_.clear();
  bool any_trigger = false;

  for (ExecutableTask* t : order) {
    if (t->push || t->synthetic) continue;
    for (int c : t->node->triggers)
      if (ch_[c]->consume()) version_[c] = version;
  }

  apply_grouped(order, /*control=*/false, version, any_trigger);

  static const std::vector<std::pair<int, std::unique_ptr<Channel>>> kNoOverlay;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i]->node->branches.empty()) continue;
    if (g_->typed) {
      const void* s = !typed_fresh.empty() && typed_fresh[i] ? typed_fresh[i].get()
                                                             : g_->typed->state(*ch_[g_->holder_channel]);
      run_routers(*order[i], State(s, nullptr));
      continue;
    }
    FreshView fresh(*g_, ch_, overlays.empty() ? kNoOverlay : overlays[i]);
    run_routers(*order[i], State(fresh));
  }

  apply_grouped(order, /*control=*/true, version, any_trigger);

  for (ExecutableTask* t : order)
    for (Send& s : t->sends) pending_sends_.push_back(std::move(s));

  // Volatile channels not written this step are cleared (a version bump, not a trigger).
  for (int c : live_volatile_) {
    if (chan_mark_[c] == epoch_) continue;
    if (ch_[c]->update_values(std::span<Value>())) version_[c] = version;
  }
  live_volatile_.clear();
  for (int c : updated_)
    if (g_->channels[c].is_volatile && ch_[c]->is_available()) live_volatile_.push_back(c);

  // Tentatively the last step: deferred nodes and their joins become available.
  if (!any_trigger) {
    for (int c : g_->after_finish_channels)
      if (ch_[c]->finish()) bump(c, version, any_trigger);
  }
}

}  // namespace superstep::internal
