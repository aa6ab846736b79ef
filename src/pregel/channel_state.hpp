// ChannelState: the channels of one run and their bookkeeping, as LangGraph keeps them in the
// checkpoint (channel values, channel_versions, versions_seen) plus the Sends waiting for the
// next step. Planning (prepare_next_tasks) reads it; the barrier (apply_writes) changes it; both
// are pure functions of a Program and a ChannelState (pregel/algo.hpp). A finished run gives its
// ChannelState back to the Program's ChannelPool, so the next run allocates nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

struct ExecutableTask;

struct ChannelState {
  std::vector<std::unique_ptr<Channel>> owned;
  std::vector<Channel*> channels;              // by channel id
  std::vector<uint64_t> versions;              // by channel id: the version of its last update
  uint64_t max_version = 0;
  /// Versions this run hands out are above this (a run writing from a past checkpoint continues
  /// after the newest checkpoint of its thread).
  uint64_t version_floor = 0;
  std::vector<std::vector<uint64_t>> seen;     // node id -> version seen, per trigger
  std::vector<int> updated;                    // trigger and volatile channels the last step updated
  std::vector<int> live_volatile;              // volatile channels holding a value
  std::vector<Send> pending_sends;             // the next step's PUSH tasks, in Send order

  /// A new version for this step's writes.
  uint64_t next_version() { return max_version = std::max(max_version, version_floor) + 1; }

  // Scratch, kept for its capacity (one run uses it from one thread at a time).
  std::vector<uint32_t> chan_mark;             // per channel, epoch of its last mark
  std::vector<uint32_t> node_mark;             // per node, epoch of its last mark
  uint32_t epoch = 0;
  std::vector<std::vector<Value>> buckets;     // writes grouped per channel
  std::vector<int> touched;                    // channels with a bucket
  std::vector<TypedBatch*> batches;            // typed batches folded together
  std::vector<uint32_t> dup_mark;              // per channel, for distinct-key checks
  uint32_t dup_epoch = 0;
  std::vector<int> candidates;                 // prepare_next_tasks' PULL nodes
  std::vector<ExecutableTask*> order;          // the step's tasks in path order
};

}  // namespace superstep::internal
