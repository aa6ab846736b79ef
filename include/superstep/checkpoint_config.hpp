// CheckpointConfig: the address of a checkpoint (thread, namespace, checkpoint id), LangGraph's
// `{"configurable": {...}}`. Its own header so that what only names a checkpoint (a snapshot,
// a run's config) need not include the checkpoint data.
#pragma once

#include <optional>
#include <string>

#include "superstep/json.hpp"

namespace superstep {

/// Where a checkpoint lives: thread, namespace ("" = the root graph; subgraphs use
/// "parent_node:<task_id>") and, when it names one checkpoint, its id.
struct CheckpointConfig {
  std::string thread_id;
  std::string checkpoint_ns;
  std::optional<std::string> checkpoint_id;
  /// put_writes(): the run storing the writes. The built-in savers keep it with each write, so
  /// delete_run_checkpoints() also removes what a rolled-back run wrote on an earlier run's
  /// checkpoint (a resume value, its tasks' writes). Not part of the address (to_json).
  std::string run_id;

  /// `{"configurable": {thread_id, checkpoint_ns, checkpoint_id?}}`, LangGraph's config shape.
  json to_json() const;
  /// Reads that shape. Throws: CheckpointError when `configurable` or `thread_id` is missing.
  static CheckpointConfig from_json(const json& config);
};

}  // namespace superstep
