// NodeFn and RouterFn: the callables a graph runs, stored type-erased. A node is
//   NodeResult f(const State&, Runtime&)            (or f(const State&))
//   Task<NodeResult> f(const State&, Runtime&)      a coroutine: awaits I/O without a thread
// and may return a json update, a Command, NodeResult, or void. A router is
//   Route f(const State&)                           (or f(const State&, Runtime&))
// returning a node name, a list of names, END, or Sends.
#pragma once

#include <concepts>
#include <functional>
#include <type_traits>
#include <utility>

#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep {

class NodeFn {
 public:
  using Sync = std::function<NodeResult(const State&, Runtime&)>;
  using Async = std::function<Task<NodeResult>(const State&, Runtime&)>;

  NodeFn() = default;
  template <class F>
    requires(!std::same_as<std::decay_t<F>, NodeFn>)
  NodeFn(F f) {  // NOLINT(google-explicit-constructor): any callable is a node
    if constexpr (std::is_invocable_v<F&, const State&, Runtime&>) {
      using R = std::invoke_result_t<F&, const State&, Runtime&>;
      if constexpr (std::same_as<R, Task<NodeResult>>) {
        async_ = std::move(f);
      } else if constexpr (std::is_void_v<R>) {
        sync_ = [f = std::move(f)](const State& s, Runtime& rt) mutable -> NodeResult { f(s, rt); return {}; };
      } else {
        static_assert(std::is_convertible_v<R, NodeResult>,
                      "a node must return json, Command, NodeResult, void or Task<NodeResult>");
        sync_ = [f = std::move(f)](const State& s, Runtime& rt) mutable -> NodeResult { return NodeResult(f(s, rt)); };
      }
    } else {
      static_assert(std::is_invocable_v<F&, const State&>,
                    "a node must be callable as f(const State&, Runtime&) or f(const State&)");
      using R = std::invoke_result_t<F&, const State&>;
      if constexpr (std::same_as<R, Task<NodeResult>>) {
        async_ = [f = std::move(f)](const State& s, Runtime&) mutable { return f(s); };
      } else if constexpr (std::is_void_v<R>) {
        sync_ = [f = std::move(f)](const State& s, Runtime&) mutable -> NodeResult { f(s); return {}; };
      } else {
        static_assert(std::is_convertible_v<R, NodeResult>,
                      "a node must return json, Command, NodeResult, void or Task<NodeResult>");
        sync_ = [f = std::move(f)](const State& s, Runtime&) mutable -> NodeResult { return NodeResult(f(s)); };
      }
    }
  }

  bool is_async() const noexcept { return static_cast<bool>(async_); }
  explicit operator bool() const noexcept { return sync_ || async_; }
  const Sync& sync() const noexcept { return sync_; }
  const Async& async() const noexcept { return async_; }

 private:
  Sync sync_;
  Async async_;
};

class RouterFn {
 public:
  using Fn = std::function<Route(const State&, Runtime&)>;
  RouterFn() = default;
  template <class F>
    requires(!std::same_as<std::decay_t<F>, RouterFn>)
  RouterFn(F f) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_invocable_v<F&, const State&, Runtime&>) {
      fn_ = [f = std::move(f)](const State& s, Runtime& rt) mutable { return Route(f(s, rt)); };
    } else {
      static_assert(std::is_invocable_v<F&, const State&>,
                    "a router must be callable as f(const State&) or f(const State&, Runtime&)");
      fn_ = [f = std::move(f)](const State& s, Runtime&) mutable { return Route(f(s)); };
    }
  }
  Route operator()(const State& s, Runtime& rt) const { return fn_(s, rt); }
  explicit operator bool() const noexcept { return static_cast<bool>(fn_); }

 private:
  Fn fn_;
};

}  // namespace superstep
