// Subgraphs: running a compiled graph as a node (see subgraph.hpp).
#include "pregel/subgraph.hpp"

#include "pregel/persist.hpp"
#include "pregel/run.hpp"

namespace superstep::internal {

NodeFn subgraph_node(std::shared_ptr<const Program> child) {
  return NodeFn([child = std::move(child)](const State& state, Runtime& rt) -> NodeResult {
    auto& t = static_cast<ExecutableTask&>(rt.context());
    return t.run->run_subgraph(t, child, state);
  });
}

std::string PregelRun::task_ns(const ExecutableTask& t) const {
  std::string segment = t.node->name + ":" + t.id();
  return config_.checkpoint_ns.empty() ? segment : config_.checkpoint_ns + "|" + segment;
}

NodeResult PregelRun::run_subgraph(ExecutableTask& t, const std::shared_ptr<const Program>& child, const State& state) {
  ParentLink link;
  link.saver = child->checkpointer ? child->checkpointer : saver();
  link.store = child->store ? child->store.get() : store();
  if (parent_) {
    link.parents = parent_->parents;
    link.ns = parent_->ns;
  }
  if (cp_) link.parents[config_.checkpoint_ns] = checkpoint_id();
  link.ns.push_back(t.node->name + ":" + t.id());

  RunConfig cfg = config_;
  cfg.checkpoint_ns = task_ns(t);
  cfg.checkpoint_id.reset();
  cfg.interrupt_before.reset();  // per-call lists are the parent's
  cfg.interrupt_after.reset();
  if (cp_) cfg.run_id = cp_->run_id;
  std::vector<StreamMode> modes;
  if (config_.subgraphs)
    for (int m = 0; m <= static_cast<int>(StreamMode::checkpoints); ++m)
      if (wants(static_cast<StreamMode>(m))) modes.push_back(static_cast<StreamMode>(m));

  // Checkpoints under this task's namespace mean the task ran before and paused, failed or
  // crashed: the subgraph continues from there (with the resume value meant for it, if any).
  const bool ran_before =
      link.saver && !cfg.thread_id.empty() && link.saver->get_tuple({cfg.thread_id, cfg.checkpoint_ns, std::nullopt});
  std::unique_ptr<PregelRun> run;
  if (ran_before) {
    json answer = subgraph_resume(t);
    if (!answer.is_null()) run = std::make_unique<PregelRun>(child, Command{.resume = std::move(answer)}, cfg, modes, &link);
    else run = std::make_unique<PregelRun>(child, json(nullptr), cfg, modes, &link);
  } else {
    json input = json::object();
    for (int id : child->keys_by_name)
      if (const json* v = state.find(child->state_keys[id])) input[child->state_keys[id]] = *v;
    run = std::make_unique<PregelRun>(child, input, cfg, modes, &link);
  }
  try {
    while (std::optional<StreamPart> part = run->next()) {
      if (part->ns.empty()) part->ns = link.ns;  // nested subgraphs' parts carry their full path already
      emit_part(std::move(*part));
    }
  } catch (ParentCommand& up) {
    return NodeResult(std::move(up.command));
  }
  if (run->cp_ && run->cp_->paused) throw GraphInterrupt(run->cp_->interrupts);
  // The subgraph's final values of the keys both graphs have are this node's update.
  json out = run->result();
  json update = json::object();
  for (auto it = out.begin(); it != out.end(); ++it)
    if (g_->find_key(it.key()) >= 0) update[it.key()] = std::move(it.value());
  return NodeResult(std::move(update));
}

}  // namespace superstep::internal
