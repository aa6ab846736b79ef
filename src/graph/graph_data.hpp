// GraphData: the immutable result of StateGraph::compile(), shared by every run of a
// CompiledStateGraph. Channels and nodes are addressed by dense integer ids so the loop never
// looks names up on the hot path.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/checkpoint/saver.hpp"
#include "superstep/executor.hpp"
#include "superstep/store/base_store.hpp"
#include "superstep/graph/drawable_graph.hpp"
#include "superstep/graph/node.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/graph/typed_model.hpp"
#include "internal/key_index.hpp"
#include "superstep/schema.hpp"

namespace superstep::internal {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, int, StringHash, std::equal_to<>>;

struct BranchData {
  RouterFn router;
  PathMap path_map;
};

enum class ChannelRole { state, start, branch, join };

struct ChannelData {
  std::string name;
  ChannelRole role = ChannelRole::state;
  bool is_trigger = false;       // some node is triggered by it
  bool is_volatile = false;      // clears on a step that does not write it
  bool after_finish = false;     // has finish() semantics
};

struct GraphData;

struct NodeData {
  std::string name;
  int id = 0;
  int rank = 0;                          // position in name order (deterministic planning)
  bool is_start = false;                 // the virtual __start__ node
  NodeFn fn;
  NodeOptions options;
  std::optional<RetryPolicy> retry;      // resolved: node's own, else the graph default
  std::vector<int> triggers;             // channel ids, sorted by channel name
  std::vector<int> edge_writes;          // branch:to:<x> channels written after a run
  std::vector<int> join_writes;          // join channels this node writes its name to
  std::vector<BranchData> branches;      // conditional edges, in the order added
  std::vector<char> input_mask;          // per state key; empty = sees all keys
  std::vector<char> output_mask;         // per state key; empty = may write all keys
  std::shared_ptr<const GraphData> subgraph;  // set when the node is a compiled graph
};

struct ExecutableTask;
/// Deletes a task (defined beside ExecutableTask, in the pregel layer).
struct TaskDeleter {
  void operator()(ExecutableTask* t) const noexcept;
};
using TaskPtr = std::unique_ptr<ExecutableTask, TaskDeleter>;

/// Spare channel sets of finished runs, reset to the prototypes, so a run does not allocate
/// its channels anew. Thread-safe.
class ChannelPool {
 public:
  /// A run's channels and its per-channel bookkeeping (kept with them so a reused set allocates
  /// nothing).
  struct Set {
    std::vector<std::unique_ptr<Channel>> channels;
    std::vector<Channel*> ch;
    std::vector<uint64_t> version;
    std::vector<uint32_t> chan_mark;
    std::vector<uint32_t> node_mark;
    std::vector<std::vector<Value>> buckets;
    std::vector<std::vector<uint64_t>> seen;
    // The run's scratch, kept for its capacity.
    std::vector<TaskPtr> spare_tasks;
    std::vector<int> updated, live_volatile, candidates, touched;
    std::vector<ExecutableTask*> order;
  };
  /// A set equal to the prototypes: a spare one, or fresh clones.
  Set acquire(const struct GraphData& graph);
  /// Resets `set` to the prototypes (freeing its values) and keeps it for a later run.
  void release(Set set, const struct GraphData& graph);

 private:
  static constexpr std::size_t kMaxSpare = 8;
  std::mutex mutex_;  // guards spare_
  std::vector<Set> spare_;
};

struct GraphData {
  std::string name;
  StateSchema schema;
  int num_state_keys = 0;
  int start_channel = -1;
  std::vector<ChannelData> channels;                 // state keys first, in schema order
  std::vector<std::unique_ptr<Channel>> prototypes;  // cloned into each run
  std::vector<uint64_t> initial_version;              // per channel: 1 if the prototype holds a value
  std::vector<int> resettable_channels;               // channels whose reset_to() does something
  std::unique_ptr<ChannelPool> channel_pool = std::make_unique<ChannelPool>();
  std::shared_ptr<const TypedModel> typed;           // set for typed state (TypedStateGraph)
  int holder_channel = -1;                           // typed: the channel owning the struct
  KeyIndex key_index;                                // state key -> channel id
  std::vector<int> keys_by_name;                     // state key ids in name order (JSON object order)
  std::vector<int> channels_by_name;                 // every channel id in name order (checkpoints)
  std::vector<int> nodes_by_name;                    // node ids in name order
  std::vector<std::string> state_keys;               // for error messages
  std::vector<int> message_keys;                     // JSON state keys under add_messages
  std::vector<NodeData> nodes;                       // node 0 is __start__
  NameIndex node_index;
  NameIndex channel_index;                           // every channel by name (checkpoints)
  std::shared_ptr<CheckpointSaver> checkpointer;
  bool has_subgraphs = false;                        // some node is a compiled graph
  std::vector<int> branch_channel;                   // node id -> its branch:to channel
  std::vector<std::vector<int>> trigger_to_nodes;    // channel id -> node ids in name order
  std::vector<int> volatile_channels;
  std::vector<int> after_finish_channels;
  std::vector<std::string> interrupt_before;
  std::vector<std::string> interrupt_after;
  std::shared_ptr<ThreadPool> executor;
  std::shared_ptr<BaseStore> store;  // CompileOptions::store; may be null
  std::vector<std::string> warnings;
  DrawableGraph drawable;

  int find_key(std::string_view key) const noexcept { return key_index.find(key); }
  int find_channel(std::string_view name) const {
    auto it = channel_index.find(name);
    return it == channel_index.end() ? -1 : it->second;
  }
  int find_node(std::string_view name) const {
    auto it = node_index.find(name);
    return it == node_index.end() ? -1 : it->second;
  }
  /// "a, b, c" (the state keys, for messages).
  std::string key_list() const;
  std::string node_list() const;
};

}  // namespace superstep::internal
