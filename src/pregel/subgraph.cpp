// Subgraphs: running a compiled graph as a node (see subgraph.hpp).
#include "pregel/subgraph.hpp"

#include "pregel/loop.hpp"
#include "pregel/persistence.hpp"
#include "pregel/run_ready.hpp"

namespace superstep::internal {

NodeFn subgraph_node(std::shared_ptr<const Program> child) {
  // A coroutine node: while the subgraph's step waits on its own coroutine nodes, the task
  // running it is suspended and its thread runs other tasks (the parent's siblings among them).
  return NodeFn([child = std::move(child)](const State& state, Runtime& rt) -> Task<NodeResult> {
    auto& t = static_cast<ExecutableTask&>(rt.task_context());
    return t.run->run_subgraph(t, child, state);
  });
}

Task<NodeResult> PregelLoop::run_subgraph(ExecutableTask& t, std::shared_ptr<const Program> child, const State& state) {
  ParentLink link;
  link.saver = child->checkpointer ? child->checkpointer : s_.saver();
  link.store = child->store ? child->store.get() : s_.store();
  if (s_.parent) {
    link.parents = s_.parent->parents;
    link.ns = s_.parent->ns;
  }
  if (cp_) link.parents[s_.config.checkpoint_ns] = s_.checkpoint_id();
  link.ns.push_back(t.node->name + ":" + t.id());
  link.out = &s_.out;

  RunConfig cfg = s_.config;
  cfg.checkpoint_ns = s_.task_ns(t);
  cfg.checkpoint_id.reset();
  cfg.interrupt_before.reset();  // per-call lists are the parent's
  cfg.interrupt_after.reset();
  if (cp_) cfg.run_id = cp_->run_id();
  std::vector<StreamMode> modes;
  if (s_.config.subgraphs)
    for (int m = 0; m <= static_cast<int>(StreamMode::checkpoints); ++m)
      if (wants(static_cast<StreamMode>(m))) modes.push_back(static_cast<StreamMode>(m));

  // Checkpoints under this task's namespace mean the task ran before and paused, failed or
  // crashed: the subgraph continues from there (with the resume value meant for it, if any).
  const bool ran_before =
      link.saver && !cfg.thread_id.empty() && link.saver->get_tuple({cfg.thread_id, cfg.checkpoint_ns, std::nullopt});
  std::unique_ptr<PregelLoop> run;
  if (ran_before) {
    json answer = cp_ ? cp_->subgraph_resume(t) : json(nullptr);
    if (!answer.is_null()) run = std::make_unique<PregelLoop>(child, Command{.resume = std::move(answer)}, cfg, modes, &link);
    else run = std::make_unique<PregelLoop>(child, json(nullptr), cfg, modes, &link);
  } else {
    json input = json::object();
    for (int id : child->keys_by_name)
      if (const json* v = state.find(child->state_keys[id])) input[child->state_keys[id]] = *v;
    run = std::make_unique<PregelLoop>(child, input, cfg, modes, &link);
  }
  std::optional<Command> up;
  try {
    // Parts emitted through its outbox went to ours already; these are the ones the loop queued
    // itself (a step's end). While its step runs with nothing to yield, this task suspends; the
    // thread that ends the step or emits a part resubmits it to the subgraph's executor.
    for (;;) {
      bool pending = false;
      std::optional<StreamPart> part = run->next(&pending);
      if (pending) {
        co_await RunReady{run.get(), child->executor.get()};
        continue;
      }
      if (!part) break;
      if (part->ns.empty()) part->ns = link.ns;  // nested subgraphs' parts carry their full path already
      emit_part(std::move(*part));
    }
  } catch (ParentCommand& sent) {
    up = std::move(sent.command);
  }
  if (up) co_return NodeResult(std::move(*up));
  if (run->paused()) throw GraphInterrupt(run->interrupts());
  // The subgraph's final values of the keys both graphs have are this node's update.
  json out = run->result();
  json update = json::object();
  for (auto it = out.begin(); it != out.end(); ++it)
    if (s_.g->find_key(it.key()) >= 0) update[it.key()] = std::move(it.value());
  co_return NodeResult(std::move(update));
}

}  // namespace superstep::internal
