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

#include "superstep/cache.hpp"
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
  /// Where nodes with a NodeOptions::cache_policy keep their writes (cache.hpp); none: no caching.
  std::shared_ptr<BaseCache> cache;
  std::vector<std::string> interrupt_before;    ///< pause before these nodes run ("*" = all)
  std::vector<std::string> interrupt_after;     ///< pause after these nodes ran
  std::string name = "LangGraph";               ///< the graph's name in errors and drawings
  /// The largest update, checkpoint, state and message its runs accept (limits.hpp); a run's
  /// RunConfig::limits replaces them. A subgraph's runs use the subgraph's own.
  Limits limits;
};

/// Options of the StateGraph constructor: LangGraph's `input_schema` and `output_schema`
/// (JS: `new StateGraph({stateSchema, input, output})`). Each key of either becomes a channel
/// beside the state's keys (a key in no other schema is private to the input or the output).
struct StateGraphOptions {
  /// The keys an input may set: other state keys in an input are ignored, as LangGraph
  /// (a key of no schema is still an InvalidUpdateError). Default: the state schema.
  std::optional<StateSchema> input_schema;
  /// The keys invoke() returns (and a subgraph node hands its parent). Default: the state schema.
  std::optional<StateSchema> output_schema;
};

class StateGraph {
 public:
  explicit StateGraph(StateSchema schema);
  /// A graph whose input and output differ from its state (docs/guide.md, "Input and output
  /// schemas"):
  ///   sp::StateGraph g(overall, {.input_schema = in, .output_schema = out});
  /// Nodes see the state schema's keys (plus their NodeOptions::input_keys, which may name
  /// input- or output-only keys) and may write any key of the three schemas. A key declared in
  /// several schemas must agree on reducer, channel kind and default, unless the later one is
  /// a plain field (no reducer, kind or default), which takes the earlier declaration
  /// (compile() reports a conflict).
  StateGraph(StateSchema schema, StateGraphOptions options);
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
