#include "superstep/graph/state_graph.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <tuple>

#include "pregel/program.hpp"
#include "pregel/subgraph.hpp"
#include "superstep/channels/any_value.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/named_barrier_value.hpp"
#include "superstep/channels/topic.hpp"

namespace superstep {

struct StateGraph::Impl {
  struct PendingNode {
    std::string name;
    NodeFn fn;
    NodeOptions options;
    std::shared_ptr<const internal::Program> subgraph;
  };
  struct PendingBranch {
    std::string from;
    RouterFn router;
    PathMap path_map;
  };
  StateSchema schema;
  std::vector<PendingNode> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<std::pair<std::vector<std::string>, std::string>> joins;
  std::vector<PendingBranch> branches;
  std::shared_ptr<const internal::TypedModel> typed;
};

StateGraph::StateGraph(StateSchema schema) : impl_(std::make_unique<Impl>()) { impl_->schema = std::move(schema); }
StateGraph::~StateGraph() = default;
StateGraph::StateGraph(StateGraph&&) noexcept = default;
StateGraph& StateGraph::operator=(StateGraph&&) noexcept = default;

StateGraph& StateGraph::add_node(std::string name, NodeFn fn, NodeOptions options) {
  impl_->nodes.push_back({std::move(name), std::move(fn), std::move(options), nullptr});
  return *this;
}

StateGraph& StateGraph::add_node(std::string name, const CompiledStateGraph& subgraph, NodeOptions options) {
  impl_->nodes.push_back({std::move(name), internal::subgraph_node(subgraph.data_), std::move(options), subgraph.data_});
  return *this;
}

StateGraph& StateGraph::add_single_edge(std::string from, std::string to) {
  impl_->edges.emplace_back(std::move(from), std::move(to));
  return *this;
}

StateGraph& StateGraph::add_edge(std::vector<std::string> from, std::string to) {
  if (from.size() == 1) return add_single_edge(std::move(from.front()), std::move(to));
  impl_->joins.emplace_back(std::move(from), std::move(to));
  return *this;
}

StateGraph& StateGraph::add_conditional_edges(std::string from, RouterFn router, PathMap path_map) {
  impl_->branches.push_back({std::move(from), std::move(router), std::move(path_map)});
  return *this;
}

StateGraph& StateGraph::add_sequence(std::vector<std::pair<std::string, NodeFn>> nodes) {
  if (nodes.empty()) {
    // Reported by compile(): an edge from "" names the problem.
    impl_->edges.emplace_back("", "");
    return *this;
  }
  std::string previous;
  for (auto& [name, fn] : nodes) {
    add_node(name, std::move(fn));
    if (!previous.empty()) add_edge(previous, name);
    previous = name;
  }
  return *this;
}

StateGraph& StateGraph::use_typed_state(std::shared_ptr<const internal::TypedModel> model) {
  impl_->typed = std::move(model);
  return *this;
}

StateGraph& StateGraph::set_entry_point(std::string node) { return add_edge(START, std::move(node)); }
StateGraph& StateGraph::set_conditional_entry_point(RouterFn router, PathMap path_map) {
  return add_conditional_edges(START, std::move(router), std::move(path_map));
}
StateGraph& StateGraph::set_finish_point(std::string node) { return add_edge(std::move(node), END); }

namespace {

bool reserved_node_name(const std::string& name) {
  return name == START || name == END || name.find('|') != std::string::npos || name.find(':') != std::string::npos;
}

bool reserved_key_name(const std::string& key) {
  return key == START || key == END || key.rfind("__pregel", 0) == 0 || key.rfind("branch:", 0) == 0 ||
         key.rfind("join:", 0) == 0 || key == "__interrupt__";
}

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

}  // namespace

CompiledStateGraph StateGraph::compile(CompileOptions options) const {
  const Impl& b = *impl_;
  std::vector<std::string> problems;
  const std::string& gname = options.name;

  // --- schema ---
  std::set<std::string> keys;
  for (const FieldSpec& f : b.schema.fields()) {
    if (f.name.empty()) problems.push_back("state key with an empty name");
    else if (reserved_key_name(f.name)) problems.push_back("state key '" + f.name + "' is a reserved name");
    else if (!keys.insert(f.name).second) problems.push_back("state key '" + f.name + "' is declared twice");
    if (f.reducer && f.kind != ChannelKind::automatic)
      problems.push_back("state key '" + f.name + "' has both a reducer and an explicit channel kind");
  }

  // --- nodes ---
  std::set<std::string> node_names;
  for (const auto& n : b.nodes) {
    if (n.name.empty()) {
      problems.push_back("node with an empty name");
      continue;
    }
    if (reserved_node_name(n.name)) {
      problems.push_back("node '" + n.name + "': name is reserved (START/END, or contains '|' or ':')");
      continue;
    }
    if (!node_names.insert(n.name).second) problems.push_back("node '" + n.name + "' is added twice");
    if (!n.fn) problems.push_back("node '" + n.name + "' has no function");
    if (n.subgraph && (b.typed || n.subgraph->typed))
      problems.push_back("node '" + n.name + "': subgraph '" + n.subgraph->name +
                         "' cannot be used here: subgraphs need JSON state in both graphs (typed state is not supported yet)");
    for (const auto& k : n.options.input_keys)
      if (!keys.count(k)) problems.push_back("node '" + n.name + "': input key '" + k + "' is not a state key");
    for (const auto& k : n.options.output_keys)
      if (!keys.count(k)) problems.push_back("node '" + n.name + "': output key '" + k + "' is not a state key");
    if (b.typed && (!n.options.input_keys.empty() || !n.options.output_keys.empty()))
      problems.push_back("node '" + n.name + "': input_keys/output_keys are for JSON state; a typed node sees the whole struct");
    for (const auto& e : n.options.ends)
      if (e != END && !std::any_of(b.nodes.begin(), b.nodes.end(), [&](const auto& m) { return m.name == e; }))
        problems.push_back("node '" + n.name + "': destination '" + e + "' in ends is not a node");
  }
  auto is_node = [&](const std::string& n) { return node_names.count(n) > 0; };

  // --- edges ---
  bool has_entry = false;
  for (const auto& [from, to] : b.edges) {
    if (from.empty() && to.empty()) {
      problems.push_back("add_sequence was given no nodes");
      continue;
    }
    std::string edge = "edge '" + from + "' -> '" + to + "'";
    if (from == END) problems.push_back(edge + ": END cannot be the source of an edge");
    else if (from != START && !is_node(from)) problems.push_back(edge + ": source '" + from + "' is not a node");
    if (to == START) problems.push_back(edge + ": START cannot be the target of an edge");
    else if (to != END && !is_node(to)) problems.push_back(edge + ": target '" + to + "' is not a node");
    if (from == START) has_entry = true;
  }
  for (const auto& [from, to] : b.joins) {
    std::string edge = "join edge [";
    for (std::size_t i = 0; i < from.size(); ++i) edge += (i ? ", " : "") + from[i];
    edge += "] -> '" + to + "'";
    if (from.empty()) problems.push_back(edge + ": no source nodes");
    std::set<std::string> seen;
    for (const auto& s : from) {
      if (s == START || s == END) problems.push_back(edge + ": '" + s + "' cannot be a join source");
      else if (!is_node(s)) problems.push_back(edge + ": source '" + s + "' is not a node");
      if (!seen.insert(s).second) problems.push_back(edge + ": source '" + s + "' is listed twice");
    }
    if (to == END) problems.push_back(edge + ": a join cannot target END; join into a node");
    else if (to == START) problems.push_back(edge + ": START cannot be the target of an edge");
    else if (!is_node(to)) problems.push_back(edge + ": target '" + to + "' is not a node");
  }
  for (const auto& br : b.branches) {
    std::string what = "conditional edge from '" + br.from + "'";
    if (br.from == END) problems.push_back(what + ": END cannot be the source of an edge");
    else if (br.from != START && !is_node(br.from)) problems.push_back(what + ": source '" + br.from + "' is not a node");
    if (!br.router) problems.push_back(what + ": router is empty");
    for (const auto& [key, target] : br.path_map.mapping())
      if (target != END && !is_node(target))
        problems.push_back(what + ": path map entry '" + key + "' -> '" + target + "' targets an unknown node");
    for (const auto& target : br.path_map.destinations())
      if (target != END && !is_node(target))
        problems.push_back(what + ": destination '" + target + "' is not a node");
    if (br.from == START) has_entry = true;
  }
  if (!has_entry)
    problems.push_back("graph has no entry point: add an edge from START (add_edge(START, node), set_entry_point or "
                       "add_conditional_edges(START, ...))");
  for (const auto* list : {&options.interrupt_before, &options.interrupt_after})
    for (const auto& n : *list)
      if (n != "*" && !is_node(n))
        problems.push_back(std::string(list == &options.interrupt_before ? "interrupt_before" : "interrupt_after") +
                           ": '" + n + "' is not a node");

  if (!problems.empty()) {
    for (auto& p : problems) p = "graph '" + gname + "': " + p;
    throw GraphValidationError(std::move(problems));
  }

  // --- build ---
  auto g = std::make_shared<internal::Program>();
  g->name = gname;
  g->schema = b.schema;
  g->executor = options.executor ? options.executor : ThreadPool::shared();
  g->interrupt_before = options.interrupt_before;
  g->interrupt_after = options.interrupt_after;
  g->checkpointer = options.checkpointer;
  g->store = options.store;

  auto add_channel = [&](std::string name, internal::ChannelRole role, std::unique_ptr<Channel> proto) {
    int id = static_cast<int>(g->channels.size());
    internal::ChannelData cd;
    cd.name = std::move(name);
    cd.role = role;
    std::string_view kind = proto->kind();
    cd.is_volatile = kind == "EphemeralValue" || kind == "AnyValue" ||
                     (kind == "Topic" && role == internal::ChannelRole::state &&
                      b.schema.find(cd.name)->kind == ChannelKind::topic);
    cd.after_finish = kind == "LastValueAfterFinish" || kind == "NamedBarrierValueAfterFinish";
    if (cd.is_volatile) g->volatile_channels.push_back(id);
    if (cd.after_finish) g->after_finish_channels.push_back(id);
    g->channel_index.emplace(cd.name, id);
    g->channels.push_back(std::move(cd));
    g->prototypes.push_back(std::move(proto));
    return id;
  };

  for (const FieldSpec& f : b.schema.fields()) {
    int id = add_channel(f.name, internal::ChannelRole::state, make_state_channel(f));
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
    g->holder_channel = add_channel("__typed_state__", internal::ChannelRole::state, std::move(typed.back()));
  }
  for (int i = 0; i < g->num_state_keys; ++i) g->keys_by_name.push_back(i);
  std::sort(g->keys_by_name.begin(), g->keys_by_name.end(),
            [&](int a, int c) { return g->state_keys[a] < g->state_keys[c]; });
  g->start_channel = add_channel(START, internal::ChannelRole::start, std::make_unique<EphemeralValue>(START, true));

  // Nodes: 0 is __start__.
  internal::NodeData start;
  start.name = START;
  start.is_start = true;
  start.triggers = {g->start_channel};
  g->nodes.push_back(std::move(start));
  g->branch_channel.push_back(-1);
  for (const auto& n : b.nodes) {
    internal::NodeData nd;
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
    int cid = add_channel(ch, internal::ChannelRole::branch, std::move(proto));
    nd.triggers.push_back(cid);
    g->branch_channel.push_back(cid);
    if (!n.options.input_keys.empty()) {
      nd.input_mask.assign(g->num_state_keys, 0);
      for (const auto& k : n.options.input_keys) nd.input_mask[g->find_key(k)] = 1;
    }
    if (!n.options.output_keys.empty()) {
      nd.output_mask.assign(g->num_state_keys, 0);
      for (const auto& k : n.options.output_keys) nd.output_mask[g->find_key(k)] = 1;
    }
    g->node_index.emplace(nd.name, nd.id);
    g->nodes.push_back(std::move(nd));
  }
  g->node_index.emplace(START, 0);

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
      cid = add_channel(ch, internal::ChannelRole::join, std::move(proto));
      g->nodes[target].triggers.push_back(cid);
      for (const auto& s : from) g->nodes[node_id(s)].join_writes.push_back(cid);
    }
  }
  for (const auto& br : b.branches) g->nodes[node_id(br.from)].branches.push_back({br.router, br.path_map});

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
  for (auto& list : g->trigger_to_nodes)
    std::sort(list.begin(), list.end(), [&](int a, int c) { return g->nodes[a].rank < g->nodes[c].rank; });
  // A run starts with version 1 on channels that hold a value (defaults), 0 elsewhere.
  g->initial_version.assign(g->prototypes.size(), 0);
  for (std::size_t i = 0; i < g->prototypes.size(); ++i) {
    if (g->prototypes[i]->is_available()) g->initial_version[i] = 1;
    if (g->prototypes[i]->resettable()) g->resettable_channels.push_back(static_cast<int>(i));
  }

  // --- reachability (a warning: Sends and Command.go_to without `ends` can reach any node) ---
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

  // --- drawable ---
  DrawableGraph& d = g->drawable;
  d.nodes.push_back({START, json::object()});
  for (std::size_t i = 1; i < g->nodes.size(); ++i) d.nodes.push_back({g->nodes[i].name, g->nodes[i].options.metadata});
  bool end_used = false;
  auto edge = [&](const std::string& s, const std::string& t, bool cond, std::string label = {}) {
    if (t == END) end_used = true;
    d.edges.push_back({s, t, cond, std::move(label)});
  };
  for (const auto& [from, to] : b.edges) edge(from, to, false);
  for (const auto& [from, to] : b.joins)
    for (const auto& s : from) edge(s, to, false);
  for (const auto& br : b.branches) {
    if (!br.path_map.mapping().empty()) {
      for (const auto& [k, t] : br.path_map.mapping()) edge(br.from, t, true, k == t ? "" : k);
    } else if (!br.path_map.destinations().empty()) {
      for (const auto& t : br.path_map.destinations()) edge(br.from, t, true);
    } else {
      for (std::size_t i = 1; i < g->nodes.size(); ++i)
        if (g->nodes[i].name != br.from) edge(br.from, g->nodes[i].name, true);
      edge(br.from, END, true);
    }
  }
  for (const auto& n : b.nodes)
    for (const auto& e : n.options.ends) edge(n.name, e, true);
  if (end_used) d.nodes.push_back({END, json::object()});

  return CompiledStateGraph(std::move(g));
}

}  // namespace superstep
