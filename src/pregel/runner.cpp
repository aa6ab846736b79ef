// Executing tasks: plain and coroutine nodes, retries, results into write buffers, completion.
#include <thread>

#include "pregel/algo.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"
#include "superstep/messages/message.hpp"

namespace superstep {

// --- Runtime: thin forwarding to the task context ---
void Runtime::stream_writer(json chunk) const { ctx_->run->emit(StreamMode::custom, std::move(chunk)); }
const RunConfig& Runtime::config() const { return ctx_->run->config(); }
int64_t Runtime::step() const { return ctx_->step; }
const std::string& Runtime::node() const { return ctx_->node->name; }
std::string Runtime::task_id() const { return ctx_->id(); }
bool Runtime::cancelled() const { return ctx_->run->cancelled(); }
BaseStore* Runtime::store() const { return ctx_->run->store(); }
int64_t Runtime::remaining_steps() const { return ctx_->run->stop_step() - ctx_->step; }
bool Runtime::streams(StreamMode mode) const { return ctx_->run->wants(mode); }
void Runtime::emit_message(json chunk, const json& extra) const {
  ctx_->run->emit_message(static_cast<internal::ExecutableTask&>(*ctx_), std::move(chunk), extra);
}
void Runtime::post(std::function<void()> fn) const { ctx_->run->post(std::move(fn)); }
void Runtime::post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const {
  ctx_->run->post_after(delay, std::move(fn));
}

namespace internal {

void StepRun::work() {
  for (;;) {
    if (max_concurrency > 0 && inflight.fetch_add(1) >= max_concurrency) {
      inflight.fetch_sub(1);
      return;
    }
    std::size_t i = next.fetch_add(1);
    if (i >= tasks.size()) {
      if (max_concurrency > 0) inflight.fetch_sub(1);
      return;
    }
    ExecutableTask& t = *tasks[i];
    if (cancel) {
      // A sibling failed or the stream was dropped: do not start more work.
      t.run->task_finished(t);
      continue;
    }
    t.run->start_task(t);
    // start_task returned: a plain node is finished (and accounted for); a coroutine node is
    // suspended and accounts for itself when it completes.
  }
}

void PregelRun::start_task(ExecutableTask& t) {
  if (t.node->is_start) return run_start_task(t);
  if (t.node->fn.is_async()) return start_async(t);
  run_sync(t);
}

void PregelRun::run_start_task(ExecutableTask& t) {
  // __start__ maps the input onto the state keys.
  try {
    if (g_->typed) {
      if (!typed_input_.writes.empty()) {
        t.writes = std::move(typed_input_.writes);
      } else if (const json* in = json_channel(g_->start_channel)->peek(); in && in->is_object()) {
        t.writes = g_->typed->writes_from_json(*in);  // a resumed run: the input as stored
      }
      t.control = t.node->edge_writes;
      task_finished(t);
      return;
    }
    json input = *json_channel(g_->start_channel)->peek();
    for (auto& [key, value] : input.items())
      t.writes.emplace_back(g_->key_of(key, [] { return std::string("input has"); }), std::move(value));
    t.control = t.node->edge_writes;
  } catch (...) {
    t.error = std::current_exception();
  }
  task_finished(t);
}

namespace {
/// A GraphValueError raised inside a node (interrupt() without a checkpointer) is the graph's
/// misuse, not the node's failure: raised as is (LangGraph), never retried.
bool misuse(const std::exception_ptr& e) { return holds<GraphValueError>(e); }
}  // namespace

bool PregelRun::should_retry(ExecutableTask& t) const {
  const auto& policy = t.node->retry;
  if (!policy || !t.error || !t.error_from_node) return false;
  if (t.attempt >= policy->max_attempts || cancelled()) return false;
  return policy->should_retry(t.error);
}

void PregelRun::run_sync(ExecutableTask& t) {
  for (;;) {
    bool in_node = true;
    try {
      NodeResult r = t.node->fn.sync()(*t.input, *t.runtime);
      in_node = false;
      process_result(t, std::move(r));
      t.error = nullptr;
      break;
    } catch (const GraphInterrupt& paused) {
      t.clear_results();
      t.error = nullptr;
      t.pause_on(paused);
      break;
    } catch (...) {
      t.error = std::current_exception();
      t.error_from_node = in_node && !misuse(t.error);
      t.clear_results();
      if (!should_retry(t)) break;
      std::this_thread::sleep_for(t.node->retry->interval_after(t.attempt));
      ++t.attempt;
    }
  }
  task_finished(t);
}

namespace {
void async_done(void* p) {
  auto* t = static_cast<ExecutableTask*>(p);
  t->run->on_async_done(*t);
}
}  // namespace

void PregelRun::start_async(ExecutableTask& t) {
  try {
    t.coro = t.node->fn.async()(*t.input, *t.runtime);
  } catch (const GraphInterrupt& paused) {
    t.pause_on(paused);
    task_finished(t);
    return;
  } catch (...) {
    // Threw before its first suspension point: same as a failed attempt.
    t.error = std::current_exception();
    t.error_from_node = !misuse(t.error);
    if (should_retry(t)) {
      auto delay = std::chrono::duration_cast<std::chrono::nanoseconds>(t.node->retry->interval_after(t.attempt));
      ++t.attempt;
      post_after(delay, [&t] { t.run->start_async(t); });
      return;
    }
    task_finished(t);
    return;
  }
  auto h = t.coro.handle();
  h.promise().on_done = &async_done;
  h.promise().on_done_ctx = &t;
  h.resume();
}

void PregelRun::on_async_done(ExecutableTask& t) {
  bool in_node = true;
  try {
    NodeResult r = t.coro.take();
    in_node = false;
    process_result(t, std::move(r));
    t.error = nullptr;
  } catch (const GraphInterrupt& paused) {
    t.clear_results();
    t.error = nullptr;
    t.pause_on(paused);
  } catch (...) {
    t.error = std::current_exception();
    t.error_from_node = in_node && !misuse(t.error);
    t.clear_results();
    if (should_retry(t)) {
      auto delay = std::chrono::duration_cast<std::chrono::nanoseconds>(t.node->retry->interval_after(t.attempt));
      ++t.attempt;
      post_after(delay, [&t] { t.run->start_async(t); });
      return;
    }
  }
  // Hold the step (read before task_finished: the consumer replaces spare_step_run_ only after the
  // step's last task has finished).
  std::shared_ptr<StepRun> sr = t.step_run->max_concurrency > 0 ? spare_step_run_ : nullptr;
  task_finished(t);
  // This thread freed a concurrency slot: keep the step going if tasks are waiting for one.
  if (sr) sr->work();
}

void PregelRun::process_result(ExecutableTask& t, NodeResult&& r) {
  const bool keep_update = wants(StreamMode::updates);
  const bool shown = keep_update || cp_ || wants(StreamMode::tasks) || wants(StreamMode::debug);
  collect_writes(*g_, t, std::move(r), {.keep_update = keep_update, .keep_batch = !shown, .has_parent = parent_ != nullptr});
}

json PregelRun::message_metadata(const ExecutableTask& t) const {
  json path = task_path(t);
  std::string ns = task_ns(t);
  return json{{"langgraph_step", t.step},          {"langgraph_node", t.node->name},
              {"langgraph_triggers", trigger_names(t)}, {"langgraph_path", std::move(path)},
              {"langgraph_checkpoint_ns", ns},     {"checkpoint_ns", ns}};
}

void PregelRun::emit_message(const ExecutableTask& t, json chunk, const json& extra) {
  if (!wants(StreamMode::messages)) return;
  if (chunk.is_object())
    if (auto id = chunk.find("id"); id != chunk.end() && id->is_string() && !id->get_ref<const std::string&>().empty()) {
      std::lock_guard lock(mutex_);
      streamed_ids_.insert(id->get<std::string>());
    }
  json meta = message_metadata(t);
  if (extra.is_object())
    for (const auto& [k, v] : extra.items()) meta[k] = v;
  emit(StreamMode::messages, json::array({std::move(chunk), std::move(meta)}));
}

namespace {
bool is_message_dict(const json& v) {
  if (!v.is_object()) return false;
  auto type = v.find("type");
  if (type == v.end() || !type->is_string() || !v.contains("content")) return false;
  const std::string& s = type->get_ref<const std::string&>();
  return s == "ai" || s == "human" || s == "system" || s == "tool" || s == "AIMessageChunk";
}
}  // namespace

void PregelRun::emit_returned_messages(const ExecutableTask& t) {
  // LangGraph's messages mode also shows the messages a node returns that no model streamed.
  json meta;
  auto one = [&](const json& m) {
    if (!is_message_dict(m)) return;
    if (auto id = m.find("id"); id != m.end() && id->is_string() && !id->get_ref<const std::string&>().empty()) {
      std::lock_guard lock(mutex_);
      if (!streamed_ids_.insert(id->get<std::string>()).second) return;
    }
    if (meta.is_null()) meta = message_metadata(t);
    emit(StreamMode::messages, json::array({m, meta}));
  };
  for (const auto& [cid, v] : t.writes) {
    if (!v.is_json()) continue;
    const json& j = v.as_json();
    if (j.is_array())
      for (const json& m : j) one(m);
    else
      one(j);
  }
}

void PregelRun::task_finished(ExecutableTask& t) {
  StepRun* sr = t.step_run;  // kept alive by step_run_ (and by pool jobs holding it)
  // A node's failure does not skip its siblings: every task of the step runs and its writes are
  // saved, whatever the order the pool takes them in (LangGraph.js starts them all, then aborts
  // their signal), so a resume re-runs only the failed task. Runtime::cancelled() tells them.
  if (t.error) sr->sibling_failed = true;
  if (cp_) {
    try {
      save_task_writes(t);
    } catch (...) {
      // The saver refused: the step fails, with this as its error.
      if (!t.error) t.error = std::current_exception();
      t.error_from_node = false;
      sr->cancel = true;
    }
  }
  if (!t.node->is_start) {
    // LangGraph shows a node's returned messages (on_chain_end) before its update.
    if (!t.error && !t.paused && wants(StreamMode::messages)) emit_returned_messages(t);
    if (t.paused && !t.interrupts.empty()) {
      // As LangGraph: the task's interrupts as an `updates` part and, right after it (no other
      // task's part in between), a `values` part.
      json list = interrupts_json(t.interrupts);
      emit_together({StreamPart{StreamMode::updates, {}, json{{kInterruptChannel, list}}},
                     StreamPart{StreamMode::values, {}, json{{kInterruptChannel, list}}}});
    } else if (t.paused && wants(StreamMode::updates)) {
      emit(StreamMode::updates, json{{kInterruptChannel, interrupts_json(t.interrupts)}});
    } else if (!t.error && wants(StreamMode::updates)) {
      emit(StreamMode::updates, json{{t.node->name, std::move(t.stream_update)}});
    }
    emit_task_result(t);
  }
  if (sr->solo) {
    step_done_ = true;  // the consumer's own thread ran the step's only task: nobody waits
    return;
  }
  if (sr->max_concurrency > 0) sr->inflight.fetch_sub(1);
  if (sr->remaining.fetch_sub(1) == 1) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mutex_);
      step_done_ = true;
      wake = std::move(wake_);
      wake_ = nullptr;
      cv_.notify_all();
    }
    if (wake) wake();
  }
}

}  // namespace internal
}  // namespace superstep
