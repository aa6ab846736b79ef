// The superstep state machine (docs/semantics.md, "The loop", steps 1-7) and streaming.
#include <algorithm>
#include <atomic>
#include <utility>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/algo.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"
#include "pregel/timer.hpp"

namespace superstep::internal {

const std::string& TaskContext::id() const {
  if (id_.empty()) {
    const std::string& cp = run->checkpoint_id();
    std::string step_s = std::to_string(step);
    if (push) {
      std::string idx = std::to_string(push_index);
      id_ = hash_id({cp, run->config().checkpoint_ns, step_s, node->name, "__pregel_push", idx});
    } else {
      std::string triggers;
      for (int t : node->triggers) triggers += run->graph().channels[t].name + ",";
      id_ = hash_id({cp, run->config().checkpoint_ns, step_s, node->name, "__pregel_pull", triggers});
    }
  }
  return id_;
}

json task_path(const TaskContext& t) {
  return t.push ? json::array({"__pregel_push", t.push_index}) : json::array({"__pregel_pull", t.node->name});
}

PregelRun::PregelRun(std::shared_ptr<const Program> graph, const json& input, RunConfig config,
                     const std::vector<StreamMode>& modes, const ParentLink* link)
    : g_(std::move(graph)), config_(std::move(config)), parent_(link) {
  if (saver()) {
    init(modes);
    first(&input, nullptr);
    return;
  }
  if (input.is_null())
    throw EmptyInputError("graph '" + g_->name + "': received no input for '__start__' (input is null)");
  if (!input.is_object())
    throw InvalidUpdateError("graph '" + g_->name + "': input must be an object of state keys, got " + preview(input));
  if (g_->typed) {
    // A typed graph driven with JSON (a process boundary): convert each field with from_json.
    for (auto it = input.begin(); it != input.end(); ++it) g_->key_of(it.key(), [] { return std::string("input has"); });
    typed_input_.writes = g_->typed->writes_from_json(input);
    init(modes);
    return;
  }
  init(modes);
  Value in = input;
  cs_.channels[g_->start_channel]->update_values(std::span<Value>(&in, 1));
}

PregelRun::PregelRun(std::shared_ptr<const Program> graph, WriteList input, RunConfig config,
                     const std::vector<StreamMode>& modes)
    : g_(std::move(graph)), config_(std::move(config)), typed_input_(std::move(input)) {
  typed_input_.flatten();
  if (!typed_input_.go_to.empty())
    throw InvalidUpdateError("graph '" + g_->name + "': the input of a run cannot route (go_to)");
  init(modes);
  if (g_->checkpointer) {
    // The input is stored as JSON in __start__ (a resumed run rebuilds it from there).
    json in = json::object();
    for (const auto& [i, v] : typed_input_.writes) in[g_->state_keys[i]] = v.to_json();
    first(&in, nullptr);
  }
}

void PregelRun::init(const std::vector<StreamMode>& modes) {
  for (StreamMode m : modes) modes_ |= 1u << static_cast<int>(m);
  // Parts produced inside a task must reach the consumer while the task runs, so the consumer's
  // thread must stay free to yield them.
  inline_tasks_ = !(wants(StreamMode::custom) || wants(StreamMode::messages) || wants(StreamMode::debug) ||
                    wants(StreamMode::tasks) || (config_.subgraphs && g_->has_subgraphs && modes_ != 0));
  if (config_.recursion_limit < 1)
    throw Error("graph '" + g_->name + "': recursion_limit must be at least 1, got " +
                std::to_string(config_.recursion_limit));
  const bool interrupts = !g_->interrupt_before.empty() || !g_->interrupt_after.empty() ||
                          (config_.interrupt_before && !config_.interrupt_before->empty()) ||
                          (config_.interrupt_after && !config_.interrupt_after->empty());
  if (interrupts && !saver())
    throw Error("graph '" + g_->name + "': interrupt_before/interrupt_after need a checkpointer "
                "(CompileOptions::checkpointer) and a thread_id");
  for (const auto* list : {&config_.interrupt_before, &config_.interrupt_after})
    if (*list)
      for (const auto& n : **list)
        if (n != "*" && g_->find_node(n) <= 0)
          throw Error("graph '" + g_->name + "': RunConfig::" +
                      (list == &config_.interrupt_before ? "interrupt_before" : "interrupt_after") + " names '" + n +
                      "', which is not a node (nodes: " + g_->node_list() + ")");

  ChannelPool::Set set = g_->channel_pool->acquire(*g_);
  cs_ = std::move(set.state);
  spare_tasks_ = std::move(set.spare_tasks);
  start_channels(*g_, cs_);
  step_ = 0;
  stop_ = step_ + config_.recursion_limit;
}

PregelRun::~PregelRun() {
  if (phase_ == Phase::running && step_run_) {
    step_run_->cancel = true;
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return step_done_; });
  }
  finish_run();
  if (cs_.owned.empty()) return;
  recycle_tasks();
  constexpr std::size_t kMaxSpareTasks = 1024;
  if (spare_tasks_.size() > kMaxSpareTasks) spare_tasks_.resize(kMaxSpareTasks);
  cs_.pending_sends.clear();
  ChannelPool::Set set{std::move(cs_), std::move(spare_tasks_)};
  g_->channel_pool->release(std::move(set), *g_);
}

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
  for (std::size_t i = 0; i < cs_.pending_sends.size(); ++i) {
    Send& s = cs_.pending_sends[i];
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
  cs_.pending_sends.clear();

  // PULL tasks: the triggered nodes, in name order.
  for (int n : triggered_nodes(*g_, cs_)) {
    const NodeData& node = g_->nodes[n];
    auto t = make(node);
    if (g_->typed) {
      t->input.emplace(g_->typed->state(*cs_.channels[g_->holder_channel]), nullptr);
    } else {
      t->view.emplace(*g_, cs_.channels, &node);
      t->input.emplace(*t->view);
    }
    t->runtime.emplace(*t);
    tasks_.push_back(std::move(t));
  }
}

void TaskDeleter::operator()(ExecutableTask* t) const noexcept { delete t; }

const std::string& PregelRun::checkpoint_id() const {
  std::lock_guard lock(checkpoint_id_mutex_);
  if (checkpoint_id_.empty()) checkpoint_id_ = uuid6();
  return checkpoint_id_;
}

bool PregelRun::cancelled() const noexcept {
  return step_run_ && (step_run_->cancel.load() || step_run_->sibling_failed.load());
}

void PregelRun::post(std::function<void()> fn) const { g_->executor->submit(std::move(fn)); }

void PregelRun::post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const {
  run_after(delay, [pool = g_->executor, fn = std::move(fn)]() mutable { pool->submit(std::move(fn)); });
}

void PregelRun::emit_part(StreamPart part) {
  if (!wants(part.mode)) return;
  {
    std::lock_guard lock(mutex_);
    shared_parts_.push_back(std::move(part));
  }
  cv_.notify_all();
}

void PregelRun::emit_together(std::vector<StreamPart> parts) {
  std::erase_if(parts, [&](const StreamPart& p) { return !wants(p.mode); });
  if (parts.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (StreamPart& p : parts) shared_parts_.push_back(std::move(p));
  }
  cv_.notify_all();
}

void PregelRun::emit(StreamMode mode, json data) {
  if (!wants(mode)) return;
  {
    std::lock_guard lock(mutex_);
    shared_parts_.push_back(StreamPart{mode, {}, std::move(data)});
  }
  cv_.notify_all();
}

// Keys are inserted in name order with a hint: O(1) each into nlohmann's sorted object.
json PregelRun::state_json() const {
  if (g_->typed) return g_->typed->to_json(g_->typed->state(*cs_.channels[g_->holder_channel]));
  json out = json::object();
  auto& obj = out.get_ref<json::object_t&>();
  for (int id : g_->keys_by_name)
    if (const json* v = json_channel(id)->peek()) obj.emplace_hint(obj.end(), g_->state_keys[id], *v);
  return out;
}

json PregelRun::take_state() {
  json out = json::object();
  auto& obj = out.get_ref<json::object_t&>();
  for (int id : g_->keys_by_name)
    if (std::optional<json> v = static_cast<JsonChannel*>(cs_.channels[id])->take())
      obj.emplace_hint(obj.end(), g_->state_keys[id], std::move(*v));
  return out;
}

std::optional<StreamPart> PregelRun::next(bool* pending) {
  for (;;) {
    if (!ready_.empty()) {
      StreamPart p = std::move(ready_.front());
      ready_.pop_front();
      return p;
    }
    if (phase_ == Phase::done) return std::nullopt;
    if (pending && phase_ == Phase::running && !(step_run_ && step_run_->solo && step_done_)) {
      std::lock_guard lock(mutex_);
      if (!step_done_) {
        *pending = true;
        return std::nullopt;
      }
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

void PregelRun::advance() {
  switch (phase_) {
    case Phase::plan:
      // docs/semantics.md, "The loop", step 2: the recursion limit is checked before planning.
      if (step_ > stop_)
        throw GraphRecursionError("graph '" + g_->name + "': recursion limit of " +
                                  std::to_string(config_.recursion_limit) +
                                  " reached without hitting a stop condition; raise RunConfig::recursion_limit "
                                  "if the graph is meant to run longer");
      prepare_next_tasks();
      if (cp_) {
        match_pending_writes();
        if (std::exchange(cp_->resume_needs_task, false) && !tasks_.empty()) {
          // (With no task, the thread has finished: the run ends with its state, storing nothing.)
          if (cp_->resume_by_id_unmatched)
            throw InvalidUpdateError("graph '" + g_->name + "': Command.resume answers interrupts by id, but thread '" +
                                     config_.thread_id + "' has no pending interrupt");
          store_null_resume();
        }
        emit_checkpoint_part();
      }
      if (tasks_.empty()) {
        phase_ = Phase::done;
        finish_run_or_throw();
        return;
      }
      if (cp_ && plan_checkpointed()) return;
      for (const auto& t : tasks_)
        if (!t->node->is_start && !t->cached) emit_task_start(*t);
      dispatch();
      return;
    case Phase::running:
      wait_for_step();
      return;
    case Phase::barrier:
      finish_step();
      return;
    case Phase::done:
      return;
  }
}

void PregelRun::dispatch() {
  // Stores to the StepRun are relaxed: pool jobs see them through the pool's queue (a mutex),
  // and an inline step runs on this thread.
  constexpr auto relaxed = std::memory_order_relaxed;
  if (spare_step_run_ && spare_step_run_.use_count() == 1) {
    // No pool job of an earlier step still holds it: reuse. The fence pairs with the release
    // in the last job's shared_ptr decrement, so its reads of the StepRun happen before ours.
    std::atomic_thread_fence(std::memory_order_acquire);
    spare_step_run_->tasks.clear();
    spare_step_run_->next.store(0, relaxed);
    spare_step_run_->inflight.store(0, relaxed);
    spare_step_run_->cancel.store(false, relaxed);
    spare_step_run_->sibling_failed.store(false, relaxed);
  } else {
    spare_step_run_ = std::make_shared<StepRun>();
  }
  step_run_ = spare_step_run_.get();
  StepRun* sr = step_run_;
  sr->run = this;
  sr->max_concurrency = config_.max_concurrency;
  sr->tasks.reserve(tasks_.size());
  for (auto& t : tasks_) {
    if (t->cached) continue;  // finished before a pause or failure: its saved writes are reused
    sr->tasks.push_back(t.get());
    t->step_run = sr;
  }
  sr->remaining.store(sr->tasks.size(), relaxed);
  step_done_ = false;
  phase_ = Phase::running;

  const std::size_t n = sr->tasks.size();
  const bool start_step = n == 1 && sr->tasks.front()->node->is_start;
  std::size_t helpers = 0;
  if (!start_step) {
    std::size_t want = inline_tasks_ ? n - 1 : n;
    helpers = std::min(want, g_->executor->size());
    if (config_.max_concurrency > 0)
      helpers = std::min<std::size_t>(helpers, inline_tasks_ ? config_.max_concurrency - 1 : config_.max_concurrency);
  }
  sr->solo = helpers == 0 && n == 1 && (inline_tasks_ || start_step) && !sr->tasks.front()->node->fn.is_async();
  if (sr->solo) {
    sr->next.store(1, relaxed);
    start_task(*sr->tasks.front());  // no claiming, no counting: this thread alone runs the step
    return;
  }
  for (std::size_t i = 0; i < helpers; ++i) g_->executor->submit([job = spare_step_run_] { job->work(); });
  if (inline_tasks_ || start_step) sr->work();
}

bool PregelRun::wake_when_step_done(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  if (step_done_) return false;
  wake_ = std::move(wake);
  return true;
}

void PregelRun::wait_for_step() {
  if (step_run_ && step_run_->solo && step_done_) {
    // Finished on this thread, which alone touched the step's state: no lock, no wait; collect
    // what the task emitted.
    while (!shared_parts_.empty()) {
      ready_.push_back(std::move(shared_parts_.front()));
      shared_parts_.pop_front();
    }
    phase_ = Phase::barrier;
    return;
  }
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return step_done_ || !shared_parts_.empty(); });
  while (!shared_parts_.empty()) {
    ready_.push_back(std::move(shared_parts_.front()));
    shared_parts_.pop_front();
  }
  if (step_done_) phase_ = Phase::barrier;
}

void PregelRun::finish_step() {
  step_run_ = nullptr;
  // A failed task fails the step: nothing is applied. The first failure in plan order wins.
  for (const auto& t : tasks_) {
    if (!t->error) continue;
    phase_ = Phase::done;
    if (!t->error_from_node) std::rethrow_exception(t->error);
    throw NodeError(t->node->name, t->id(), step_, t->error, describe(t->error));
  }
  if (cp_) {
    // A task paused in interrupt(): the step is not applied; its finished tasks' writes are saved.
    std::vector<Interrupt> interrupts;
    bool paused = false;
    for (const auto& t : tasks_) {
      paused = paused || t->paused;
      interrupts.insert(interrupts.end(), t->interrupts.begin(), t->interrupts.end());
    }
    if (paused) return pause(std::move(interrupts), /*from_tasks=*/true);
  }
  // As LangGraph: a `values` part only after a step that wrote to the state.
  const bool show_values = wants(StreamMode::values) && step_wrote_state();
  apply_writes(*g_, cs_, tasks_, step_);
  if (cp_) save_checkpoint("loop");
  if (show_values) ready_.push_back(StreamPart{StreamMode::values, {}, state_json()});
  if (cp_ && !cp_->interrupt_after.empty()) {
    std::vector<ExecutableTask*> ran;
    for (const auto& t : tasks_) ran.push_back(t.get());
    if (should_interrupt(cp_->interrupt_after, ran)) {
      emit_checkpoint_part();
      return pause({}, /*from_tasks=*/false);
    }
  }
  recycle_tasks();
  ++step_;
  phase_ = Phase::plan;
}

bool PregelRun::step_wrote_state() const {
  for (const auto& t : tasks_) {
    if (!t->writes.empty()) return true;
    if (t->batch)
      for (int field = 0; field < g_->num_state_keys; ++field)
        if (t->batch->writes(field)) return true;
  }
  return false;
}

bool PregelRun::plan_checkpointed() {
  bool all_cached = true;
  std::vector<ExecutableTask*> planned;
  for (const auto& t : tasks_) {
    all_cached = all_cached && t->cached;
    planned.push_back(t.get());
  }
  if (!all_cached && should_interrupt(cp_->interrupt_before, planned)) {
    pause({}, /*from_tasks=*/false);
    return true;
  }
  if (wants(StreamMode::updates))
    for (const auto& t : tasks_)
      if (t->cached && !t->node->is_start)
        ready_.push_back(StreamPart{StreamMode::updates, {},
                                   json{{t->node->name, t->stream_update}, {"__metadata__", {{"cached", true}}}}});
  if (!all_cached) return false;
  phase_ = Phase::barrier;  // every task finished before: apply their saved writes
  return true;
}

std::vector<std::string> PregelRun::trigger_names(const ExecutableTask& t) const {
  if (t.push) return {"__pregel_push"};
  std::vector<std::string> out;
  for (int c : t.node->triggers) out.push_back(g_->channels[c].name);
  return out;
}

json PregelRun::task_input_json(const ExecutableTask& t) const {
  if (t.typed_arg) return g_->typed->to_json(t.typed_arg.get());
  if (g_->typed) return state_json();
  if (t.send_arg) return *t.send_arg;
  return t.input->to_json();
}

void PregelRun::emit_task_start(const ExecutableTask& t) {
  if (!wants(StreamMode::tasks) && !wants(StreamMode::debug)) return;
  json payload = {{"id", t.id()},
                  {"name", t.node->name},
                  {"input", task_input_json(t)},
                  {"triggers", trigger_names(t)},
                  {"interrupts", json::array()}};
  // Same order as LangGraph.js: the tasks part, then the debug part wrapping it.
  if (wants(StreamMode::tasks)) emit(StreamMode::tasks, payload);
  if (wants(StreamMode::debug))
    emit(StreamMode::debug,
         json{{"step", step_}, {"type", "task"}, {"timestamp", now_iso8601()}, {"payload", std::move(payload)}});
}

void PregelRun::emit_task_result(const ExecutableTask& t) {
  if (!wants(StreamMode::tasks) && !wants(StreamMode::debug)) return;
  json result = json::object();
  for (const auto& [cid, v] : t.writes) result[g_->state_keys[cid]] = v.to_json();
  json error = t.error ? json(describe(t.error)) : json(nullptr);
  json payload = {{"id", t.id()},
                  {"name", t.node->name},
                  {"error", error},
                  {"result", t.error ? json::object() : result},
                  {"interrupts", interrupts_json(t.interrupts)}};  // the task paused on these
  if (wants(StreamMode::tasks)) emit(StreamMode::tasks, payload);
  if (wants(StreamMode::debug))
    emit(StreamMode::debug,
         json{{"step", step_}, {"type", "task_result"}, {"timestamp", now_iso8601()}, {"payload", std::move(payload)}});
}

}  // namespace superstep::internal
