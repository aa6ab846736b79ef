// Planning and the barrier as pure functions of a Program and a ChannelState (LangGraph's
// pregel/_algo: prepare_next_tasks, apply_writes), with what a node's result becomes (its
// writes, routes and Sends). No threads, no saver, no stream: the loop (PregelLoop) calls them
// between steps, when no task is running, and tests/pregel/algo_test.cpp calls them alone.
// docs/semantics.md, "The loop", steps 3 and 6, states the rules.
#pragma once

#include <cstdint>
#include <vector>

#include "pregel/channel_state.hpp"
#include "pregel/executable_task.hpp"
#include "pregel/program.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

/// Resets `s` (a set from g.channel_pool) for a new run of `g`: the prototypes' versions,
/// nothing seen, no pending Send, and the input step's trigger of __start__ (version 1). A
/// typed graph's __start__ holds an empty object (its input is written by the __start__ task).
void start_channels(const Program& g, ChannelState& s);

/// The PULL half of LangGraph's prepare_next_tasks: the nodes with a trigger channel that is
/// available and updated past the version the node last saw, in name order. Only nodes
/// subscribed to a channel the last step updated are looked at. The PUSH tasks are
/// s.pending_sends, in Send order, and run before these. Returns s.candidates.
const std::vector<int>& triggered_nodes(const Program& g, ChannelState& s);

/// The step's tasks in path order, into s.order: PULL tasks by node name, then PUSH tasks by
/// Send index (never in completion order).
const std::vector<ExecutableTask*>& path_order(const std::vector<TaskPtr>& tasks, ChannelState& s);

/// LangGraph's apply_writes, at the barrier of step `step`, over `tasks` as planning made them
/// (PUSH tasks by Send index, then PULL tasks by node name; path_order puts the PULL tasks
/// first, so completion order never matters). Each PULL task records the versions
/// it saw and consumes its triggers; every state write goes through its channel's reducer,
/// all tasks' writes to one channel together, in path order; then the routers run (on the state
/// with their own task's writes only), branch and join writes apply, Sends queue as the next
/// step's PUSH tasks, volatile channels not written are cleared, and when no trigger was updated
/// the deferred nodes' channels finish. Updated channels get one new version.
/// Throws: InvalidUpdateError naming the graph, step, channel and writers; NodeError when a
/// router throws.
void apply_writes(const Program& g, ChannelState& s, const std::vector<TaskPtr>& tasks, int64_t step);

/// The input step's writes (a Command's update and go_to, update_state's or a resumed thread's
/// writes of no task), held by `t`: each channel takes its writes together, Sends queue.
/// Returns: whether there was any write.
bool apply_input_writes(const Program& g, ChannelState& s, ExecutableTask& t);

/// Routes one destination of task `t`: a Send is queued on t.sends, a node name becomes a
/// write to its branch channel, END nothing. `what` is the node's result ("Command",
/// "Update"), or null for a router. Throws: InvalidUpdateError naming an unknown node.
void route_to(const Program& g, ExecutableTask& t, Destination& d, const char* what);

/// What a node's result becomes (LangGraph's ChannelWrite of a task): its state writes on
/// t.writes (checked against the schema and the node's output_keys), its go_to routes, edge
/// and join writes on t.control, its Sends on t.sends. A Command for the parent graph is thrown
/// as ParentCommand.
struct ResultOptions {
  bool keep_update = false;  ///< set t.stream_update (the `updates` part)
  bool keep_batch = false;   ///< a typed result may stay one batch (nothing shows its writes)
  bool has_parent = false;   ///< Command::PARENT is allowed
};
void collect_writes(const Program& g, ExecutableTask& t, NodeResult&& r, ResultOptions options);

/// What LangGraph's `updates` part shows of a task's state writes: one object, or, when the task
/// wrote a key more than once (a node returning a list), one single-key object per write, in
/// order. Null when it wrote none.
json updates_of(const Program& g, const std::vector<std::pair<int, Value>>& writes);
/// What LangGraph shows as a task's result (`tasks` and `debug` parts, a snapshot's tasks) from
/// the `updates` form: the object itself, or for the list form one object whose key written
/// more than once holds {"$writes": [value, ...]} (LangGraph.js' mapTaskResultWrites).
json task_result_of(json updates);

}  // namespace superstep::internal
