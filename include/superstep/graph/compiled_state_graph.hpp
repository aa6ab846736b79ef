// CompiledStateGraph: an immutable, validated graph ready to run. Cheap to copy (shared
// immutable data); invoke and stream may be called from many threads at once, each call being
// an independent run with its own channels.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/async_stream.hpp"
#include "superstep/config.hpp"
#include "superstep/drawable_graph.hpp"
#include "superstep/json.hpp"
#include "superstep/state_snapshot.hpp"
#include "superstep/state_update.hpp"
#include "superstep/stream.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep {
class CompiledStateGraph;
namespace internal {
struct Program;
/// The Program a graph was lowered into (the engine's tests and tools read it).
const std::shared_ptr<const Program>& program_of(const CompiledStateGraph& graph) noexcept;
}  // namespace internal

class CompiledStateGraph {
 public:
  explicit CompiledStateGraph(std::shared_ptr<const internal::Program> data);

  /// Runs the graph to the end and returns the final state. With a checkpointer, a null input
  /// continues the thread from its latest checkpoint (or `config.checkpoint_id`: replay), and a
  /// run that pauses returns its state plus `__interrupt__` (a list of {id, value}).
  /// Throws: EmptyInputError (null input, nothing to continue), InvalidUpdateError,
  /// GraphRecursionError, NodeError, CheckpointError.
  json invoke(const json& input, const RunConfig& config = {}) const;
  /// Resumes interrupts (`.resume`), applies `.update` and routes to `.go_to` on a thread.
  json invoke(const Command& input, const RunConfig& config = {}) const;

  /// Runs the graph, yielding parts of the requested modes while it runs.
  /// invoke as a coroutine: the run holds no thread while its nodes wait (on a model, a tool, a
  /// timer); between steps it continues on the graph's executor. A thousand concurrent runs
  /// need only the executor's threads:
  ///   std::vector<sp::Task<json>> runs; for (...) runs.push_back(app.ainvoke(input, cfg));
  ///   auto results = sp::sync_wait(sp::when_all(std::move(runs)));
  /// The graph must outlive the task.
  Task<json> ainvoke(json input, RunConfig config = {}) const;
  Task<json> ainvoke(Command input, RunConfig config) const;

  /// Inside a node (`rt` is the node's Runtime): runs this graph as part of the node's run, as
  /// LangGraph does with a graph invoked in a node: it is the task's subgraph, with the run's
  /// thread and checkpointer (unless it has its own), its checkpoints under the task's
  /// namespace (`node:task_id`), its parts in the run's stream (with `subgraphs`), and its
  /// interrupts pausing the node; when the node runs again on resume, this call continues the
  /// paused run with the answer (the input is then unused). Returns the graph's output.
  /// With a checkpointer a node may run one graph so (a second call throws GraphValueError).
  json invoke(json input, Runtime& rt) const;
  /// invoke(input, rt) for a coroutine node: holds no thread while the graph's nodes wait.
  Task<json> ainvoke(json input, Runtime& rt) const;

  /// Runs the graph, yielding its parts as they are produced. `modes` defaults to `updates`,
  /// as a compiled StateGraph in LangGraph (Python and JS); with several modes, each part says
  /// its mode. A Command input (update, go_to) runs without a checkpointer too; its resume needs one.
  Stream stream(const json& input, const RunConfig& config = {},
                std::vector<StreamMode> modes = {StreamMode::updates}) const;
  Stream stream(const Command& input, const RunConfig& config = {},
                std::vector<StreamMode> modes = {StreamMode::updates}) const;
  /// stream as a coroutine (async_stream.hpp): `co_await s.next()` holds no thread while a step
  /// runs, and gives each part as soon as a task emits it. Bad input is reported here, as stream.
  AsyncStream astream(const json& input, const RunConfig& config = {},
                      std::vector<StreamMode> modes = {StreamMode::updates}) const;
  AsyncStream astream(const Command& input, const RunConfig& config = {},
                      std::vector<StreamMode> modes = {StreamMode::updates}) const;

  // --- persistence (needs a checkpointer; `config.thread_id` names the thread) ---

  /// The thread's latest checkpoint, or `config.checkpoint_id`, as a snapshot. With
  /// `subgraphs`, each pending subgraph task carries the subgraph's own snapshot (`state`).
  /// A `config.checkpoint_ns` naming a subgraph (`node:<task_id>`, as in a task's
  /// `state_config`) reads that subgraph's checkpoints; so do get_state_history and
  /// update_state. Throws: CheckpointError for an unknown thread or checkpoint id.
  StateSnapshot get_state(const RunConfig& config, bool subgraphs = false) const;
  /// The thread's snapshots, newest first: only those whose metadata matches `filter`, older
  /// than checkpoint `before`, at most `limit`.
  std::vector<StateSnapshot> get_state_history(const RunConfig& config, const json& filter = nullptr,
                                               std::optional<std::string> before = std::nullopt,
                                               std::optional<std::size_t> limit = std::nullopt) const;
  /// Applies `values` as if node `as_node` had returned them (its edges and routers run too)
  /// and saves a checkpoint with source "update". `as_node` empty: the node that ran last, or
  /// START on a thread no node has run on (as LangGraph). START may be named: the values are
  /// applied and START's edges taken. Special: END with null values ends the pending tasks;
  /// "__copy__" forks the checkpoint unchanged; "__input__" applies `values` as a new input
  /// (step -1 on a new thread). On a past `checkpoint_id` the new
  /// checkpoint forks from it. Returns: the new checkpoint's config.
  /// Throws: InvalidUpdateError (unknown node, ambiguous last node, unknown key).
  RunConfig update_state(const RunConfig& config, const json& values, const std::string& as_node = "") const;
  /// Several supersteps of updates (LangGraph's bulk_update_state): the updates of one
  /// superstep apply together, as if those nodes had run in parallel, and make one checkpoint
  /// (source "update"); each superstep continues from the previous one's. An update as END,
  /// "__copy__" or "__input__" must be alone in its superstep. Returns the last checkpoint's
  /// config. Throws: InvalidUpdateError (as update_state; an empty superstep).
  RunConfig bulk_update_state(const RunConfig& config, const std::vector<std::vector<StateUpdate>>& supersteps) const;

  /// The graph's structure, for drawing.
  DrawableGraph get_graph() const;
  /// With `xray` levels of subgraphs drawn inside it (-1: all): a subgraph node becomes its
  /// nodes, named `<node>:<inner>`; edges into it reach its first nodes, edges out leave from
  /// its last ones (as LangGraph's get_graph(xray=...)).
  DrawableGraph get_graph(int xray) const;
  /// The compiled graphs added as nodes, by node name (as LangGraph's get_subgraphs): only the
  /// one named `namespace_` when given; with `recurse`, theirs too, named `outer|inner`.
  std::vector<std::pair<std::string, CompiledStateGraph>> get_subgraphs(const std::string& namespace_ = "",
                                                                       bool recurse = false) const;
  /// JSON Schema (draft-07) of the state: an object with a property per channel key (those of
  /// the input and output schemas too, as get_state shows them); typed state (TypedStateGraph)
  /// gives each its type's schema, JSON state leaves them untyped.
  json get_state_jsonschema() const;
  /// JSON Schema of the input: the input schema's keys (StateGraphOptions::input_schema), else
  /// the state's, titled `<name>Input` when it differs from the state.
  json get_input_jsonschema() const;
  /// JSON Schema of the output (what invoke returns): the output schema's keys, else the
  /// state's, titled `<name>Output` when it differs from the state.
  json get_output_jsonschema() const;
  /// Drops what the node cache (CompileOptions::cache) holds for `nodes` of this graph (empty:
  /// every node), as LangGraph's clear_cache. Nothing without a cache.
  void clear_cache(const std::vector<std::string>& nodes = {}) const;
  /// Non-fatal findings of compile() (e.g. nodes unreachable through static edges).
  const std::vector<std::string>& warnings() const noexcept;
  const std::string& name() const noexcept;
  /// The names of the nodes, in the order they were added.
  std::vector<std::string> nodes() const;

  /// Typed state (used by TypedCompiledGraph<S>): runs with typed input writes and hands the
  /// final state struct to `take` before the run's channels are recycled.
  void invoke_typed(internal::WriteList input, const RunConfig& config, const std::function<void(void*)>& take) const;
  /// Typed state on a checkpointed thread: a Command input, or (null) continue the thread.
  void invoke_typed(const Command* input, const RunConfig& config, const std::function<void(void*)>& take) const;
  Stream stream_typed(internal::WriteList input, const RunConfig& config, std::vector<StreamMode> modes) const;

 private:
  friend class StateGraph;  // add_node(name, subgraph)
  friend const std::shared_ptr<const internal::Program>& internal::program_of(const CompiledStateGraph&) noexcept;
  std::shared_ptr<const internal::Program> data_;
};

}  // namespace superstep
