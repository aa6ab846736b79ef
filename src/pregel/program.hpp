// Program: what StateGraph::compile() lowers a graph into (LangGraph's compiled Pregel: nodes,
// their triggers, channels, branches), immutable and shared by every run of a
// CompiledStateGraph. Channels and nodes are addressed by dense integer ids so the loop never
// looks names up on the hot path. The engine (src/pregel) sees a graph only as a Program: it
// includes nothing of the builder (src/graph, state_graph.hpp, compiled_state_graph.hpp).
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
#include "superstep/drawable_graph.hpp"
#include "superstep/node.hpp"
#include "superstep/channels/typed_model.hpp"
#include "superstep/limits.hpp"
#include "internal/key_index.hpp"
#include "pregel/channel_state.hpp"
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

struct Program;

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
  std::shared_ptr<const Program> subgraph;  // set when the node is a compiled graph
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
  /// A run's channels with their bookkeeping, and its spare tasks (kept with them so a reused
  /// set allocates nothing).
  struct Set {
    ChannelState state;
    std::vector<TaskPtr> spare_tasks;
  };
  /// A set equal to the prototypes: a spare one, or fresh clones.
  Set acquire(const struct Program& graph);
  /// Resets `set` to the prototypes (freeing its values) and keeps it for a later run.
  void release(Set set, const struct Program& graph);

 private:
  static constexpr std::size_t kMaxSpare = 8;
  std::mutex mutex_;  // guards spare_
  std::vector<Set> spare_;
};

struct Program {
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
  // Input and output schemas (StateGraphOptions); without them every key is both.
  std::optional<StateSchema> input_schema, output_schema;  // as declared (JSON Schemas of the graph)
  std::vector<char> input_mask;      // per state key: an input may set it; empty = every key
  bool has_output_schema = false;
  std::vector<char> output_mask;     // per state key: in the output; set with has_output_schema
  std::vector<int> output_keys_by_name;  // the output's key ids in name order
  std::vector<NodeData> nodes;                       // node 0 is __start__
  NameIndex node_index;
  NameIndex channel_index;                           // every channel by name (checkpoints)
  std::shared_ptr<CheckpointSaver> checkpointer;
  Limits limits;                                     // CompileOptions::limits
  bool has_subgraphs = false;                        // some node is a compiled graph
  std::vector<int> branch_channel;                   // node id -> its branch:to channel
  std::vector<std::vector<int>> trigger_to_nodes;    // channel id -> node ids in name order
  std::vector<int> volatile_channels;
  std::vector<int> trigger_channels;                 // channels some node is triggered by, by id
  std::vector<int> after_finish_channels;
  std::vector<std::string> interrupt_before;
  std::vector<std::string> interrupt_after;
  std::shared_ptr<ThreadPool> executor;
  std::shared_ptr<BaseStore> store;  // CompileOptions::store; may be null
  std::shared_ptr<BaseCache> cache;  // CompileOptions::cache; may be null
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
  /// The id of node `target` (0 for END). Throws: InvalidUpdateError "<who()> unknown node ..."
  /// naming the graph's nodes (a router's, a Command's or an Update's destination, a Send).
  template <class Who>
  int node_of(const std::string& target, const Who& who) const {
    if (target == END) return 0;
    int id = find_node(target);
    if (id <= 0) unknown_node(target, who());
    return id;
  }
  /// The channel id of state key `key`. Throws: InvalidUpdateError "<who()> unknown key ..."
  /// naming the schema's keys (an input, a node's update, Command.update, update_state).
  template <class Who>
  int key_of(std::string_view key, const Who& who) const {
    int id = find_key(key);
    if (id < 0) unknown_key(key, who());
    return id;
  }
  [[noreturn]] void unknown_node(const std::string& target, const std::string& who) const;
  [[noreturn]] void unknown_key(std::string_view key, const std::string& who) const;
};

/// Where node `node`'s cached writes live in the graph's cache (LangGraph's
/// ["__pregel_ns_writes", graph, node]).
inline std::string node_cache_ns(const Program& g, const NodeData& node) {
  return "__pregel_ns_writes|" + g.name + "|" + node.name;
}

}  // namespace superstep::internal
