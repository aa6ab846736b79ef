// Inspection (docs/persistence.md): get_state's snapshot of a loaded checkpoint, and
// update_state, which applies values as a node and stores a checkpoint. Runs on the calling
// thread.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"

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

PregelRun::PregelRun(std::shared_ptr<const Program> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
                     const ParentLink* link)
    : g_(std::move(graph)), config_(std::move(config)), parent_(link) {
  config_.durability = Durability::sync;
  init({});
  start_persist();
  if (g_->typed) cs_.channels[g_->start_channel]->restore(std::nullopt);
  cs_.versions[g_->start_channel] = 0;
  cs_.updated.clear();
  cs_.live_volatile.clear();
  if (tuple) {
    restore(*tuple);
  } else {
    step_ = 0;
  }
}



StateSnapshot PregelRun::snapshot(bool apply_pending, bool subgraphs, bool take) {
  Persist& p = *cp_;
  StateSnapshot s;
  s.config = p.current;
  if (!p.has_checkpoint) return s;
  if (apply_null_writes()) p.inspected_writes = true;
  prepare_next_tasks();
  match_pending_writes();
  if (!apply_pending)
    for (auto& t : tasks_)
      if (t->cached) {
        // A past checkpoint: its step was applied in its child; show the state as it was.
        json result = std::move(t->stream_update);
        t->clear_results();
        t->cached = false;
        t->stream_update = std::move(result);
      }
  // match_pending_writes clears what re-running tasks asked; read it again for the snapshot.
  for (auto& t : tasks_) {
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
      if (!t->stream_update.is_null()) info.result = std::move(t->stream_update);  // not applied: not needed again
      if (!(apply_pending && !t->resume.empty())) s.next.push_back(info.name);
      if (const auto& child = t->node->subgraph) {
        info.state_config = CheckpointConfig{config_.thread_id, task_ns(*t), std::nullopt};
        ParentLink link;
        link.saver = child->checkpointer ? child->checkpointer : p.saver;
        if (subgraphs)
          if (auto tuple = link.saver->get_tuple(*info.state_config)) {
            RunConfig cfg = config_;
            cfg.checkpoint_ns = info.state_config->checkpoint_ns;
            cfg.checkpoint_id.reset();
            PregelRun sub(child, cfg, &*tuple, Inspect{}, &link);
            info.state = std::make_shared<StateSnapshot>(sub.snapshot(/*apply_pending=*/true, /*subgraphs=*/true));
          }
      }
    } else {
      info.result = t->stream_update.is_null() ? json::object() : t->stream_update;
    }
    for (const Interrupt& i : info.interrupts) s.interrupts.push_back(i);
    s.tasks.push_back(std::move(info));
  }
  std::vector<TaskPtr> rest;
  for (auto& t : tasks_)
    if (!t->cached) rest.push_back(std::move(t));
  std::erase_if(tasks_, [](const TaskPtr& t) { return !t; });
  if (!tasks_.empty()) {
    apply_writes(*g_, cs_, tasks_, step_);
    p.inspected_writes = true;
  }
  for (auto& t : rest) tasks_.push_back(std::move(t));
  s.values = state_json();
  if (take) {
    s.metadata = std::move(p.metadata);
    s.created_at = std::move(p.created_at);
    s.parent_config = std::move(p.parent);
  } else {
    s.metadata = p.metadata;
    s.created_at = p.created_at;
    s.parent_config = p.parent;
  }
  return s;
}

std::string PregelRun::last_node_seen() const {
  // As LangGraph: every (version, node) a node has seen; none yet -> START (the update is the
  // thread's input); else the node that saw the newest version, unless the newest two share it.
  uint64_t best = 0;
  int count = 0;
  std::string name = START;
  for (const NodeData& nd : g_->nodes)
    for (uint64_t v : cs_.seen[nd.id]) {
      if (v == 0 || v < best) continue;
      count = v == best ? count + 1 : 1;
      best = v;
      name = nd.name;
    }
  if (count > 1)
    throw InvalidUpdateError("graph '" + g_->name + "': update_state cannot tell which node the update is from "
                             "(the last step ran several); pass as_node (nodes: " + g_->node_list() + ")");
  return name;
}

CheckpointConfig PregelRun::update(const json& values, const std::string& as_node) {
  Persist& p = *cp_;
  const int64_t step = p.loaded_step;
  if (config_.checkpoint_id && p.has_checkpoint) continue_versions_after_latest();
  if (as_node == "__copy__") {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as '__copy__' forks a checkpoint and takes no values");
    step_ = step;
    save_checkpoint("fork");
    return p.current;
  }
  // Writes of tasks that finished in a pending step are applied first (on the latest checkpoint).
  if (!config_.checkpoint_id && p.has_checkpoint && !p.pending.empty()) {
    apply_null_writes();
    prepare_next_tasks();
    match_pending_writes();
    std::erase_if(tasks_, [](const TaskPtr& t) { return !t->cached; });
    if (!tasks_.empty()) apply_writes(*g_, cs_, tasks_, step_);
    recycle_tasks();
    p.seen_cache_valid = false;
    // The tasks that did not finish are planned again from the new versions.
    cs_.updated.clear();
    for (std::size_t i = 0; i < cs_.channels.size(); ++i)
      if (g_->channels[i].is_trigger) cs_.updated.push_back(static_cast<int>(i));
  }
  if (as_node == END) {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as END takes no values (it ends the pending tasks)");
    discard_tasks();
    step_ = step + 1;
    save_checkpoint("update");
    return p.current;
  }
  if (as_node == "__input__") {
    if (!values.is_object())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as '__input__' needs an object of state keys");
    discard_tasks();
    Value in = values;
    cs_.channels[g_->start_channel]->update_values(std::span<Value>(&in, 1));
    cs_.versions[g_->start_channel] = cs_.next_version();
    step_ = p.has_checkpoint ? step + 1 : -1;  // a thread's first checkpoint is its input, at step -1
    save_checkpoint("input");
    return p.current;
  }
  std::string node_name = as_node.empty() ? last_node_seen() : as_node;
  int n = g_->find_node(node_name);  // __start__ too: the values as input, START's edges taken
  if (n < 0)
    throw InvalidUpdateError("graph '" + g_->name + "': update_state as_node '" + node_name +
                             "' is not a node (nodes: " + g_->node_list() + ")");
  recycle_tasks();
  TaskPtr t(new ExecutableTask());
  t->run = this;
  t->node = &g_->nodes[n];
  t->step = step_;
  t->synthetic = true;
  t->runtime.emplace(*t);
  if (g_->typed) {
    if (!values.is_null()) {
      if (!values.is_object())
        throw InvalidUpdateError("graph '" + g_->name + "': update_state values must be an object of state keys");
      for (auto it = values.begin(); it != values.end(); ++it) g_->key_of(it.key(), [] { return std::string("update_state has"); });
      t->writes = g_->typed->writes_from_json(values);
    }
    const NodeData& nd = *t->node;
    t->control.insert(t->control.end(), nd.edge_writes.begin(), nd.edge_writes.end());
    t->control.insert(t->control.end(), nd.join_writes.begin(), nd.join_writes.end());
  } else {
    process_result(*t, NodeResult(values));
  }
  tasks_.push_back(std::move(t));
  apply_writes(*g_, cs_, tasks_, step_);
  recycle_tasks();
  step_ = step + 1;
  save_checkpoint("update");
  return p.current;
}

}  // namespace internal
}  // namespace superstep
