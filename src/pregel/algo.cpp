// Planning and the barrier as pure functions (algo.hpp; docs/semantics.md, "The loop", steps 3
// and 6). No threads here: the loop calls these between steps, when no task is running.
#include "pregel/algo.hpp"

#include <algorithm>

#include "pregel/subgraph.hpp"
#include "superstep/messages/message.hpp"

namespace superstep::internal {
namespace {

/// A router's view: the step's channels plus, for keys other tasks also wrote, the value this
/// task alone would have produced (LangGraph's fresh read).
class FreshView final : public StateSource {
 public:
  FreshView(const Program& g, const std::vector<Channel*>& channels,
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
  const Program& g_;
  const std::vector<Channel*>& channels_;
  const std::vector<std::pair<int, std::unique_ptr<Channel>>>& overlay_;
};

/// Channel `channel` was updated at `version`: a trigger or volatile channel holding a value
/// joins s.updated (once per step).
void bump(const Program& g, ChannelState& s, int channel, uint64_t version, bool& any_trigger_updated) {
  s.versions[channel] = version;
  const ChannelData& info = g.channels[channel];
  if (!info.is_trigger && !info.is_volatile) return;  // only triggers and volatile channels are tracked
  if (!s.channels[channel]->is_available()) return;  // unavailable channels cannot trigger anything
  if (s.chan_mark[channel] != s.epoch) {
    s.chan_mark[channel] = s.epoch;
    s.updated.push_back(channel);
    if (info.is_trigger) any_trigger_updated = true;
  }
}

/// Typed steps with several tasks: folds their batches per field. False when some task's
/// writes are already pairs.
bool apply_batches(const Program& g, ChannelState& s, const std::vector<ExecutableTask*>& order, int64_t step,
                   uint64_t version) {
  s.batches.clear();
  for (ExecutableTask* t : order) {
    if (!t->writes.empty()) return false;
    if (t->batch) s.batches.push_back(t->batch.get());
  }
  if (s.batches.empty()) return true;
  int failed = -1;
  try {
    g.typed->apply_together(s.batches, s.channels.data(), s.versions.data(), version, failed);
  } catch (const InvalidUpdateError& e) {
    std::string writers;
    for (ExecutableTask* t : order)
      if (t->batch && failed >= 0 && t->batch->writes(failed))
        writers += (writers.empty() ? "'" : ", '") + t->node->name + "'";
    throw InvalidUpdateError("graph '" + g.name + "', step " + std::to_string(step) + ": " + e.what() +
                             " (written by " + writers + ")");
  }
  for (ExecutableTask* t : order) t->batch.reset();
  return true;
}

/// Whether `writes` name each channel once (a JSON update is an object, but a list of them and
/// Commands may write a key twice).
bool distinct_keys(ChannelState& s, const std::vector<std::pair<int, Value>>& writes) {
  if (writes.size() < 2) return true;
  if (s.dup_mark.size() < s.channels.size()) s.dup_mark.assign(s.channels.size(), 0);
  ++s.dup_epoch;
  for (const auto& w : writes) {
    if (s.dup_mark[w.first] == s.dup_epoch) return false;
    s.dup_mark[w.first] = s.dup_epoch;
  }
  return true;
}

/// Applies the step's state writes (or, `control`, its branch and join writes), each channel's
/// together through its reducer.
void apply_grouped(const Program& g, ChannelState& s, const std::vector<ExecutableTask*>& order, int64_t step,
                   bool control, uint64_t version, bool& any_trigger) {
  if (control && order.size() == 1) {
    // One task's branch and join writes: each channel takes them one by one (the same branch
    // written twice, by an edge and a go_to, ends the same either way).
    ExecutableTask& t = *order.front();
    for (int c : t.control) {
      Value v = g.channels[c].role == ChannelRole::join ? json(t.node->name) : json(nullptr);
      if (s.channels[c]->update_values(std::span<Value>(&v, 1))) bump(g, s, c, version, any_trigger);
    }
    return;
  }
  if (!control && order.size() == 1) {
    ExecutableTask& t = *order.front();
    auto rethrow = [&](const InvalidUpdateError& e) {
      throw InvalidUpdateError("graph '" + g.name + "', step " + std::to_string(step) + ": " + e.what() +
                               " (written by '" + t.node->name + "')");
    };
    if (t.batch) {
      // A typed batch folds into the field channels directly (unless a field was set twice).
      bool applied = false;
      try {
        applied = g.typed->apply(*t.batch, s.channels.data(), s.versions.data(), version);
      } catch (const InvalidUpdateError& e) {
        rethrow(e);
      }
      if (!applied) t.batch->explode(t.writes);
      t.batch.reset();
    }
    if (distinct_keys(s, t.writes)) {
      // One task writing each key once: each channel takes its write in place, without grouping.
      for (auto& [c, v] : t.writes) {
        bool changed = false;
        try {
          changed = s.channels[c]->update_values(std::span<Value>(&v, 1));
        } catch (const InvalidUpdateError& e) {
          rethrow(e);
        }
        if (changed) bump(g, s, c, version, any_trigger);
      }
      return;
    }
  }
  if (!control && g.typed && apply_batches(g, s, order, step, version)) return;
  for (ExecutableTask* t : order)
    if (t->batch) {  // mixed with flattened writes: group everything as pairs
      t->batch->explode(t->writes);
      t->batch.reset();
    }
  s.touched.clear();
  for (ExecutableTask* t : order) {
    if (control) {
      for (int c : t->control) {
        if (s.buckets[c].empty()) s.touched.push_back(c);
        if (g.channels[c].role == ChannelRole::join) s.buckets[c].emplace_back(json(t->node->name));
        else s.buckets[c].emplace_back(json(nullptr));
      }
    } else {
      for (auto& [c, v] : t->writes) {
        if (s.buckets[c].empty()) s.touched.push_back(c);
        s.buckets[c].push_back(std::move(v));
      }
    }
  }
  for (int c : s.touched) {
    std::vector<Value>& vals = s.buckets[c];
    bool changed = false;
    try {
      changed = s.channels[c]->update_values(std::span<Value>(vals));
    } catch (const InvalidUpdateError& e) {
      vals.clear();
      std::string writers;
      for (ExecutableTask* t : order) {
        bool wrote = false;
        for (const auto& w : t->writes) wrote = wrote || w.first == c;
        for (int cc : t->control) wrote = wrote || cc == c;
        if (wrote) writers += (writers.empty() ? "'" : ", '") + t->node->name + "'";
      }
      for (int other : s.touched) s.buckets[other].clear();
      throw InvalidUpdateError("graph '" + g.name + "', step " + std::to_string(step) + ": " + e.what() +
                               " (written by " + writers + ")");
    }
    vals.clear();
    if (changed) bump(g, s, c, version, any_trigger);
  }
}

/// What the routers of a step with several tasks read instead of the channels: per task in
/// path order, the channels other tasks also wrote, copied before the step with only this
/// task's writes applied (JSON), or a copy of the struct with only its writes (typed).
struct RouterReads {
  std::vector<std::vector<std::pair<int, std::unique_ptr<Channel>>>> overlays;
  std::vector<std::shared_ptr<const void>> typed;
};

RouterReads router_reads(const Program& g, ChannelState& s, const std::vector<ExecutableTask*>& order) {
  RouterReads out;
  std::vector<std::vector<std::pair<int, std::unique_ptr<Channel>>>>& overlays = out.overlays;
  std::vector<std::shared_ptr<const void>>& typed_fresh = out.typed;
  if (g.typed) {
    typed_fresh.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i]->node->branches.empty()) continue;
      bool others_wrote = false;
      for (ExecutableTask* other : order) others_wrote = others_wrote || (other != order[i] && !other->writes.empty());
      if (!others_wrote) continue;
      std::vector<std::pair<int, Value>> mine;
      for (const auto& w : order[i]->writes) mine.emplace_back(w.first, w.second.clone());
      typed_fresh[i] = g.typed->fresh_copy(*s.channels[g.holder_channel], std::move(mine));
    }
  } else {
    overlays.resize(order.size());
    std::vector<int> writers(g.num_state_keys, 0);
    for (ExecutableTask* t : order) {
      ++s.epoch;
      for (const auto& w : t->writes)
        if (s.chan_mark[w.first] != s.epoch) {
          s.chan_mark[w.first] = s.epoch;
          ++writers[w.first];
        }
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      ExecutableTask* t = order[i];
      if (t->node->branches.empty()) continue;
      for (int k = 0; k < g.num_state_keys; ++k) {
        int own = 0;
        std::vector<Value> mine;
        for (const auto& w : t->writes)
          if (w.first == k) {
            own = 1;
            mine.push_back(w.second.clone());
          }
        if (writers[k] - own <= 0) continue;
        auto copy = s.channels[k]->clone();
        if (!mine.empty()) copy->update_values(std::span<Value>(mine));
        overlays[i].emplace_back(k, std::move(copy));
      }
    }
  }
  return out;
}

/// Runs task `t`'s routers on `state` and routes what they return.
void run_routers(const Program& g, ExecutableTask& t, int64_t step, const State& state) {
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
      throw NodeError(node.name, t.id(), step, std::current_exception(), "router failed: " + what);
    }
    for (Destination& d : route.items()) {
      if (std::holds_alternative<Send>(d)) {
        route_to(g, t, d, nullptr);
        continue;
      }
      std::string& name = std::get<std::string>(d);
      if (!br.path_map.mapping().empty()) {
        auto it = br.path_map.mapping().find(name);
        if (it == br.path_map.mapping().end()) {
          std::string keys;
          for (const auto& [k, v] : br.path_map.mapping()) keys += (keys.empty() ? "" : ", ") + k;
          throw InvalidUpdateError("graph '" + g.name + "': router of node '" + node.name + "' returned '" + name +
                                   "', which is not in its path map (keys: " + keys + ")");
        }
        name = it->second;
      } else if (const auto& declared = br.path_map.destinations(); !declared.empty() &&
                 std::find(declared.begin(), declared.end(), name) == declared.end()) {
        // As LangGraph: a router given its destinations may return only those (END included).
        std::string list;
        for (const auto& dest : declared) list += (list.empty() ? "" : ", ") + dest;
        throw InvalidUpdateError("graph '" + g.name + "': router of node '" + node.name + "' returned '" + name +
                                 "', which is not among its declared destinations (" + list + ")");
      }
      route_to(g, t, d, nullptr);
    }
  }
}

}  // namespace

const json* ChannelView::find(std::string_view key) const {
  int id = g_->find_key(key);
  if (id < 0) return nullptr;
  if (node_ && !node_->input_mask.empty() && !node_->input_mask[id]) return nullptr;
  return static_cast<const JsonChannel*>((*channels_)[id])->peek();
}

void ChannelView::for_each(const std::function<void(const std::string&, const json&)>& fn) const {
  for (int id = 0; id < g_->num_state_keys; ++id) {
    if (node_ && !node_->input_mask.empty() && !node_->input_mask[id]) continue;
    if (const json* v = static_cast<const JsonChannel*>((*channels_)[id])->peek()) fn(g_->state_keys[id], *v);
  }
}

void start_channels(const Program& g, ChannelState& s) {
  const std::size_t n = g.channels.size();
  s.versions = g.initial_version;  // channels that start with a value count as written by the input step
  s.chan_mark.assign(n, 0);
  s.buckets.resize(n);
  s.node_mark.assign(g.nodes.size(), 0);
  s.seen.resize(g.nodes.size());
  for (const auto& nd : g.nodes) s.seen[nd.id].assign(nd.triggers.size(), 0);
  s.pending_sends.clear();
  // The input step (-1) triggers __start__; step 0 runs the __start__ task. A typed graph's
  // input waits in its run (the __start__ task writes it); __start__ only triggers.
  if (g.typed) {
    Value trigger = json::object();
    s.channels[g.start_channel]->update_values(std::span<Value>(&trigger, 1));
  }
  s.max_version = 1;
  s.version_floor = 0;
  s.versions[g.start_channel] = s.max_version;
  s.updated = {g.start_channel};
  s.live_volatile = {g.start_channel};
}

const std::vector<int>& triggered_nodes(const Program& g, ChannelState& s) {
  ++s.epoch;
  std::vector<int>& candidates = s.candidates;
  candidates.clear();
  for (int c : s.updated)
    for (int n : g.trigger_to_nodes[c])
      if (s.node_mark[n] != s.epoch) {
        s.node_mark[n] = s.epoch;
        candidates.push_back(n);
      }
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) { return g.nodes[a].rank < g.nodes[b].rank; });
  std::erase_if(candidates, [&](int n) {
    const NodeData& node = g.nodes[n];
    for (std::size_t j = 0; j < node.triggers.size(); ++j) {
      int c = node.triggers[j];
      if (s.channels[c]->is_available() && s.versions[c] > s.seen[n][j]) return false;
    }
    return true;
  });
  return candidates;
}

const std::vector<ExecutableTask*>& path_order(const std::vector<TaskPtr>& tasks, ChannelState& s) {
  std::vector<ExecutableTask*>& order = s.order;
  order.clear();
  for (const auto& t : tasks)
    if (!t->push) order.push_back(t.get());
  for (const auto& t : tasks)
    if (t->push) order.push_back(t.get());
  return order;
}

namespace {
void apply_go_to(const Program& g, ExecutableTask& t, Route& go_to, const char* what) {
  for (Destination& d : go_to.items()) route_to(g, t, d, what);
}

/// A Command's update, checked: one for the parent graph is thrown as ParentCommand.
json& command_update(const Program& g, const NodeData& node, Command& cmd, ResultOptions options) {
  if (cmd.graph == Command::PARENT) {
    if (!options.has_parent)
      throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name +
                               "' returned Command with graph=PARENT, but this graph has no parent");
    Command up = std::move(cmd);
    up.graph.clear();
    throw ParentCommand(std::move(up));
  }
  if (!cmd.graph.empty())
    throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name + "' returned Command with graph='" +
                             cmd.graph + "'; only Command::PARENT (or none) is known");
  if (!cmd.resume.is_null())
    throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name +
                             "' returned Command with resume; resume is an input of invoke, not a node result");
  return cmd.update;
}

/// Checks an update object. As LangGraph: the ids add_messages gives a node's messages show in
/// its `updates` part too.
void check_update(const Program& g, const NodeData& node, json& update) {
  if (!update.is_object())
    throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name + "' returned " + preview(update) +
                             ", expected an object of state keys, a Command, or nothing");
  for (int key : g.message_keys)
    if (auto it = update.find(g.state_keys[key]); it != update.end()) assign_message_ids(*it);
}

/// The update's values as the task's writes (moved out), checked against the schema and the
/// node's output_keys; `each` sees every key and value first.
template <class Each>
void add_writes(const Program& g, const NodeData& node, ExecutableTask& t, json& update, Each&& each) {
  t.writes.reserve(t.writes.size() + update.size());
  for (auto& [key, value] : update.items()) {
    int id = g.key_of(key, [&] { return "node '" + node.name + "' wrote"; });
    if (!node.output_mask.empty() && !node.output_mask[id])
      throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name + "' wrote key '" + key +
                               "', which is not in its output_keys");
    each(key, value);
    t.writes.emplace_back(id, std::move(value));
  }
}

/// A list result (LangGraph's array return): each item's writes in order.
void collect_list(const Program& g, ExecutableTask& t, std::vector<ResultItem>& items, ResultOptions options) {
  const NodeData& node = *t.node;
  // As LangGraph: a list is the form for results with Commands, and the (first) Command for
  // the parent goes up, the task's other items not applied here.
  bool any_command = false;
  for (ResultItem& item : items)
    if (Command* cmd = std::get_if<Command>(&item)) {
      any_command = true;
      if (cmd->graph == Command::PARENT) command_update(g, node, *cmd, options);
    }
  if (!any_command)
    throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name +
                             "' returned a list holding no Command; return an object of state keys, a Command, "
                             "or a list holding at least one Command");
  // What `updates` shows, as LangGraph: the task's writes as one object, or, when it wrote a
  // key more than once, one single-key object per write.
  json shown = json::array();
  bool repeated = false;
  for (ResultItem& item : items) {
    Command* cmd = std::get_if<Command>(&item);
    json& update = cmd ? command_update(g, node, *cmd, options) : std::get<json>(item);
    if (!update.is_null()) {
      check_update(g, node, update);
      add_writes(g, node, t, update, [&](const std::string& key, const json& value) {
        if (!options.keep_update) return;
        for (const json& w : shown) repeated = repeated || w.contains(key);
        shown.push_back(json{{key, value}});
      });
    }
    if (cmd) apply_go_to(g, t, cmd->go_to, "Command");
  }
  if (!options.keep_update || shown.empty()) {
    t.stream_update = nullptr;
  } else if (repeated) {
    t.stream_update = std::move(shown);
  } else {
    t.stream_update = json::object();
    for (json& w : shown) t.stream_update.update(w);
  }
}
}  // namespace

void collect_writes(const Program& g, ExecutableTask& t, NodeResult&& r, ResultOptions options) {
  const NodeData& node = *t.node;
  if (WriteList* typed = r.typed_writes()) {
    // The field writes stay batched unless a stream part shows them (or the barrier must
    // group them with other tasks' writes: apply_writes flattens then).
    if (!options.keep_batch) typed->flatten();
    else t.batch = std::move(typed->batch);
    if (options.keep_update) {
      t.stream_update = json::object();
      for (const auto& [i, v] : typed->writes) t.stream_update[g.state_keys[i]] = v.to_json();
    } else {
      t.stream_update = nullptr;
    }
    t.writes = std::move(typed->writes);
    apply_go_to(g, t, typed->go_to, "Update");
    t.control.insert(t.control.end(), node.edge_writes.begin(), node.edge_writes.end());
    t.control.insert(t.control.end(), node.join_writes.begin(), node.join_writes.end());
    return;
  }
  if (g.typed && !r.is_none())
    throw InvalidUpdateError("graph '" + g.name + "': node '" + node.name +
                             "' returned JSON or a Command in a typed graph; return sp::Update<S>");
  if (std::vector<ResultItem>* list = r.list()) {
    collect_list(g, t, *list, options);
  } else {
    json* update = r.update();
    Command* cmd = r.command();
    if (cmd) update = &command_update(g, node, *cmd, options);
    if (update && !update->is_null()) {
      check_update(g, node, *update);
      if (options.keep_update) t.stream_update = *update;
      add_writes(g, node, t, *update, [](const std::string&, const json&) {});
    } else {
      t.stream_update = nullptr;
    }
    if (cmd) apply_go_to(g, t, cmd->go_to, "Command");
  }
  t.control.insert(t.control.end(), node.edge_writes.begin(), node.edge_writes.end());
  t.control.insert(t.control.end(), node.join_writes.begin(), node.join_writes.end());
}

json updates_of(const Program& g, const std::vector<std::pair<int, Value>>& writes) {
  if (writes.empty()) return nullptr;
  bool repeated = false;
  for (std::size_t i = 0; i < writes.size() && !repeated; ++i)
    for (std::size_t j = 0; j < i && !repeated; ++j) repeated = writes[i].first == writes[j].first;
  json out = repeated ? json::array() : json::object();
  for (const auto& [key, value] : writes) {
    if (repeated) out.push_back(json{{g.state_keys[key], value.to_json()}});
    else out[g.state_keys[key]] = value.to_json();
  }
  return out;
}

json task_result_of(json updates) {
  if (!updates.is_array()) return updates;
  json out = json::object();
  for (json& one : updates)
    for (auto& [key, value] : one.items()) {
      auto it = out.find(key);
      if (it == out.end()) {
        out[key] = std::move(value);
      } else {
        if (!(it->is_object() && it->size() == 1 && it->contains("$writes")))
          *it = json{{"$writes", json::array({std::move(*it)})}};
        (*it)["$writes"].push_back(std::move(value));
      }
    }
  return out;
}

void route_to(const Program& g, ExecutableTask& t, Destination& d, const char* what) {
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
    g.node_of(s.node, who);
    t.sends.push_back(std::move(s));
    return;
  }
  if (int id = g.node_of(std::get<std::string>(d), who)) t.control.push_back(g.branch_channel[id]);
}

bool apply_input_writes(const Program& g, ChannelState& s, ExecutableTask& t) {
  if (t.writes.empty() && t.control.empty() && t.sends.empty()) return false;
  const uint64_t version = s.next_version();
  ++s.epoch;
  bool any = false;
  std::vector<std::pair<int, std::vector<Value>>> grouped;
  auto add = [&](int c, Value v) {
    for (auto& [gc, vals] : grouped)
      if (gc == c) return vals.push_back(std::move(v));
    grouped.emplace_back(c, std::vector<Value>{});
    grouped.back().second.push_back(std::move(v));
  };
  for (auto& [c, v] : t.writes) add(c, std::move(v));
  for (int c : t.control) add(c, json(nullptr));
  for (auto& [c, vals] : grouped)
    if (s.channels[c]->update_values(std::span<Value>(vals))) bump(g, s, c, version, any);
  for (Send& send : t.sends) s.pending_sends.push_back(std::move(send));
  for (int c : s.updated)
    if (g.channels[c].is_volatile && s.channels[c]->is_available() &&
        std::find(s.live_volatile.begin(), s.live_volatile.end(), c) == s.live_volatile.end())
      s.live_volatile.push_back(c);
  return true;
}

void apply_writes(const Program& g, ChannelState& s, const std::vector<TaskPtr>& tasks, int64_t step) {
  const std::vector<ExecutableTask*>& order = path_order(tasks, s);

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
    for (std::size_t j = 0; j < node.triggers.size(); ++j) s.seen[node.id][j] = s.versions[node.triggers[j]];
  }

  // Routers see the state plus their own task's writes only (taken before the writes apply).
  RouterReads fresh_reads;
  if (any_router && order.size() > 1) fresh_reads = router_reads(g, s, order);

  const uint64_t version = s.next_version();
  ++s.epoch;
  s.updated.clear();
  bool any_trigger = false;

  for (ExecutableTask* t : order) {
    if (t->push || t->synthetic) continue;
    for (int c : t->node->triggers)
      if (s.channels[c]->consume()) s.versions[c] = version;
  }

  apply_grouped(g, s, order, step, /*control=*/false, version, any_trigger);

  static const std::vector<std::pair<int, std::unique_ptr<Channel>>> kNoOverlay;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i]->node->branches.empty()) continue;
    if (g.typed) {
      const void* fresh = !fresh_reads.typed.empty() && fresh_reads.typed[i]
                              ? fresh_reads.typed[i].get()
                              : g.typed->state(*s.channels[g.holder_channel]);
      run_routers(g, *order[i], step, State(fresh, nullptr));
      continue;
    }
    FreshView fresh(g, s.channels, fresh_reads.overlays.empty() ? kNoOverlay : fresh_reads.overlays[i]);
    run_routers(g, *order[i], step, State(fresh));
  }

  apply_grouped(g, s, order, step, /*control=*/true, version, any_trigger);

  for (ExecutableTask* t : order)
    for (Send& send : t->sends) s.pending_sends.push_back(std::move(send));

  // Volatile channels not written this step are cleared (a version bump, not a trigger).
  for (int c : s.live_volatile) {
    if (s.chan_mark[c] == s.epoch) continue;
    if (s.channels[c]->update_values(std::span<Value>())) s.versions[c] = version;
  }
  s.live_volatile.clear();
  for (int c : s.updated)
    if (g.channels[c].is_volatile && s.channels[c]->is_available()) s.live_volatile.push_back(c);

  // Tentatively the last step: deferred nodes and their joins become available.
  if (!any_trigger) {
    for (int c : g.after_finish_channels)
      if (s.channels[c]->finish()) bump(g, s, c, version, any_trigger);
  }
}

}  // namespace superstep::internal
