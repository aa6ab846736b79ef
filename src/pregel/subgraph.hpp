// Subgraphs: a compiled graph used as a node of another (StateGraph::add_node(name, graph)).
// The node runs a child PregelLoop linked to the task that runs it: the child inherits the
// parent's checkpointer, thread and run settings, keeps its checkpoints under namespace
// `<node>:<task_id>` (nested: joined with '|'), streams its parts into the parent's stream with
// that namespace, pauses the parent when it is interrupted, and hands a Command to the parent.
#pragma once

#include <memory>
#include <string>

#include "superstep/checkpoint/saver.hpp"
#include "superstep/store/base_store.hpp"
#include "superstep/executor.hpp"
#include "superstep/node.hpp"
#include "superstep/runtime.hpp"
#include "superstep/task.hpp"
#include "superstep/json.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

struct Program;
class PregelLoop;
class Outbox;

/// What a subgraph's run inherits from the task running it.
struct ParentLink {
  std::shared_ptr<CheckpointSaver> saver;  ///< the parent's, when the subgraph has none
  BaseStore* store = nullptr;              ///< the parent's store, when the subgraph has none
  json parents = json::object();           ///< checkpoint metadata "parents": namespace -> checkpoint id
  std::vector<std::string> ns;             ///< stream namespace: one "node:task_id" per level
  Outbox* out = nullptr;                   ///< the parent's outbox: the subgraph's parts go there as emitted
};

/// A child run of a task: a subgraph node's, or a graph invoked inside a node. Pinned (the
/// child loop points at `link`).
struct ChildRun {
  ParentLink link;
  std::unique_ptr<PregelLoop> run;
  ThreadPool* executor = nullptr;  ///< the child's, where a suspended driver resumes
};

/// CompiledStateGraph::invoke(input, rt) / ainvoke(input, rt): `child` run inside the node that
/// `rt` belongs to, as its subgraph (namespace, checkpointer, stream, interrupts); returns the
/// child's output. Throws GraphInterrupt when the child pauses (the node pauses).
json invoke_inner(const std::shared_ptr<const Program>& child, json input, Runtime& rt);
Task<json> ainvoke_inner(std::shared_ptr<const Program> child, json input, Runtime& rt);

/// Thrown by a subgraph's node that returned Command{.graph = Command::PARENT}: ends the
/// subgraph's run and becomes the result of the parent's task.
struct ParentCommand : std::exception {
  explicit ParentCommand(Command c) : command(std::move(c)) {}
  const char* what() const noexcept override { return "Command(graph=PARENT) sent to the parent graph"; }
  Command command;
};

/// The node function that runs `child` as a subgraph.
NodeFn subgraph_node(std::shared_ptr<const Program> child);

}  // namespace superstep::internal
