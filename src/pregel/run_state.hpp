// RunState: what the three parts of a run share (docs/semantics.md, "The loop"). The loop
// (PregelLoop, loop.hpp) owns it and drives the steps; the runner (PregelRunner, runner.hpp)
// runs a step's tasks; persistence (Persistence, persistence.hpp) saves and restores it. Each
// reaches it through a reference, so what one part may touch is what this struct shows.
//
// Threads: the consumer's thread plans, applies writes and saves; tasks run on pool workers (and
// on the consumer's thread) and, during a step, only read the channels and write their own
// buffers and the outbox.
#pragma once

#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pregel/channel_state.hpp"
#include "pregel/executable_task.hpp"
#include "pregel/outbox.hpp"
#include "pregel/program.hpp"
#include "pregel/subgraph.hpp"
#include "superstep/config.hpp"
#include "superstep/stream.hpp"

namespace superstep::internal {

class PregelLoop;
struct ResultOptions;

struct RunState {
  RunState(std::shared_ptr<const Program> graph, RunConfig cfg, const ParentLink* link)
      : g(std::move(graph)), config(std::move(cfg)), parent(link) {}

  std::shared_ptr<const Program> g;
  RunConfig config;
  const ParentLink* parent = nullptr;  // set for a subgraph's run
  bool checkpointed = false;           // the run has a Persistence
  ChannelState cs;                     // channels, versions, versions seen, pending Sends
  int64_t step = 0;
  int64_t stop = 0;                    // the step past which the recursion limit stops the run
  WriteList typed_input;               // a typed run's input, taken by its __start__ task
  std::vector<TaskPtr> tasks;          // the step's tasks, in plan order
  std::vector<TaskPtr> spare_tasks;    // finished tasks, reused by later steps and runs
  Outbox out;                          // parts from any thread; the step's end
  std::deque<StreamPart> ready;        // parts to yield (the consumer's thread only)
  /// Queues a part the loop makes itself (the consumer's thread); a subgraph's run forwards it
  /// at once instead, keeping its order with what its tasks forward.
  void yield(StreamPart part) {
    if (out.forwards()) out.emit_part(std::move(part));
    else ready.push_back(std::move(part));
  }

  bool wants(StreamMode m) const noexcept { return out.wants(m); }
  /// This run's limits: RunConfig::limits, else the graph's CompileOptions::limits.
  const Limits& limits() const noexcept { return config.limits ? *config.limits : g->limits; }
  /// A state channel of a JSON graph (every state channel of a JSON schema is a JsonChannel).
  const JsonChannel* json_channel(int id) const noexcept { return static_cast<const JsonChannel*>(cs.channels[id]); }
  /// The checkpointer: the graph's own, else (a subgraph) the parent's; may be null.
  std::shared_ptr<CheckpointSaver> saver() const noexcept {
    return g->checkpointer ? g->checkpointer : parent ? parent->saver : nullptr;
  }
  /// The long-term store: the graph's own, else (a subgraph) the parent's; may be null.
  BaseStore* store() const noexcept { return g->store ? g->store.get() : parent ? parent->store : nullptr; }

  /// The id of the checkpoint the step's tasks belong to (made on first use when not saving).
  const std::string& checkpoint_id() const;
  void set_checkpoint_id(std::string id);
  /// Forgets the id, so that the next use makes one (a run without a checkpointer, per step).
  void clear_checkpoint_id();

  /// LangGraph's prepare_next_tasks: the step's PUSH tasks (pending Sends) then PULL tasks
  /// (triggered_nodes), as ExecutableTasks of `run` with their input and Runtime, into `tasks`.
  void prepare_next_tasks(PregelLoop* run);
  /// Moves the step's tasks to spare_tasks.
  void recycle_tasks();
  /// Whether a task of the step wrote to a state key (LangGraph streams `values` only then).
  bool step_wrote_state() const;
  /// With an output schema: whether a task of the step wrote to an output key.
  bool step_wrote_output() const;
  /// With an output schema, LangGraph's invoke returns its keys as of the last `values` chunk
  /// of the output: set once this run applied a write to an output key, or started by resuming
  /// or from a Command's writes; invoke returns null (nothing) while it is not set.
  bool output_shown = false;
  /// Notes a step about to be applied for output_shown.
  void note_output_step() {
    if (g->has_output_schema && !output_shown) output_shown = step_wrote_output();
  }
  /// Whether `values` parts show the output's keys (a subgraph's run, whose output its parent
  /// reads, as LangGraph) instead of every channel.
  bool values_show_output() const noexcept { return parent && g->has_output_schema; }
  /// What a `values` part of this run holds, and whether the step makes one.
  json values_json() const { return values_show_output() ? output_json() : state_json(); }
  bool step_shows_values() const { return values_show_output() ? step_wrote_output() : step_wrote_state(); }
  /// What collect_writes keeps of a node's result in this run.
  ResultOptions result_options() const;
  /// The namespace of task `t`'s subgraph checkpoints.
  std::string task_ns(const ExecutableTask& t) const;

  /// The current state (every key with a value).
  json state_json() const;
  /// The output schema's keys with a value (every key without an output schema).
  json output_json() const;
  /// The final state, moved out of the channels (the run is over).
  json take_state();

 private:
  mutable std::mutex checkpoint_id_mutex_;  // guards checkpoint_id_ (tasks read it for their ids)
  mutable std::string checkpoint_id_;
};

}  // namespace superstep::internal
