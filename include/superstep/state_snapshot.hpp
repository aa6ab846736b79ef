// StateSnapshot: what get_state() and get_state_history() return for one checkpoint of a thread
// (LangGraph's StateSnapshot): the state, the nodes that run next, and the tasks of the step
// that starts there, with their interrupts, errors and saved results. Plain values.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint_config.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/json.hpp"

namespace superstep {

struct StateSnapshot;

/// A task of a snapshot's next step (LangGraph's PregelTask).
struct PregelTask {
  std::string id;
  std::string name;
  json path;                          ///< ["__pregel_pull", name] or ["__pregel_push", index]
  std::optional<std::string> error;   ///< what it threw when the step failed
  std::vector<Interrupt> interrupts;  ///< its pending interrupts
  json result;                        ///< its saved update when it already finished, else null
  /// A subgraph task: where the subgraph's checkpoints live (thread and namespace), and, from
  /// get_state(config, /*subgraphs=*/true), the subgraph's own snapshot.
  std::optional<CheckpointConfig> state_config;
  std::shared_ptr<const StateSnapshot> state;
  json to_json() const;
};

struct StateSnapshot {
  json values = json::object();          ///< the state (plus saved writes of finished tasks)
  std::vector<std::string> next;         ///< nodes that run when the thread is resumed
  CheckpointConfig config;               ///< this checkpoint
  json metadata = json::object();        ///< {source, step, parents, thread_id, run_id}
  std::string created_at;                ///< the checkpoint's ts
  std::optional<CheckpointConfig> parent_config;
  std::vector<PregelTask> tasks;
  std::vector<Interrupt> interrupts;     ///< every task's pending interrupts
  json to_json() const;
};

}  // namespace superstep
