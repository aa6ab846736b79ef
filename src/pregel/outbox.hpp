// Outbox: what the threads running a step tell the consumer's thread. Tasks (on any thread) emit
// stream parts; the runner says the step is done; either wakes an asynchronous consumer; the
// loop, on the consumer's thread, collects both. One mutex guards the parts, the done flag and the wake-up,
// so a consumer waiting for either never misses one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "superstep/executor.hpp"
#include "superstep/stream.hpp"

namespace superstep::internal {

class Outbox {
 public:
  void set_modes(const std::vector<StreamMode>& modes) {
    for (StreamMode m : modes) modes_ |= 1u << static_cast<int>(m);
  }
  bool wants(StreamMode m) const noexcept { return (modes_ >> static_cast<int>(m)) & 1u; }
  bool wants_any() const noexcept { return modes_ != 0; }

  /// A subgraph's run: its parts go to `forward` (the parent's outbox, with the subgraph's
  /// namespace) as they are emitted, from whichever thread emits them, so no consumer thread has
  /// to stay free to pass them on; and the message ids sent are `ids`' (one set per root run, as
  /// LangGraph's one messages handler). Before any part.
  void forward_to(std::function<void(std::vector<StreamPart>)> forward, Outbox* ids) {
    forward_ = std::move(forward);
    ids_ = ids;
  }
  bool forwards() const noexcept { return static_cast<bool>(forward_); }

  /// The pool that runs the step's tasks. A consumer that is one of its workers (a subgraph's
  /// run inside a task, a graph invoked from a node) runs the pool's jobs while it waits: one of
  /// them may be the step's own task (a coroutine's continuation) with no other worker free.
  void run_on(std::shared_ptr<ThreadPool> pool) { pool_ = std::move(pool); }

  /// A part, when its mode is wanted.
  void emit(StreamMode mode, json data) { emit_part(StreamPart{mode, {}, std::move(data)}); }
  void emit_part(StreamPart part) {
    if (!wants(part.mode)) return;
    if (forward_) {
      std::vector<StreamPart> one;
      one.push_back(std::move(part));
      return forward_(std::move(one));
    }
    std::function<void()> wake;
    std::shared_ptr<ThreadPool> helping;
    {
      std::lock_guard lock(mutex_);
      parts_.push_back(std::move(part));
      wake = std::move(wake_);
      wake_ = nullptr;
      helping = helping_pool();
    }
    cv_.notify_all();
    if (helping) helping->wake_helpers();
    if (wake) wake();
  }
  /// Parts yielded one after the other, with no other thread's part in between (those wanted).
  void emit_together(std::vector<StreamPart> parts) {
    std::erase_if(parts, [&](const StreamPart& p) { return !wants(p.mode); });
    if (parts.empty()) return;
    if (forward_) return forward_(std::move(parts));
    std::function<void()> wake;
    std::shared_ptr<ThreadPool> helping;
    {
      std::lock_guard lock(mutex_);
      for (StreamPart& p : parts) parts_.push_back(std::move(p));
      wake = std::move(wake_);
      wake_ = nullptr;
      helping = helping_pool();
    }
    cv_.notify_all();
    if (helping) helping->wake_helpers();
    if (wake) wake();
  }
  /// `messages` mode: records a message id as sent; false when it was sent before.
  bool first_sent(const std::string& id) {
    if (ids_) return ids_->first_sent(id);
    std::lock_guard lock(mutex_);
    return sent_ids_.insert(id).second;
  }

  // --- the step's end ---
  /// Before the step's tasks start (the consumer's thread, no task running).
  void step_started() noexcept { step_done_ = false; }
  /// The consumer's own thread ran the step's only task: nobody waits, no lock.
  void step_done_inline() noexcept { step_done_ = true; }
  bool done_inline() const noexcept { return step_done_; }
  /// The step's last task finished (any thread): wakes the consumer and an asynchronous one.
  void step_done() {
    std::function<void()> wake, then;
    std::shared_ptr<ThreadPool> helping;  // held: once unlocked, this outbox may be gone
    {
      std::lock_guard lock(mutex_);
      step_done_ = true;
      wake = std::move(wake_);
      wake_ = nullptr;
      then = std::move(then_);
      then_ = nullptr;
      helping = helping_pool();
      cv_.notify_all();
    }
    if (helping) helping->wake_helpers();
    if (wake) wake();
    if (then) then();  // last: it may hand the run to another thread to destroy
  }
  /// Arranges for `then` to be called once, by the thread that ends the step (parts do not
  /// call it); false, keeping nothing, when the step has ended already.
  bool when_step_done(std::function<void()> then) {
    std::lock_guard lock(mutex_);
    if (step_done_) return false;
    then_ = std::move(then);
    return true;
  }
  /// The step is done or a part waits to be collected: collect() would not wait.
  bool ready() const {
    std::lock_guard lock(mutex_);
    return step_done_ || !parts_.empty();
  }
  /// Arranges for `wake` to be called once (from the thread that emits a part or finishes the
  /// step) when ready() becomes true; false, keeping nothing, when it is already.
  bool wake_when_ready(std::function<void()> wake) {
    std::lock_guard lock(mutex_);
    if (step_done_ || !parts_.empty()) return false;
    wake_ = std::move(wake);
    return true;
  }
  void wait_step_done() {
    if (pool_ && pool_->on_worker()) {
      pool_->help_until([&] {
        std::lock_guard lock(mutex_);
        return step_done_;
      });
      return;
    }
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return step_done_; });
  }
  /// Moves the parts emitted so far to `ready`, first waiting (unless `inline_done`: the step ran
  /// on this thread, which alone touched the parts) until the step is done or a part arrives.
  /// Returns whether the step is done.
  bool collect(std::deque<StreamPart>& ready, bool inline_done) {
    if (inline_done) {
      move_parts(ready);
      return true;
    }
    if (pool_ && pool_->on_worker()) {
      pool_->help_until([&] {
        std::lock_guard lock(mutex_);
        return step_done_ || !parts_.empty();
      });
    }
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return step_done_ || !parts_.empty(); });
    move_parts(ready);
    return step_done_;
  }

 private:
  /// Under mutex_, after the change a helper waits for: the pool to wake, if a worker helps it
  /// (help_until counts its helpers before it first checks, under this mutex: none is missed).
  std::shared_ptr<ThreadPool> helping_pool() const {
    return pool_ && pool_->has_helpers() ? pool_ : nullptr;
  }
  void move_parts(std::deque<StreamPart>& ready) {
    while (!parts_.empty()) {
      ready.push_back(std::move(parts_.front()));
      parts_.pop_front();
    }
  }

  uint32_t modes_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<StreamPart> parts_;
  std::unordered_set<std::string> sent_ids_;
  std::function<void()> wake_;
  std::function<void()> then_;  // when_step_done
  bool step_done_ = false;
  std::function<void(std::vector<StreamPart>)> forward_;  // a subgraph's: the parent's outbox
  Outbox* ids_ = nullptr;                                  // a subgraph's: where sent message ids are
  std::shared_ptr<ThreadPool> pool_;                       // run_on
};

}  // namespace superstep::internal
