// Running a step's tasks: plain and coroutine nodes, retries, results into write buffers, and
// the step's end (runner.hpp).
#include "pregel/runner.hpp"

#include <algorithm>
#include <thread>

#include "pregel/algo.hpp"
#include "pregel/limits.hpp"
#include "pregel/run_state.hpp"
#include "pregel/timer.hpp"

namespace superstep::internal {

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
      runner->task_finished(t);
      continue;
    }
    runner->start_task(t);
    // start_task returned: a plain node is finished (and accounted for); a coroutine node is
    // suspended and accounts for itself when it completes.
  }
}

void PregelRunner::start_step(bool inline_tasks) {
  // Stores to the StepRun are relaxed: pool jobs see them through the pool's queue (a mutex),
  // and an inline step runs on this thread.
  constexpr auto relaxed = std::memory_order_relaxed;
  if (spare_step_ && spare_step_->users.load(std::memory_order_acquire) == 0) {
    // No thread of an earlier step still reads it: reuse (pool jobs may still hold the
    // shared_ptr, which only keeps it alive).
    spare_step_->tasks.clear();
    spare_step_->next.store(0, relaxed);
    spare_step_->inflight.store(0, relaxed);
    spare_step_->cancel.store(false, relaxed);
    spare_step_->sibling_failed.store(false, relaxed);
  } else {
    spare_step_ = std::make_shared<StepRun>();
  }
  step_ = spare_step_.get();
  StepRun* sr = step_;
  sr->runner = this;
  sr->max_concurrency = s_.config.max_concurrency;
  sr->options = s_.result_options();
  sr->stream = s_.out.wants_any();
  sr->tasks.reserve(s_.tasks.size());
  for (auto& t : s_.tasks) {
    if (t->cached) continue;  // finished before a pause or failure: its saved writes are reused
    sr->tasks.push_back(t.get());
    t->step_run = sr;
  }
  sr->remaining.store(sr->tasks.size(), relaxed);
  s_.out.step_started();

  const std::size_t n = sr->tasks.size();
  const bool start_step = n == 1 && sr->tasks.front()->node->is_start;
  const Program& g = *s_.g;
  std::size_t helpers = 0;
  if (!start_step) {
    std::size_t want = inline_tasks ? n - 1 : n;
    helpers = std::min(want, g.executor->size());
    if (s_.config.max_concurrency > 0)
      helpers = std::min<std::size_t>(helpers, inline_tasks ? s_.config.max_concurrency - 1 : s_.config.max_concurrency);
  }
  sr->solo = helpers == 0 && n == 1 && (inline_tasks || start_step) && !sr->tasks.front()->node->fn.is_async();
  if (sr->solo) {
    sr->next.store(1, relaxed);
    start_task(*sr->tasks.front());  // no claiming, no counting: this thread alone runs the step
    return;
  }
  sr->users.fetch_add(static_cast<int>(helpers), relaxed);  // before the submits that publish them
  for (std::size_t i = 0; i < helpers; ++i)
    g.executor->submit([job = spare_step_] {
      job->work();
      job->users.fetch_sub(1, std::memory_order_release);
    });
  if (inline_tasks || start_step) sr->work();
}

bool PregelRunner::cancelled() const noexcept {
  return (step_ && (step_->cancel.load() || step_->sibling_failed.load())) || s_.config.stop.stop_requested();
}

void PregelRunner::cancel() noexcept {
  if (step_) step_->cancel = true;
}

void PregelRunner::cancel_and_wait() {
  if (!step_) return;
  cancel();
  s_.out.wait_step_done();
}

void PregelRunner::post(std::function<void()> fn) const { s_.g->executor->submit(std::move(fn)); }

void PregelRunner::post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const {
  run_after(delay, [pool = s_.g->executor, fn = std::move(fn)]() mutable { pool->submit(std::move(fn)); });
}

void PregelRunner::start_task(ExecutableTask& t) {
  if (t.node->is_start) return run_start_task(t);
  if (t.node->fn.is_async()) return start_async(t);
  run_sync(t);
}

void PregelRunner::run_start_task(ExecutableTask& t) {
  // __start__ maps the input onto the state keys.
  const Program& g = *s_.g;
  try {
    if (g.typed) {
      if (!s_.typed_input.writes.empty()) {
        t.writes = std::move(s_.typed_input.writes);
      } else if (const json* in = s_.json_channel(g.start_channel)->peek(); in && in->is_object()) {
        t.writes = g.typed->writes_from_json(*in);  // a resumed run: the input as stored
      }
      t.control = t.node->edge_writes;
      task_finished(t);
      return;
    }
    json input = *s_.json_channel(g.start_channel)->peek();
    for (auto& [key, value] : input.items()) {
      int id = g.key_of(key, [] { return std::string("input has"); });
      // As LangGraph: with an input schema, the input sets its keys only; other state keys in it
      // are ignored (a subgraph is handed its parent's state).
      if (!g.input_mask.empty() && !g.input_mask[id]) continue;
      t.writes.emplace_back(id, std::move(value));
    }
    t.control = t.node->edge_writes;
  } catch (...) {
    t.error = std::current_exception();
  }
  task_finished(t);
}

namespace {
/// Not the node's failure, so raised as is and never retried: a GraphValueError raised inside a
/// node (interrupt() without a checkpointer: the graph's misuse, as LangGraph), a subgraph's
/// run stopped through RunConfig::stop (the parent stops too), and a subgraph's recursion limit
/// (LangGraph raises GraphRecursionError as is at every level).
bool misuse(const std::exception_ptr& e) {
  return holds<GraphValueError>(e) || holds<RunCancelledError>(e) || holds<GraphRecursionError>(e);
}

/// The node's result; a Command(graph=PARENT) from a graph the node invoked inside it
/// (CompiledStateGraph::invoke(input, rt)) is the node's own result, as LangGraph takes it.
template <class F>
NodeResult take_parent_command(F&& call) {
  try {
    return call();
  } catch (ParentCommand& up) {
    return NodeResult(std::move(up.command));
  }
}
}  // namespace

bool PregelRunner::should_retry(ExecutableTask& t) const {
  const auto& policy = t.node->retry;
  if (!policy || !t.error || !t.error_from_node) return false;
  if (t.attempt >= policy->max_attempts || cancelled()) return false;
  return policy->should_retry(t.error);
}

void PregelRunner::run_sync(ExecutableTask& t) {
  for (;;) {
    bool in_node = true;
    try {
      NodeResult r = take_parent_command([&] { return t.node->fn.sync()(*t.input, *t.runtime); });
      in_node = false;
      collect_writes(*s_.g, t, std::move(r), t.step_run->options);
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
      t.next_attempt();
    }
  }
  task_finished(t);
}

void PregelRunner::async_done(void* task) {
  auto* t = static_cast<ExecutableTask*>(task);
  t->step_run->runner->on_async_done(*t);
}

void PregelRunner::retry_async_later(ExecutableTask& t) {
  auto delay = std::chrono::duration_cast<std::chrono::nanoseconds>(t.node->retry->interval_after(t.attempt));
  t.next_attempt();
  post_after(delay, [this, &t] { start_async(t); });
}

void PregelRunner::start_async(ExecutableTask& t) {
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
    if (should_retry(t)) return retry_async_later(t);
    task_finished(t);
    return;
  }
  auto h = t.coro.handle();
  h.promise().on_done = &async_done;
  h.promise().on_done_ctx = &t;
  h.resume();
}

void PregelRunner::on_async_done(ExecutableTask& t) {
  bool in_node = true;
  try {
    NodeResult r = take_parent_command([&] { return t.coro.take(); });
    in_node = false;
    collect_writes(*s_.g, t, std::move(r), t.step_run->options);
    t.error = nullptr;
  } catch (const GraphInterrupt& paused) {
    t.clear_results();
    t.error = nullptr;
    t.pause_on(paused);
  } catch (...) {
    t.error = std::current_exception();
    t.error_from_node = in_node && !misuse(t.error);
    t.clear_results();
    if (should_retry(t)) return retry_async_later(t);
  }
  // Hold the step (read before task_finished: the consumer replaces or reuses spare_step_ only
  // after the step's last task has finished; task_finished's count publishes `users`).
  std::shared_ptr<StepRun> sr;
  if (t.step_run->max_concurrency > 0) {
    sr = spare_step_;
    sr->users.fetch_add(1, std::memory_order_relaxed);
  }
  task_finished(t);
  // This thread freed a concurrency slot: keep the step going if tasks are waiting for one.
  if (sr) {
    sr->work();
    sr->users.fetch_sub(1, std::memory_order_release);
  }
}

void PregelRunner::task_finished(ExecutableTask& t) {
  StepRun* sr = t.step_run;  // kept alive by step_ (and by pool jobs holding it)
  // A node's failure does not skip its siblings: every task of the step runs and its writes are
  // saved, whatever the order the pool takes them in (LangGraph.js starts them all, then aborts
  // their signal), so a resume re-runs only the failed task. Runtime::cancelled() tells them.
  if (t.error) sr->sibling_failed = true;
  if (!s_.checkpointed && !t.error && !t.paused) {
    try {
      check_task_update(s_, t);  // (a checkpointed run checks what it stores, in save_task_writes)
    } catch (...) {
      t.error = std::current_exception();
      t.error_from_node = false;
      sr->sibling_failed = true;
      sr->cancel = true;
    }
  }
  if (s_.checkpointed) {
    try {
      host_.save_task_writes(t);
    } catch (...) {
      // The saver refused: the step fails, with this as its error.
      if (!t.error) t.error = std::current_exception();
      t.error_from_node = false;
      sr->cancel = true;
    }
  }
  if (sr->stream && !t.node->is_start) host_.stream_task_result(t);
  if (sr->solo) {
    s_.out.step_done_inline();  // the consumer's own thread ran the step's only task: nobody waits
    return;
  }
  if (sr->max_concurrency > 0) sr->inflight.fetch_sub(1);
  if (sr->remaining.fetch_sub(1) == 1) s_.out.step_done();
}

}  // namespace superstep::internal
