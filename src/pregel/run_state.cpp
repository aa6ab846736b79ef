// What the loop, the runner and persistence share (run_state.hpp).
#include "pregel/run_state.hpp"

#include "internal/ids.hpp"
#include "pregel/algo.hpp"

namespace superstep::internal {

const std::string& RunState::checkpoint_id() const {
  std::lock_guard lock(checkpoint_id_mutex_);
  if (checkpoint_id_.empty()) checkpoint_id_ = uuid6();
  return checkpoint_id_;
}

void RunState::set_checkpoint_id(std::string id) {
  std::lock_guard lock(checkpoint_id_mutex_);
  checkpoint_id_ = std::move(id);
}

void RunState::clear_checkpoint_id() { checkpoint_id_.clear(); }  // between steps: no task reads it

void RunState::recycle_tasks() {
  for (auto& t : tasks) {
    t->recycle();
    spare_tasks.push_back(std::move(t));
  }
  tasks.clear();
}

void RunState::prepare_next_tasks(PregelLoop* run) {
  recycle_tasks();
  if (!checkpointed) clear_checkpoint_id();  // made on first use: most runs never need a task id
  auto make = [&](const NodeData& node) {
    TaskPtr t;
    if (!spare_tasks.empty()) {
      t = std::move(spare_tasks.back());
      spare_tasks.pop_back();
    } else {
      t.reset(new ExecutableTask());
    }
    t->run = run;
    t->node = &node;
    t->step = step;
    return t;
  };
  // PUSH tasks first: one per pending Send, in Send order.
  for (std::size_t i = 0; i < cs.pending_sends.size(); ++i) {
    Send& s = cs.pending_sends[i];
    auto t = make(g->nodes[g->find_node(s.node)]);
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
    tasks.push_back(std::move(t));
  }
  cs.pending_sends.clear();

  // PULL tasks: the triggered nodes, in name order.
  for (int n : triggered_nodes(*g, cs)) {
    const NodeData& node = g->nodes[n];
    auto t = make(node);
    if (g->typed) {
      t->input.emplace(g->typed->state(*cs.channels[g->holder_channel]), nullptr);
    } else {
      t->view.emplace(*g, cs.channels, &node);
      t->input.emplace(*t->view);
    }
    t->runtime.emplace(*t);
    tasks.push_back(std::move(t));
  }
}

bool RunState::step_wrote_state() const {
  for (const auto& t : tasks) {
    if (!t->writes.empty()) return true;
    if (t->batch)
      for (int field = 0; field < g->num_state_keys; ++field)
        if (t->batch->writes(field)) return true;
  }
  return false;
}

bool RunState::step_wrote_output() const {
  if (!g->has_output_schema) return step_wrote_state();
  for (const auto& t : tasks)
    for (const auto& w : t->writes)
      if (w.first < g->num_state_keys && g->output_mask[w.first]) return true;
  return false;
}

ResultOptions RunState::result_options() const {
  const bool keep_update = wants(StreamMode::updates);
  const bool shown = keep_update || checkpointed || wants(StreamMode::tasks) || wants(StreamMode::debug);
  return {.keep_update = keep_update, .keep_batch = !shown, .has_parent = parent != nullptr};
}

std::string RunState::task_ns(const ExecutableTask& t) const {
  std::string segment = t.node->name + ":" + t.id();
  return config.checkpoint_ns.empty() ? segment : config.checkpoint_ns + "|" + segment;
}

// Keys are inserted in name order with a hint: O(1) each into nlohmann's sorted object.
json RunState::state_json() const {
  if (g->typed) return g->typed->to_json(g->typed->state(*cs.channels[g->holder_channel]));
  json out = json::object();
  auto& obj = out.get_ref<json::object_t&>();
  for (int id : g->keys_by_name)
    if (const json* v = json_channel(id)->peek()) obj.emplace_hint(obj.end(), g->state_keys[id], *v);
  return out;
}

json RunState::output_json() const {
  if (!g->has_output_schema) return state_json();
  json out = json::object();
  auto& obj = out.get_ref<json::object_t&>();
  for (int id : g->output_keys_by_name)
    if (const json* v = json_channel(id)->peek()) obj.emplace_hint(obj.end(), g->state_keys[id], *v);
  return out;
}

json RunState::take_state() {
  json out = json::object();
  auto& obj = out.get_ref<json::object_t&>();
  for (int id : g->keys_by_name)
    if (std::optional<json> v = static_cast<JsonChannel*>(cs.channels[id])->take())
      obj.emplace_hint(obj.end(), g->state_keys[id], std::move(*v));
  return out;
}

}  // namespace superstep::internal
