// StateGraph: the mutable builder of a graph over a StateSchema. Add nodes and edges, then
// compile() into an immutable CompiledStateGraph. A builder is not thread-safe; the compiled
// graph is. Building never throws: compile() reports every problem at once.
//
//   sp::StateGraph g(schema);
//   g.add_node("plan", plan_fn).add_node("act", act_fn);
//   g.add_edge(sp::START, "plan");
//   g.add_conditional_edges("plan", router, {{"go", "act"}, {"stop", sp::END}});
//   g.add_edge("act", "plan");
//   sp::CompiledStateGraph app = g.compile();
#pragma once

#include <concepts>
#include <initializer_list>
#include <string_view>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/checkpoint/saver.hpp"
#include "superstep/executor.hpp"
#include "superstep/store/base_store.hpp"
#include "superstep/graph/compiled_state_graph.hpp"
#include "superstep/node.hpp"
#include "superstep/channels/typed_model.hpp"
#include "superstep/limits.hpp"
#include "superstep/schema.hpp"
#include "superstep/types.hpp"

namespace superstep {

/// Options of compile().
struct CompileOptions {
  std::shared_ptr<ThreadPool> executor;         ///< default: ThreadPool::shared()
  std::optional<RetryPolicy> retry_policy;      ///< default for nodes without their own
  /// Where runs persist their checkpoints (thread_id required in RunConfig when set).
  std::shared_ptr<CheckpointSaver> checkpointer;
  /// Long-term memory nodes reach through Runtime::store() (shared across threads and runs).
  std::shared_ptr<BaseStore> store;
  std::vector<std::string> interrupt_before;    ///< pause before these nodes run ("*" = all)
  std::vector<std::string> interrupt_after;     ///< pause after these nodes ran
  std::string name = "LangGraph";               ///< the graph's name in errors and drawings
  /// The largest update, checkpoint, state and message its runs accept (limits.hpp); a run's
  /// RunConfig::limits replaces them. A subgraph's runs use the subgraph's own.
  Limits limits;
};

class StateGraph {
 public:
  explicit StateGraph(StateSchema schema);
  ~StateGraph();
  StateGraph(StateGraph&&) noexcept;
  StateGraph& operator=(StateGraph&&) noexcept;

  /// Adds a node. Names must be unique, non-empty, not START/END and free of '|' and ':'.
  StateGraph& add_node(std::string name, NodeFn fn, NodeOptions options = {});
  /// Adds a compiled graph as a node (a subgraph). It receives this graph's state (the keys it
  /// shares), runs to its end, and its final values of the shared keys are the node's update.
  /// Without a checkpointer of its own it uses this graph's; its checkpoints live under
  /// namespace `name:<task_id>`. An interrupt() inside it pauses this graph too, and
  /// Command{.graph = Command::PARENT} from its nodes updates and routes this graph.
  StateGraph& add_node(std::string name, const CompiledStateGraph& subgraph, NodeOptions options = {});
  /// `to` runs in the step after `from` (START for an entry, END for an exit).
  /// (A template so that `add_edge({"a", "b"}, "c")` unambiguously means a join.)
  template <class From>
    requires std::convertible_to<From, std::string_view>
  StateGraph& add_edge(From&& from, std::string to) {
    return add_single_edge(std::string(std::string_view(from)), std::move(to));
  }
  /// Join: `to` runs once every node of `from` has run since `to` last ran.
  StateGraph& add_edge(std::vector<std::string> from, std::string to);
  /// After `from` runs, `router` is called on the fresh state (state plus from's own writes)
  /// and its result chooses the next nodes (or Sends).
  StateGraph& add_conditional_edges(std::string from, RouterFn router, PathMap path_map = {});
  /// Adds nodes and chains them with edges in order.
  StateGraph& add_sequence(std::vector<std::pair<std::string, NodeFn>> nodes);
  /// Same as add_edge(START, node).
  StateGraph& set_entry_point(std::string node);
  /// Same as add_conditional_edges(START, router, path_map).
  StateGraph& set_conditional_entry_point(RouterFn router, PathMap path_map = {});
  /// Same as add_edge(node, END).
  StateGraph& set_finish_point(std::string node);

  /// Validates and freezes the graph. Throws: GraphValidationError listing every problem.
  CompiledStateGraph compile(CompileOptions options = {}) const;

  /// Engine use (TypedStateGraph<S>): the state keys are the fields of a struct.
  StateGraph& use_typed_state(std::shared_ptr<const internal::TypedModel> model);

 private:
  StateGraph& add_single_edge(std::string from, std::string to);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep
