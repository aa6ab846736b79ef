// Lowering (graph_spec.hpp): a valid builder into the Program the engine runs.
#include <algorithm>
#include <deque>

#include "graph/graph_spec.hpp"
#include "pregel/program.hpp"
#include "superstep/channels/any_value.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/named_barrier_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/messages/add_messages.hpp"

namespace superstep::internal {
namespace {

std::unique_ptr<Channel> make_state_channel(const FieldSpec& f) {
  if (f.reducer) {
    return std::make_unique<BinaryOperatorAggregate>(f.name, *f.reducer, f.default_value);
  }
  switch (f.kind) {
    case ChannelKind::topic: return std::make_unique<Topic>(f.name, false);
    case ChannelKind::topic_accumulate: return std::make_unique<Topic>(f.name, true);
    case ChannelKind::ephemeral: return std::make_unique<EphemeralValue>(f.name, true);
    case ChannelKind::any_value: return std::make_unique<AnyValue>(f.name);
    case ChannelKind::untracked: {
      auto ch = std::make_unique<UntrackedValue>(f.name, true);
      if (f.default_value) {
        json v = *f.default_value;
        ch->update(std::span<json>(&v, 1));
      }
      return ch;
    }
    default: {
      auto ch = std::make_unique<LastValue>(f.name);
      if (f.default_value) ch->set(*f.default_value);
      return ch;
    }
  }
}

std::string join_channel_name(const std::vector<std::string>& from, const std::string& to) {
  std::string name = "join:";
  for (std::size_t i = 0; i < from.size(); ++i) name += (i ? "+" : "") + from[i];
  return name + ":" + to;
}

/// Warns of nodes nothing reaches from START through edges, path maps or ends (a Send or an
/// undeclared Command.go_to can still run them).
void warn_unreachable(Program& program) {
  Program* g = &program;
  const std::string& gname = g->name;
  auto node_id = [&](const std::string& name) { return g->find_node(name); };
  std::vector<char> reached(g->nodes.size(), 0);
  std::deque<int> queue{0};
  reached[0] = 1;
  auto reach = [&](int id) {
    if (id >= 0 && !reached[id]) {
      reached[id] = 1;
      queue.push_back(id);
    }
  };
  while (!queue.empty()) {
    int id = queue.front();
    queue.pop_front();
    const auto& nd = g->nodes[id];
    for (int cid : nd.edge_writes) reach(node_id(g->channels[cid].name.substr(10)));
    for (int cid : nd.join_writes)
      for (int target : g->trigger_to_nodes[cid]) reach(target);
    for (const auto& br : nd.branches) {
      if (br.path_map.empty()) {
        for (std::size_t i = 1; i < g->nodes.size(); ++i) reach(static_cast<int>(i));
      }
      for (const auto& [k, t] : br.path_map.mapping()) reach(node_id(t));
      for (const auto& t : br.path_map.destinations()) reach(node_id(t));
    }
    for (const auto& e : nd.options.ends) reach(node_id(e));
  }
  for (std::size_t i = 1; i < g->nodes.size(); ++i)
    if (!reached[i])
      g->warnings.push_back("graph '" + gname + "': node '" + g->nodes[i].name +
                            "' is not reachable from START through edges, path maps or ends (only a Send or an "
                            "undeclared Command.go_to can run it)");
}

/// Adds a channel with its prototype; returns its id.
int add_channel(Program& program, const StateSchema& schema, std::string name, ChannelRole role,
                std::unique_ptr<Channel> proto) {
  Program* g = &program;
  int id = static_cast<int>(g->channels.size());
  ChannelData cd;
  cd.name = std::move(name);
  cd.role = role;
  std::string_view kind = proto->kind();
  cd.is_volatile = kind == "EphemeralValue" || kind == "AnyValue" ||
                   (kind == "Topic" && role == ChannelRole::state && schema.find(cd.name)->kind == ChannelKind::topic);
  cd.after_finish = kind == "LastValueAfterFinish" || kind == "NamedBarrierValueAfterFinish";
  if (cd.is_volatile) g->volatile_channels.push_back(id);
  if (cd.after_finish) g->after_finish_channels.push_back(id);
  g->channel_index.emplace(cd.name, id);
  g->channels.push_back(std::move(cd));
  g->prototypes.push_back(std::move(proto));
  return id;
}

/// The state keys' channels (a typed graph's fields and their holder), then __start__'s.
void add_state_channels(const GraphSpec& b, Program* g) {
  auto add_channel = [&](std::string name, ChannelRole role, std::unique_ptr<Channel> proto) {
    return superstep::internal::add_channel(*g, b.schema, std::move(name), role, std::move(proto));
  };
  for (const FieldSpec& f : b.schema.fields()) {
    int id = add_channel(f.name, ChannelRole::state, make_state_channel(f));
    g->key_index.insert(f.name, id);
    g->state_keys.push_back(f.name);
    if (!b.typed && f.reducer && f.reducer->name() == reducers::add_messages.name()) g->message_keys.push_back(id);
  }
  g->num_state_keys = static_cast<int>(g->state_keys.size());
  if (b.typed) {
    // The fields' channels and the holder of the struct replace the JSON channels of the keys.
    auto typed = b.typed->make_state_channels();
    for (int i = 0; i < g->num_state_keys; ++i) g->prototypes[i] = std::move(typed[i]);
    g->typed = b.typed;
    g->holder_channel = add_channel("__typed_state__", ChannelRole::state, std::move(typed.back()));
  }
  for (int i = 0; i < g->num_state_keys; ++i) g->keys_by_name.push_back(i);
  std::sort(g->keys_by_name.begin(), g->keys_by_name.end(),
            [&](int a, int c) { return g->state_keys[a] < g->state_keys[c]; });
  auto mask_of = [&](const StateSchema& schema) {
    std::vector<char> mask(g->num_state_keys, 0);
    for (const FieldSpec& f : schema.fields()) mask[g->find_key(f.name)] = 1;
    return mask;
  };
  if (b.input_schema) {
    g->input_schema = b.input_schema;
    g->input_mask = mask_of(*b.input_schema);
  }
  if (b.output_schema) {
    g->output_schema = b.output_schema;
    g->has_output_schema = true;
    g->output_mask = mask_of(*b.output_schema);
    for (int id : g->keys_by_name)
      if (g->output_mask[id]) g->output_keys_by_name.push_back(id);
  }
  g->start_channel = add_channel(START, ChannelRole::start, std::make_unique<EphemeralValue>(START, true));
}

/// __start__ (node 0) and the builder's nodes, each with its branch channel as trigger.
void add_nodes(const GraphSpec& b, const CompileOptions& options, Program* g) {
  auto add_channel = [&](std::string name, ChannelRole role, std::unique_ptr<Channel> proto) {
    return superstep::internal::add_channel(*g, b.schema, std::move(name), role, std::move(proto));
  };
  NodeData start;
  start.name = START;
  start.is_start = true;
  start.triggers = {g->start_channel};
  g->nodes.push_back(std::move(start));
  g->branch_channel.push_back(-1);
  for (const auto& n : b.nodes) {
    NodeData nd;
    nd.name = n.name;
    nd.id = static_cast<int>(g->nodes.size());
    nd.fn = n.fn;
    nd.options = n.options;
    nd.subgraph = n.subgraph;
    if (n.subgraph) g->has_subgraphs = true;
    nd.retry = n.options.retry ? n.options.retry : options.retry_policy;
    std::string ch = "branch:to:" + n.name;
    std::unique_ptr<Channel> proto;
    if (n.options.defer) proto = std::make_unique<LastValueAfterFinish>(ch);
    else proto = std::make_unique<EphemeralValue>(ch, false);
    int cid = add_channel(ch, ChannelRole::branch, std::move(proto));
    nd.triggers.push_back(cid);
    g->branch_channel.push_back(cid);
    if (!n.options.input_keys.empty()) {
      nd.input_mask.assign(g->num_state_keys, 0);
      for (const auto& k : n.options.input_keys) nd.input_mask[g->find_key(k)] = 1;
    } else if (b.num_state_schema_keys >= 0 && b.num_state_schema_keys < g->num_state_keys) {
      // As LangGraph: a node reads the state schema's keys, not the input's or output's own.
      nd.input_mask.assign(g->num_state_keys, 0);
      std::fill_n(nd.input_mask.begin(), b.num_state_schema_keys, 1);
    }
    if (!n.options.output_keys.empty()) {
      nd.output_mask.assign(g->num_state_keys, 0);
      for (const auto& k : n.options.output_keys) nd.output_mask[g->find_key(k)] = 1;
    }
    g->node_index.emplace(nd.name, nd.id);
    g->nodes.push_back(std::move(nd));
  }
  g->node_index.emplace(START, 0);
}

/// Edges as branch-channel writes, joins as barrier channels, routers on their nodes.
void wire_edges(const GraphSpec& b, Program* g) {
  auto add_channel = [&](std::string name, ChannelRole role, std::unique_ptr<Channel> proto) {
    return superstep::internal::add_channel(*g, b.schema, std::move(name), role, std::move(proto));
  };
  auto node_id = [&](const std::string& name) { return g->find_node(name); };
  for (const auto& [from, to] : b.edges) {
    if (to == END) continue;
    g->nodes[node_id(from)].edge_writes.push_back(g->branch_channel[node_id(to)]);
  }
  for (const auto& [from, to] : b.joins) {
    std::string ch = join_channel_name(from, to);
    int target = node_id(to);
    int cid = -1;
    // A join declared twice with the same sources shares one channel.
    for (std::size_t i = 0; i < g->channels.size(); ++i)
      if (g->channels[i].name == ch) cid = static_cast<int>(i);
    if (cid < 0) {
      std::unique_ptr<Channel> proto;
      if (g->nodes[target].options.defer) proto = std::make_unique<NamedBarrierValueAfterFinish>(ch, from);
      else proto = std::make_unique<NamedBarrierValue>(ch, from);
      cid = add_channel(ch, ChannelRole::join, std::move(proto));
      g->nodes[target].triggers.push_back(cid);
      for (const auto& s : from) g->nodes[node_id(s)].join_writes.push_back(cid);
    }
  }
  for (const auto& br : b.branches) g->nodes[node_id(br.from)].branches.push_back({br.router, br.path_map});
}

/// Orders by name (planning and checkpoints are deterministic), triggers' subscribers, and the
/// versions a run starts with.
void index_by_name(Program* g) {
  // Triggers sorted by channel name (LangGraph sorts a task's triggers); ranks by node name.
  std::vector<int> order(g->nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int c) { return g->nodes[a].name < g->nodes[c].name; });
  for (std::size_t r = 0; r < order.size(); ++r) g->nodes[order[r]].rank = static_cast<int>(r);
  g->nodes_by_name = order;
  for (std::size_t i = 0; i < g->channels.size(); ++i) g->channels_by_name.push_back(static_cast<int>(i));
  std::sort(g->channels_by_name.begin(), g->channels_by_name.end(),
            [&](int a, int c) { return g->channels[a].name < g->channels[c].name; });
  g->trigger_to_nodes.assign(g->channels.size(), {});
  for (auto& nd : g->nodes) {
    std::sort(nd.triggers.begin(), nd.triggers.end(),
              [&](int a, int c) { return g->channels[a].name < g->channels[c].name; });
    for (int t : nd.triggers) {
      g->trigger_to_nodes[t].push_back(nd.id);
      g->channels[t].is_trigger = true;
    }
  }
  for (std::size_t i = 0; i < g->channels.size(); ++i)
    if (g->channels[i].is_trigger) g->trigger_channels.push_back(static_cast<int>(i));
  for (auto& list : g->trigger_to_nodes)
    std::sort(list.begin(), list.end(), [&](int a, int c) { return g->nodes[a].rank < g->nodes[c].rank; });
  // A run starts with version 1 on channels that hold a value (defaults), 0 elsewhere.
  g->initial_version.assign(g->prototypes.size(), 0);
  for (std::size_t i = 0; i < g->prototypes.size(); ++i) {
    if (g->prototypes[i]->is_available()) g->initial_version[i] = 1;
    if (g->prototypes[i]->resettable()) g->resettable_channels.push_back(static_cast<int>(i));
  }
}

}  // namespace

std::shared_ptr<Program> lower(const GraphSpec& b, const CompileOptions& options) {
  auto g = std::make_shared<Program>();
  g->name = options.name;
  g->schema = b.schema;
  g->executor = options.executor ? options.executor : ThreadPool::shared();
  g->interrupt_before = options.interrupt_before;
  g->interrupt_after = options.interrupt_after;
  g->checkpointer = options.checkpointer;
  g->limits = options.limits;
  g->store = options.store;
  g->cache = options.cache;
  add_state_channels(b, g.get());
  add_nodes(b, options, g.get());
  wire_edges(b, g.get());
  index_by_name(g.get());
  warn_unreachable(*g);
  return g;
}

}  // namespace superstep::internal
