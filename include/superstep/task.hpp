// Task<T>: the coroutine type of asynchronous nodes and helpers. A node written as
//
//   g.add_node("call", [](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
//     co_await sp::sleep_for(rt, 20ms);              // or a model call, an HTTP tool
//     co_return json{{"answer", 42}};
//   });
//
// holds no worker thread while it waits: the awaited operation resumes it on the run's
// executor. A Task is lazy (starts when awaited or started by the engine), move-only, and owns
// its coroutine frame. Tasks compose: `co_await other_task` inside a Task.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <utility>
#include <vector>

#include "superstep/runtime.hpp"

namespace superstep {

namespace internal {
struct PromiseBase {
  std::coroutine_handle<> continuation;
  void (*on_done)(void*) = nullptr;   // top-level completion hook (the engine's)
  void* on_done_ctx = nullptr;
  std::exception_ptr error;

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.continuation) return p.continuation;
      // The hook may destroy this frame; nothing below touches it.
      if (p.on_done) p.on_done(p.on_done_ctx);
      return std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};
}  // namespace internal

template <class T = void>
class [[nodiscard]] Task {
 public:
  struct promise_type : internal::PromiseBase {
    std::optional<T> value;
    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    template <class U>
    void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() {
    if (h_) h_.destroy();
  }

  bool await_ready() const noexcept { return !h_ || h_.done(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> cont) noexcept {
    h_.promise().continuation = cont;
    return h_;
  }
  T await_resume() { return take(); }

  /// Engine use: the frame's handle.
  Handle handle() const noexcept { return h_; }
  /// Engine use: the result once done; rethrows the coroutine's exception.
  T take() {
    auto& p = h_.promise();
    if (p.error) std::rethrow_exception(p.error);
    return std::move(*p.value);
  }

 private:
  Handle h_;
};

template <>
class [[nodiscard]] Task<void> {
 public:
  struct promise_type : internal::PromiseBase {
    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    void return_void() noexcept {}
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() {
    if (h_) h_.destroy();
  }
  bool await_ready() const noexcept { return !h_ || h_.done(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> cont) noexcept {
    h_.promise().continuation = cont;
    return h_;
  }
  void await_resume() {
    if (h_.promise().error) std::rethrow_exception(h_.promise().error);
  }
  Handle handle() const noexcept { return h_; }

 private:
  Handle h_;
};

namespace internal {
/// The run was stopped (RunConfig::stop) while a node awaited: what the await throws.
[[noreturn]] void throw_await_cancelled(const char* what);

/// A wait ended once, by its event or by the run's stop, whichever comes first.
struct WaitOnce {
  std::mutex mutex;
  bool settled = false;
  bool cancelled = false;
  std::coroutine_handle<> waiter;
  const Runtime* rt = nullptr;
  void settle(bool by_stop) {
    std::coroutine_handle<> h;
    {
      std::lock_guard lock(mutex);
      if (settled) return;
      settled = true;
      cancelled = by_stop;
      h = waiter;
    }
    if (h) rt->post([h] { h.resume(); });
  }
};
using StopCallback = std::stop_callback<std::function<void()>>;
}  // namespace internal

/// Suspends the coroutine for `delay` without holding a thread; it resumes on the run's
/// executor. When the run is stopped meanwhile (RunConfig::stop: a cancel, a timeout, a
/// shutdown), it resumes at once and throws RunCancelledError: the node stops there and the
/// run ends at this step, which a resume runs again.
inline auto sleep_for(const Runtime& rt, std::chrono::nanoseconds delay) {
  struct Awaiter {
    const Runtime* rt;
    std::chrono::nanoseconds delay;
    std::shared_ptr<internal::WaitOnce> s;
    std::optional<internal::StopCallback> on_stop;
    bool await_ready() const noexcept { return delay.count() <= 0; }
    bool await_suspend(std::coroutine_handle<> h) {
      s = std::make_shared<internal::WaitOnce>();
      s->rt = rt;
      std::stop_token stop = rt->config().stop;
      // Registered before the waiter is set: a stop already requested settles it here, and
      // nothing resumes the coroutine before await_suspend returns.
      if (stop.stop_possible()) on_stop.emplace(stop, [s = s] { s->settle(true); });
      rt->post_after(delay, [s = s] { s->settle(false); });
      std::lock_guard lock(s->mutex);
      if (s->settled) return false;
      s->waiter = h;
      return true;
    }
    void await_resume() {
      on_stop.reset();
      if (s && s->cancelled) internal::throw_await_cancelled("sleep_for");
    }
  };
  return Awaiter{&rt, delay, nullptr, std::nullopt};
}

/// Completes an `await_callback`: call complete(v) or fail(e) exactly once, from any thread.
template <class T>
class Completion {
 public:
  struct Shared {
    std::mutex mutex;
    std::optional<T> value;
    std::exception_ptr error;
    std::coroutine_handle<> waiter;
    const Runtime* rt = nullptr;
    bool settled = false;
  };
  explicit Completion(std::shared_ptr<Shared> s) : s_(std::move(s)) {}
  void complete(T v) const { settle([&] { s_->value.emplace(std::move(v)); }); }
  void fail(std::exception_ptr e) const { settle([&] { s_->error = std::move(e); }); }

 private:
  template <class F>
  void settle(F&& set) const {
    std::coroutine_handle<> h;
    {
      std::lock_guard lock(s_->mutex);
      if (s_->settled) return;
      set();
      s_->settled = true;
      h = s_->waiter;
    }
    if (h) s_->rt->post([h] { h.resume(); });
  }
  std::shared_ptr<Shared> s_;
};

/// Bridges callback-style I/O into a coroutine: `starter(Completion<T>)` begins the operation
/// and some thread later calls complete(value) or fail(error); the coroutine then resumes on
/// the run's executor with the value (or the error thrown). No thread waits meanwhile.
template <class T, class Starter>
auto await_callback(const Runtime& rt, Starter starter) {
  struct Awaiter {
    const Runtime* rt;
    Starter starter;
    std::shared_ptr<typename Completion<T>::Shared> s;
    std::optional<internal::StopCallback> on_stop;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      s->rt = rt;
      starter(Completion<T>(s));
      // A stop of the run fails the wait (the operation's own completion is then ignored).
      // Registered before the waiter is set, as in sleep_for.
      std::stop_token stop = rt->config().stop;
      if (stop.stop_possible())
        on_stop.emplace(stop, [s = s] {
          try {
            internal::throw_await_cancelled("await_callback");
          } catch (...) {
            Completion<T>(s).fail(std::current_exception());
          }
        });
      std::lock_guard lock(s->mutex);
      if (s->settled) return false;  // completed synchronously (or stopped): do not suspend
      s->waiter = h;
      return true;
    }
    T await_resume() {
      on_stop.reset();
      if (s->error) std::rethrow_exception(s->error);
      return std::move(*s->value);
    }
  };
  return Awaiter{&rt, std::move(starter), std::make_shared<typename Completion<T>::Shared>(), std::nullopt};
}

namespace internal {
/// A coroutine started at once and never awaited: it reports through what it captures. Its
/// body must not let an exception escape.
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

/// Awaits `task`, destroys it, then calls `done` with its outcome: whatever the task's frame
/// held (a run, its graph, an executor) is released before anyone learns it finished, so the
/// last owner of an executor is never one of its own threads.
template <class T, class Done>
Detached start_detached(Task<T> task, Done done) {
  std::exception_ptr error;
  if constexpr (std::is_void_v<T>) {
    {
      Task<T> t = std::move(task);
      try {
        co_await std::move(t);
      } catch (...) {
        error = std::current_exception();
      }
    }
    done(error);
  } else {
    std::optional<T> value;
    {
      Task<T> t = std::move(task);
      try {
        value.emplace(co_await std::move(t));
      } catch (...) {
        error = std::current_exception();
      }
    }
    done(std::move(value), error);
  }
}
}  // namespace internal

/// Runs `task` to its end on the calling thread's behalf and returns its result (or throws its
/// error). The calling thread blocks; the task's awaits resume wherever they resume (an
/// executor). Use it at the edge of a program: `auto out = sp::sync_wait(app.ainvoke(input));`.
template <class T>
T sync_wait(Task<T> task) {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::optional<T> value;
  std::exception_ptr error;
  internal::start_detached(std::move(task), [&](std::optional<T> v, std::exception_ptr e) {
    std::lock_guard lock(mutex);
    value = std::move(v);
    error = e;
    done = true;
    cv.notify_all();
  });
  std::unique_lock lock(mutex);
  cv.wait(lock, [&] { return done; });
  if (error) std::rethrow_exception(error);
  return std::move(*value);
}

/// Runs every task at once and completes when all have; results in the tasks' order. If some
/// fail, the first failure (in order) is thrown after all have finished.
template <class T>
Task<std::vector<T>> when_all(std::vector<Task<T>> tasks) {
  struct Shared {
    std::atomic<std::size_t> remaining;
    std::coroutine_handle<> waiter;
    std::vector<std::optional<T>> values;
    std::vector<std::exception_ptr> errors;
  };
  auto s = std::make_shared<Shared>();
  s->values.resize(tasks.size());
  s->errors.resize(tasks.size());
  s->remaining.store(tasks.size() + 1);
  struct Awaiter {
    std::shared_ptr<Shared> s;
    std::vector<Task<T>>* tasks;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      s->waiter = h;
      for (std::size_t i = 0; i < tasks->size(); ++i)
        internal::start_detached(std::move((*tasks)[i]), [s = s, i](std::optional<T> v, std::exception_ptr e) {
          s->values[i] = std::move(v);
          s->errors[i] = e;
          if (s->remaining.fetch_sub(1) == 1) s->waiter.resume();
        });
      return s->remaining.fetch_sub(1) != 1;  // all finished already: do not suspend
    }
    void await_resume() const noexcept {}
  };
  Awaiter all{s, &tasks};  // named: GCC 12 mishandles class temporaries in a co_await operand
  co_await all;
  std::vector<T> out;
  out.reserve(tasks.size());
  for (std::size_t i = 0; i < s->values.size(); ++i)
    if (s->errors[i]) std::rethrow_exception(s->errors[i]);
  for (auto& v : s->values) out.push_back(std::move(*v));
  co_return out;
}

}  // namespace superstep
