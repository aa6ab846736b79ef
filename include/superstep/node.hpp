// NodeFn and RouterFn: the callables a graph runs, stored type-erased. A node is
//   NodeResult f(const State&, Runtime&)            (or f(const State&))
//   Task<NodeResult> f(const State&, Runtime&)      a coroutine: awaits I/O without a thread
// and may return a json update, a Command, NodeResult, or void. A router is
//   Route f(const State&)                           (or f(const State&, Runtime&))
// returning a node name, a list of names, END, or Sends. NodeOptions and PathMap say how the
// builder wires them (StateGraph::add_node, add_conditional_edges).
#pragma once

#include <concepts>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "superstep/runtime.hpp"
#include "superstep/state.hpp"
#include "superstep/task.hpp"
#include "superstep/cache.hpp"
#include "superstep/types.hpp"

namespace superstep {

/// Per-node options of add_node.
struct NodeOptions {
  std::optional<RetryPolicy> retry;      ///< overrides CompileOptions::retry_policy
  bool defer = false;                    ///< run only when nothing else would run
  json metadata = json::object();        ///< shown in drawings and task metadata
  std::vector<std::string> input_keys;   ///< keys the node sees; empty = all
  std::vector<std::string> output_keys;  ///< keys the node may write; empty = all
  std::vector<std::string> ends;         ///< where its Command.go_to may lead (drawing, checks)
  /// Reuse its writes for an input it ran on before (cache.hpp; needs CompileOptions::cache).
  std::optional<CachePolicy> cache_policy;
};

/// Where a router's results lead: a map from the router's return values to nodes, or a list of
/// the possible destinations. Empty = the router returns node names directly.
class PathMap {
 public:
  PathMap() = default;
  PathMap(std::initializer_list<std::pair<std::string, std::string>> mapping) : mapping_(mapping.begin(), mapping.end()) {}
  PathMap(std::map<std::string, std::string> mapping) : mapping_(std::move(mapping)) {}
  PathMap(std::vector<std::string> destinations) : destinations_(std::move(destinations)) {}

  bool empty() const noexcept { return mapping_.empty() && destinations_.empty(); }
  const std::map<std::string, std::string>& mapping() const noexcept { return mapping_; }
  const std::vector<std::string>& destinations() const noexcept { return destinations_; }

 private:
  std::map<std::string, std::string> mapping_;
  std::vector<std::string> destinations_;
};

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
