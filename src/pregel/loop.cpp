// The superstep state machine (docs/semantics.md, "The loop", steps 1-7): plan -> run ->
// barrier -> checkpoint, driven by the consumer's next() calls (loop.hpp).
#include "pregel/loop.hpp"

#include <algorithm>
#include <utility>

#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persistence.hpp"
#include "pregel/stored_writes.hpp"

namespace superstep::internal {

PregelLoop::PregelLoop(std::shared_ptr<const Program> graph, const json& input, RunConfig config,
                       const std::vector<StreamMode>& modes, const ParentLink* link)
    : s_(std::move(graph), std::move(config), link) {
  const Program& g = *s_.g;
  if (s_.saver()) {
    init(modes);
    start_persistence().first(&input, nullptr);
    return;
  }
  if (input.is_null())
    throw EmptyInputError("graph '" + g.name + "': received no input for '__start__' (input is null)");
  if (!input.is_object())
    throw InvalidUpdateError("graph '" + g.name + "': input must be an object of state keys, got " + preview(input));
  if (g.typed) {
    // A typed graph driven with JSON (a process boundary): convert each field with from_json.
    for (auto it = input.begin(); it != input.end(); ++it) g.key_of(it.key(), [] { return std::string("input has"); });
    s_.typed_input.writes = g.typed->writes_from_json(input);
    init(modes);
    return;
  }
  init(modes);
  Value in = input;
  s_.cs.channels[g.start_channel]->update_values(std::span<Value>(&in, 1));
}

PregelLoop::PregelLoop(std::shared_ptr<const Program> graph, const Command& input, RunConfig config,
                       const std::vector<StreamMode>& modes, const ParentLink* link)
    : s_(std::move(graph), std::move(config), link) {
  const Program& g = *s_.g;
  if (s_.saver()) {
    init(modes);
    start_persistence().first(nullptr, &input);
    return;
  }
  // As LangGraph: without a checkpointer a Command's update and go_to are the run's input (there
  // is no interrupt to resume).
  if (!input.resume.is_null())
    throw Error("graph '" + g.name + "': Command.resume needs a checkpointer (CompileOptions::checkpointer) "
                "and a thread_id: without one nothing can be waiting to be resumed");
  std::vector<std::pair<std::string, json>> writes = map_command(g, input);
  init(modes);
  if (g.typed) s_.cs.channels[g.start_channel]->restore(std::nullopt);
  s_.cs.versions[g.start_channel] = 0;  // no __start__ step: the writes are the input step
  s_.cs.updated.clear();
  s_.cs.live_volatile.clear();
  ExecutableTask t;
  t.run = this;
  for (const auto& [c, v] : writes) decode_write(g, s_.config, t, c, v);
  apply_input_writes(g, s_.cs, t);
  s_.output_shown = true;  // as LangGraph: a Command's writes show the output
  if (wants(StreamMode::values)) s_.yield(StreamPart{StreamMode::values, {}, s_.values_json()});
}

PregelLoop::PregelLoop(std::shared_ptr<const Program> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
                       const ParentLink* link)
    : s_(std::move(graph), std::move(config), link) {
  s_.config.durability = Durability::sync;
  init({});
  Persistence& p = start_persistence();
  const Program& g = *s_.g;
  if (g.typed) s_.cs.channels[g.start_channel]->restore(std::nullopt);
  s_.cs.versions[g.start_channel] = 0;
  s_.cs.updated.clear();
  s_.cs.live_volatile.clear();
  if (tuple) p.restore(*tuple);
  else s_.step = 0;
}

PregelLoop::PregelLoop(std::shared_ptr<const Program> graph, WriteList input, RunConfig config,
                       const std::vector<StreamMode>& modes)
    : s_(std::move(graph), std::move(config), nullptr) {
  s_.typed_input = std::move(input);
  s_.typed_input.flatten();
  const Program& g = *s_.g;
  if (!s_.typed_input.go_to.empty())
    throw InvalidUpdateError("graph '" + g.name + "': the input of a run cannot route (go_to)");
  init(modes);
  if (g.checkpointer) {
    // The input is stored as JSON in __start__ (a resumed run rebuilds it from there).
    json in = json::object();
    for (const auto& [i, v] : s_.typed_input.writes) in[g.state_keys[i]] = v.to_json();
    start_persistence().first(&in, nullptr);
  }
}

Persistence& PregelLoop::start_persistence() {
  cp_ = std::make_unique<Persistence>(s_, *this);
  return *cp_;
}

void PregelLoop::init(const std::vector<StreamMode>& modes) {
  const Program& g = *s_.g;
  const RunConfig& config = s_.config;
  s_.out.set_modes(modes);
  s_.out.run_on(g.executor);
  if (s_.parent && s_.parent->out) {
    // A subgraph's parts go straight into the parent's stream, from the thread that emits them.
    s_.out.forward_to(
        [out = s_.parent->out, ns = s_.parent->ns](std::vector<StreamPart> parts) {
          for (StreamPart& p : parts)
            if (p.ns.empty()) p.ns = ns;  // nested subgraphs' parts carry their full path already
          out->emit_together(std::move(parts));
        },
        s_.parent->out);
  }
  // Parts produced inside a task must reach the consumer while the task runs, so the consumer's
  // thread must stay free to yield them; a subgraph's run forwards them instead, so the task
  // running it also runs its tasks (with pool helpers): no pool thread waits on another.
  inline_tasks_ = s_.out.forwards() ||
                  !(wants(StreamMode::custom) || wants(StreamMode::messages) || wants(StreamMode::debug) ||
                    wants(StreamMode::tasks) || (config.subgraphs && g.has_subgraphs && s_.out.wants_any()));
  if (config.recursion_limit < 1)
    throw Error("graph '" + g.name + "': recursion_limit must be at least 1, got " +
                std::to_string(config.recursion_limit));
  const bool interrupts = !g.interrupt_before.empty() || !g.interrupt_after.empty() ||
                          (config.interrupt_before && !config.interrupt_before->empty()) ||
                          (config.interrupt_after && !config.interrupt_after->empty());
  if (interrupts && !s_.saver())
    throw Error("graph '" + g.name + "': interrupt_before/interrupt_after need a checkpointer "
                "(CompileOptions::checkpointer) and a thread_id");
  for (const auto* list : {&config.interrupt_before, &config.interrupt_after})
    if (*list)
      for (const auto& n : **list)
        if (n != "*" && g.find_node(n) <= 0)
          throw Error("graph '" + g.name + "': RunConfig::" +
                      (list == &config.interrupt_before ? "interrupt_before" : "interrupt_after") + " names '" + n +
                      "', which is not a node (nodes: " + g.node_list() + ")");

  ChannelPool::Set set = g.channel_pool->acquire(g);
  s_.cs = std::move(set.state);
  s_.spare_tasks = std::move(set.spare_tasks);
  start_channels(g, s_.cs);
  s_.step = 0;
  s_.stop = s_.step + config.recursion_limit;
}

PregelLoop::~PregelLoop() {
  if (phase_ == Phase::running) runner_.cancel_and_wait();
  finish_run();
  if (s_.cs.owned.empty()) return;
  s_.recycle_tasks();
  constexpr std::size_t kMaxSpareTasks = 1024;
  if (s_.spare_tasks.size() > kMaxSpareTasks) s_.spare_tasks.resize(kMaxSpareTasks);
  s_.cs.pending_sends.clear();
  ChannelPool::Set set{std::move(s_.cs), std::move(s_.spare_tasks)};
  s_.g->channel_pool->release(std::move(set), *s_.g);
}

bool PregelLoop::cancel_step_then(std::function<void()> then) {
  if (phase_ != Phase::running) return false;
  runner_.cancel();
  return s_.out.when_step_done(std::move(then));
}

bool PregelLoop::paused() const noexcept { return cp_ && cp_->paused(); }

const std::vector<Interrupt>& PregelLoop::interrupts() const {
  static const std::vector<Interrupt> none;
  return cp_ ? cp_->interrupts() : none;
}

json PregelLoop::result(bool take) {
  json out;
  if (s_.g->has_output_schema) {
    // As LangGraph: the output's keys, or nothing when the run never wrote one of them.
    if (s_.output_shown) out = s_.output_json();
    else if (paused()) out = json::object();
  } else {
    out = s_.g->typed || !take ? s_.state_json() : s_.take_state();
  }
  if (paused()) out[kInterruptChannel] = interrupts_json(cp_->interrupts());
  return out;
}

StateSnapshot PregelLoop::snapshot(bool apply_pending, bool subgraphs, bool take) {
  return cp_->snapshot(apply_pending, subgraphs, take);
}

CheckpointConfig PregelLoop::update(const json& values, const std::string& as_node) {
  return cp_->update(values, as_node);
}

CheckpointConfig PregelLoop::update(const std::vector<StateUpdate>& updates) { return cp_->update(updates); }

std::vector<StateSnapshot> PregelLoop::history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                               std::vector<CheckpointTuple> tuples, const ParentLink* link) {
  return Persistence::history(graph, config, std::move(tuples), link);
}

void PregelLoop::finish_run() noexcept {
  if (cp_) cp_->finish();
}

void PregelLoop::finish_run_or_throw() {
  if (cp_) cp_->finish_or_throw();
}

std::optional<StreamPart> PregelLoop::next(bool* pending) {
  for (;;) {
    if (!s_.ready.empty()) {
      StreamPart p = std::move(s_.ready.front());
      s_.ready.pop_front();
      return p;
    }
    if (phase_ == Phase::done) return std::nullopt;
    if (pending && phase_ == Phase::running && !(runner_.solo() && s_.out.done_inline()) && !s_.out.ready()) {
      *pending = true;
      return std::nullopt;
    }
    try {
      advance();
    } catch (...) {
      phase_ = Phase::done;
      finish_run();  // what was stored stays stored; the run's own error is what the caller sees
      throw;
    }
  }
}

void PregelLoop::advance() {
  switch (phase_) {
    case Phase::plan:
      return plan();
    case Phase::running:
      return collect_parts();
    case Phase::barrier:
      return finish_step();
    case Phase::done:
      return;
  }
}

void PregelLoop::plan() {
  // docs/semantics.md, "The loop", step 2: the recursion limit is checked before planning.
  if (s_.step > s_.stop)
    throw GraphRecursionError("graph '" + s_.g->name + "': Recursion limit of " +
                              std::to_string(s_.config.recursion_limit) +
                              " reached without hitting a stop condition; raise RunConfig::recursion_limit "
                              "if the graph is meant to run longer");
  s_.prepare_next_tasks(this);
  if (cp_) cp_->after_plan();
  if (s_.tasks.empty()) {
    phase_ = Phase::done;
    finish_run_or_throw();
    return;
  }
  if (s_.config.stop.stop_requested())  // a superstep boundary: the steps before are applied and saved
    throw RunCancelledError("graph '" + s_.g->name + "': run stopped before step " + std::to_string(s_.step) +
                            " (RunConfig::stop was requested); what it stored is kept");
  if (cp_) {
    switch (cp_->before_step()) {
      case Persistence::Planned::run:
        break;
      case Persistence::Planned::paused:
        phase_ = Phase::done;
        return;
      case Persistence::Planned::all_cached:
        phase_ = Phase::barrier;  // every task finished before: apply their saved writes
        return;
    }
  }
  const bool all_cached = s_.g->cache && match_node_cache();
  for (const auto& t : s_.tasks)
    if (!t->node->is_start && (!t->cached || t->cache_hit)) emit_task_start(*t);
  if (s_.g->cache && wants(StreamMode::updates))
    for (const auto& t : s_.tasks)
      if (t->cache_hit) emit(StreamMode::updates, cached_update_part(*t));  // and no task result: it did not run
  if (all_cached) {
    s_.out.collect(s_.ready, /*inline_done=*/true);  // no task runs: the parts above, in order
    phase_ = Phase::barrier;
    return;
  }
  if (wants(StreamMode::messages))
    for (const auto& t : s_.tasks)
      if (!t->node->is_start && !t->cached) mark_input_messages(*t);
  phase_ = Phase::running;
  runner_.start_step(inline_tasks_);
}

void PregelLoop::collect_parts() {
  if (s_.out.collect(s_.ready, runner_.solo() && s_.out.done_inline())) phase_ = Phase::barrier;
}

void PregelLoop::finish_step() {
  runner_.end_step();
  // A failed task fails the step: nothing is applied. The first failure in plan order wins, and
  // a failure wins over a subgraph node's Command to the parent (as LangGraph raises node errors
  // before bubbling a Command up), which would otherwise hide it.
  const ExecutableTask* failed = nullptr;
  for (const auto& t : s_.tasks)
    if (t->error && (!failed || (holds<ParentCommand>(failed->error) && !holds<ParentCommand>(t->error))))
      failed = t.get();
  for (const auto& t : s_.tasks) {
    if (t.get() != failed) continue;
    phase_ = Phase::done;
    if (!t->error_from_node) std::rethrow_exception(t->error);
    // A subgraph's failure is already a NodeError naming the node inside it that failed, whose
    // cause is what that node threw: raised as is (LangGraph raises the node's own error at
    // every level), so `cause()` gives the user's exception whatever the nesting.
    try {
      std::rethrow_exception(t->error);
    } catch (const NodeError&) {
      throw;
    } catch (...) {
    }
    throw NodeError(t->node->name, t->id(), s_.step, t->error, describe(t->error));
  }
  if (cp_) {
    // A task paused in interrupt(): the step is not applied; its finished tasks' writes are saved.
    std::vector<Interrupt> interrupts;
    bool paused = false;
    for (const auto& t : s_.tasks) {
      paused = paused || t->paused;
      interrupts.insert(interrupts.end(), t->interrupts.begin(), t->interrupts.end());
    }
    if (paused) {
      phase_ = Phase::done;
      return cp_->pause(std::move(interrupts), /*from_tasks=*/true);
    }
  }
  if (s_.g->cache) store_node_cache();
  // As LangGraph: a `values` part only after a step that wrote to the state.
  const bool show_values = wants(StreamMode::values) && s_.step_shows_values();
  s_.note_output_step();
  apply_writes(*s_.g, s_.cs, s_.tasks, s_.step);
  if (cp_) cp_->save_step();
  if (show_values) s_.yield(StreamPart{StreamMode::values, {}, s_.values_json()});
  if (cp_ && cp_->pause_after_step()) {
    phase_ = Phase::done;
    return;
  }
  s_.recycle_tasks();
  ++s_.step;
  phase_ = Phase::plan;
}

json PregelLoop::cached_update_part(const ExecutableTask& t) const {
  json update = t.stream_update.is_null() ? json::object() : t.stream_update;
  if (s_.values_show_output()) update = output_keys_of(std::move(update));  // a subgraph's run: its output's keys
  return json{{t.node->name, std::move(update)}, {"__metadata__", {{"cached", true}}}};
}

bool PregelLoop::match_node_cache() {
  const Program& g = *s_.g;
  for (const auto& t : s_.tasks) {
    const NodeData& node = *t->node;
    if (t->cached || node.is_start || !node.options.cache_policy) continue;
    const CachePolicy& policy = *node.options.cache_policy;
    json input = task_input_json(*t);
    t->cache_key = policy.key_func ? policy.key_func(input) : input.dump();
    std::optional<json> hit = g.cache->get(node_cache_ns(g, node), *t->cache_key);
    if (!hit || !hit->is_array()) continue;
    for (const json& w : *hit)
      if (w.is_array() && w.size() == 2 && w[0].is_string()) decode_write(g, s_.config, *t, w[0].get<std::string>(), w[1]);
    t->cached = t->cache_hit = true;
    t->stream_update = updates_of(g, t->writes);
    if (cp_) cp_->save_task_writes(*t);
  }
  return std::all_of(s_.tasks.begin(), s_.tasks.end(), [](const TaskPtr& t) { return t->cached; });
}

void PregelLoop::store_node_cache() {
  const Program& g = *s_.g;
  for (const auto& t : s_.tasks) {
    if (!t->cache_key || t->cache_hit || t->error || t->paused) continue;
    if (g.typed && !t->sends.empty()) continue;  // a typed Send cannot be read back
    if (t->batch) {  // a typed node's field writes, one by one
      t->batch->explode(t->writes);
      t->batch.reset();
    }
    g.cache->set(node_cache_ns(g, *t->node), *t->cache_key, encode_writes(g, *t), t->node->options.cache_policy->ttl);
  }
}

}  // namespace superstep::internal
