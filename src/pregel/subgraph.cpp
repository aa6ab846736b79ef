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

std::unique_ptr<ChildRun> PregelLoop::start_child(ExecutableTask& t, std::shared_ptr<const Program> child,
                                                  const std::function<json()>& input) {
  auto c = std::make_unique<ChildRun>();  // its address is the child loop's ParentLink
  ParentLink& link = c->link;
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
  if (ran_before) {
    json answer = cp_ ? cp_->subgraph_resume(t) : json(nullptr);
    if (!answer.is_null()) c->run = std::make_unique<PregelLoop>(child, Command{.resume = std::move(answer)}, cfg, modes, &link);
    else c->run = std::make_unique<PregelLoop>(child, json(nullptr), cfg, modes, &link);
  } else {
    c->run = std::make_unique<PregelLoop>(child, input(), cfg, modes, &link);
  }
  c->executor = child->executor.get();
  return c;
}

void PregelLoop::forward_child_part(const ChildRun& c, StreamPart part) {
  // Parts emitted through the child's outbox went to ours already; these are the ones its loop
  // queued itself (a step's end).
  if (part.ns.empty()) part.ns = c.link.ns;  // nested subgraphs' parts carry their full path already
  emit_part(std::move(part));
}

Task<void> PregelLoop::drive_child(ChildRun& c) {
  // While the child's step runs with nothing to yield, this suspends; the thread that ends the
  // step or emits a part resubmits it to the child's executor.
  for (;;) {
    bool pending = false;
    std::optional<StreamPart> part = c.run->next(&pending);
    if (pending) {
      co_await RunReady{c.run.get(), c.executor};
      continue;
    }
    if (!part) co_return;
    forward_child_part(c, std::move(*part));
  }
}

Task<NodeResult> PregelLoop::run_subgraph(ExecutableTask& t, std::shared_ptr<const Program> child, const State& state) {
  std::unique_ptr<ChildRun> c = start_child(t, child, [&] {
    json input = json::object();  // the keys both graphs have
    for (int id : child->keys_by_name)
      if (const json* v = state.find(child->state_keys[id])) input[child->state_keys[id]] = *v;
    return input;
  });
  co_await drive_child(*c);  // a Command(graph=PARENT) inside ends it: the runner takes it as this node's result
  if (c->run->paused()) throw GraphInterrupt(c->run->interrupts());
  // The subgraph's final values of the keys both graphs have are this node's update.
  // With an output schema, its keys (none when the subgraph wrote none of them, as LangGraph).
  json out = c->run->result();
  json update = json::object();
  if (out.is_object())
    for (auto it = out.begin(); it != out.end(); ++it)
      if (s_.g->find_key(it.key()) >= 0) update[it.key()] = std::move(it.value());
  co_return NodeResult(std::move(update));
}

namespace {
// Every Runtime is a running task's (ExecutableTask is the only TaskContext).
ExecutableTask& inner_task(Runtime& rt) { return static_cast<ExecutableTask&>(rt.task_context()); }
}  // namespace

std::unique_ptr<ChildRun> PregelLoop::start_inner(ExecutableTask& t, const std::shared_ptr<const Program>& child, json input) {
  // One graph per node run when checkpointed: a second would find the first's checkpoints under
  // the task's namespace and continue them (LangGraph raises MultipleSubgraphsError too).
  if (cp_ && t.inner_runs++ > 0)
    throw GraphValueError("graph '" + s_.g->name + "': node '" + t.node->name + "' invoked graph '" + child->name +
                          "' after another graph inside it; with a checkpointer a node may run one graph inside it "
                          "(its checkpoints live under the node's task), so add the others as nodes");
  return start_child(t, child, [&] { return std::move(input); });
}

json PregelLoop::inner_result(ChildRun& c) {
  if (c.run->paused()) throw GraphInterrupt(c.run->interrupts());
  return c.run->result();
}

json invoke_inner(const std::shared_ptr<const Program>& child, json input, Runtime& rt) {
  ExecutableTask& t = inner_task(rt);
  PregelLoop& parent = *t.run;
  std::unique_ptr<ChildRun> c = parent.start_inner(t, child, std::move(input));
  // Blocking, as the node is: a wait on one of the executor's workers runs the executor's jobs.
  while (std::optional<StreamPart> part = c->run->next()) parent.forward_child_part(*c, std::move(*part));
  return parent.inner_result(*c);
}

Task<json> ainvoke_inner(std::shared_ptr<const Program> child, json input, Runtime& rt) {
  ExecutableTask& t = inner_task(rt);
  PregelLoop& parent = *t.run;
  std::unique_ptr<ChildRun> c = parent.start_inner(t, child, std::move(input));
  co_await parent.drive_child(*c);
  co_return parent.inner_result(*c);
}

}  // namespace superstep::internal
