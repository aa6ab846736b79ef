// Inspection (docs/persistence.md): get_state's snapshot of a loaded checkpoint, and
// update_state, which applies values as a node and stores a checkpoint. Runs on the calling
// thread.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/loop.hpp"
#include "pregel/persistence.hpp"

namespace superstep {

json PregelTask::to_json() const {
  json j = {{"id", id}, {"name", name}, {"path", path}, {"interrupts", json::array()}};
  for (const Interrupt& i : interrupts) j["interrupts"].push_back(i.to_json());
  if (error) j["error"] = *error;
  if (!result.is_null()) j["result"] = result;
  if (state) j["state"] = state->to_json();
  else if (state_config) j["state"] = state_config->to_json();
  return j;
}

json StateSnapshot::to_json() const {
  json j = {{"values", values},         {"next", next},   {"config", config.to_json()},
            {"metadata", metadata},     {"created_at", created_at},
            {"parent_config", parent_config ? parent_config->to_json() : json(nullptr)},
            {"tasks", json::array()},   {"interrupts", json::array()}};
  for (const auto& t : tasks) j["tasks"].push_back(t.to_json());
  for (const auto& i : interrupts) j["interrupts"].push_back(i.to_json());
  return j;
}

namespace internal {

StateSnapshot Persistence::snapshot(bool apply_pending, bool subgraphs, bool take) {
  StateSnapshot s;
  s.config = current_;
  if (!has_checkpoint_) return s;
  if (apply_null_writes()) inspected_writes_ = true;
  s_.prepare_next_tasks(&loop_);
  match_pending_writes();
  if (!apply_pending)
    for (auto& t : s_.tasks)
      if (t->cached) {
        // A past checkpoint: its step was applied in its child; show the state as it was.
        json result = std::move(t->stream_update);
        t->clear_results();
        t->cached = false;
        t->stream_update = std::move(result);
      }
  // match_pending_writes clears what re-running tasks asked; read it again for the snapshot.
  for (auto& t : s_.tasks) {
    superstep::PregelTask info;
    info.id = t->id();
    info.name = t->node->name;
    info.path = task_path(*t);
    // As LangGraph: a task shows the interrupts and error stored for it (match_pending_writes),
    // answered or not (a finished task keeps the interrupt it was resumed from), and on the
    // latest checkpoint a task holding an answer (a node paused at its second interrupt) is not
    // in `next`.
    info.interrupts = t->asked;
    info.error = t->saved_error;
    if (!t->cached) {
      if (!t->stream_update.is_null()) info.result = task_result_of(std::move(t->stream_update));  // not applied: not needed again
      // A subgraph task's answers by id are forwarded to the subgraph (subgraph_resume): they
      // are not writes of its own, so it stays in `next` (as LangGraph, which stores them as a
      // write of no task).
      if (!(apply_pending && !t->resume.empty() && !t->node->subgraph)) s.next.push_back(info.name);
    } else {
      info.result = task_result_of(t->stream_update);  // null (no result shown) when it wrote no state key, as LangGraph.js
    }
    // As LangGraph: every subgraph task of the step names (or, with `subgraphs`, shows) the
    // subgraph's state, a finished one too, and (as LangGraph Python; LangGraph.js shows a
    // failed task's error alone) a failed one; a subgraph with no checkpoint yet shows an empty
    // snapshot.
    if (const auto& child = t->node->subgraph) {
      info.state_config = CheckpointConfig{s_.config.thread_id, s_.task_ns(*t), std::nullopt};
      ParentLink link;
      link.saver = child->checkpointer ? child->checkpointer : saver_;
      if (subgraphs) {
        if (auto tuple = link.saver->get_tuple(*info.state_config)) {
          RunConfig cfg = s_.config;
          cfg.checkpoint_ns = info.state_config->checkpoint_ns;
          cfg.checkpoint_id.reset();
          PregelLoop sub(child, cfg, &*tuple, PregelLoop::Inspect{}, &link);
          info.state = std::make_shared<StateSnapshot>(sub.snapshot(/*apply_pending=*/true, /*subgraphs=*/true));
        } else {
          auto empty = std::make_shared<StateSnapshot>();
          empty->config = *info.state_config;
          info.state = std::move(empty);
        }
      }
    }
    for (const Interrupt& i : info.interrupts) s.interrupts.push_back(i);
    s.tasks.push_back(std::move(info));
  }
  std::vector<TaskPtr> rest;
  for (auto& t : s_.tasks)
    if (!t->cached) rest.push_back(std::move(t));
  std::erase_if(s_.tasks, [](const TaskPtr& t) { return !t; });
  if (!s_.tasks.empty()) {
    apply_writes(*s_.g, s_.cs, s_.tasks, s_.step);
    inspected_writes_ = true;
  }
  for (auto& t : rest) s_.tasks.push_back(std::move(t));
  s.values = s_.state_json();
  if (take) {
    s.metadata = std::move(metadata_);
    s.created_at = std::move(created_at_);
    s.parent_config = std::move(parent_);
  } else {
    s.metadata = metadata_;
    s.created_at = created_at_;
    s.parent_config = parent_;
  }
  return s;
}

std::string Persistence::last_node_seen() const {
  // As LangGraph: every (version, node) a node has seen; none yet -> START (the update is the
  // thread's input); else the node that saw the newest version, unless the newest two share it.
  uint64_t best = 0;
  int count = 0;
  std::string name = START;
  for (const NodeData& nd : s_.g->nodes)
    for (uint64_t v : s_.cs.seen[nd.id]) {
      if (v == 0 || v < best) continue;
      count = v == best ? count + 1 : 1;
      best = v;
      name = nd.name;
    }
  if (count > 1)
    throw InvalidUpdateError("graph '" + s_.g->name + "': update_state cannot tell which node the update is from "
                             "(the last step ran several); pass as_node (nodes: " + s_.g->node_list() + ")");
  return name;
}

CheckpointConfig Persistence::update(const json& values, const std::string& as_node) {
  return update(std::vector<StateUpdate>{{values, as_node}});
}

CheckpointConfig Persistence::update(const std::vector<StateUpdate>& updates) {
  if (updates.empty())
    throw InvalidUpdateError("graph '" + s_.g->name + "': a superstep of state updates needs at least one update");
  for (const auto& u : updates)
    if (updates.size() > 1 && (u.as_node == "__copy__" || u.as_node == END || u.as_node == "__input__"))
      throw InvalidUpdateError("graph '" + s_.g->name + "': an update as '" + u.as_node +
                               "' must be alone in its superstep");
  const json& values = updates.front().values;
  const std::string& as_node = updates.front().as_node;
  const int64_t step = loaded_step_;
  if (s_.config.checkpoint_id && has_checkpoint_) continue_versions_after_latest();
  if (as_node == "__copy__") {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + s_.g->name + "': update_state as '__copy__' forks a checkpoint and takes no values");
    s_.step = step + 1;  // as LangGraph: the fork is at the step after the one it copies
    save_checkpoint("fork");
    return current_;
  }
  // Writes of tasks that finished in a pending step are applied first (on the latest checkpoint).
  if (!s_.config.checkpoint_id && has_checkpoint_ && !pending_.empty()) {
    apply_null_writes();
    s_.prepare_next_tasks(&loop_);
    match_pending_writes();
    std::erase_if(s_.tasks, [](const TaskPtr& t) { return !t->cached; });
    if (!s_.tasks.empty()) apply_writes(*s_.g, s_.cs, s_.tasks, s_.step);
    s_.recycle_tasks();
    seen_cache_valid_ = false;
    // The tasks that did not finish are planned again from the new versions.
    s_.cs.updated = s_.g->trigger_channels;
  }
  if (as_node == END) {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + s_.g->name + "': update_state as END takes no values (it ends the pending tasks)");
    discard_tasks();
    s_.step = step + 1;
    save_checkpoint("update");
    return current_;
  }
  if (as_node == "__input__") {
    if (!values.is_object())
      throw InvalidUpdateError("graph '" + s_.g->name + "': update_state as '__input__' needs an object of state keys");
    discard_tasks();
    Value in = values;
    s_.cs.channels[s_.g->start_channel]->update_values(std::span<Value>(&in, 1));
    s_.cs.versions[s_.g->start_channel] = s_.cs.next_version();
    s_.step = has_checkpoint_ ? step + 1 : -1;  // a thread's first checkpoint is its input, at step -1
    save_checkpoint("input");
    return current_;
  }
  s_.recycle_tasks();
  for (const auto& u : updates) {  // the updates of one superstep apply together, as parallel nodes'
    const json& values = u.values;
    std::string node_name = u.as_node.empty() ? last_node_seen() : u.as_node;
    int n = s_.g->find_node(node_name);  // __start__ too: the values as input, START's edges taken
    if (n < 0)
      throw InvalidUpdateError("graph '" + s_.g->name + "': update_state as_node '" + node_name +
                               "' is not a node (nodes: " + s_.g->node_list() + ")");
    TaskPtr t(new ExecutableTask());
    t->run = &loop_;
    t->node = &s_.g->nodes[n];
    t->step = s_.step;
    t->synthetic = true;
    t->runtime.emplace(*t);
    if (s_.g->typed) {
      if (!values.is_null()) {
        if (!values.is_object())
          throw InvalidUpdateError("graph '" + s_.g->name + "': update_state values must be an object of state keys");
        for (auto it = values.begin(); it != values.end(); ++it) s_.g->key_of(it.key(), [] { return std::string("update_state has"); });
        t->writes = s_.g->typed->writes_from_json(values);
      }
      const NodeData& nd = *t->node;
      t->control.insert(t->control.end(), nd.edge_writes.begin(), nd.edge_writes.end());
      t->control.insert(t->control.end(), nd.join_writes.begin(), nd.join_writes.end());
    } else {
      collect_writes(*s_.g, *t, NodeResult(values), s_.result_options());
    }
    s_.tasks.push_back(std::move(t));
  }
  apply_writes(*s_.g, s_.cs, s_.tasks, s_.step);
  s_.recycle_tasks();
  s_.step = step + 1;
  save_checkpoint("update");
  return current_;
}

}  // namespace internal
}  // namespace superstep
