// compile()'s checks (graph_spec.hpp): the schema, nodes, edges, joins, branches and interrupt
// lists, every problem at once.
#include <algorithm>
#include <set>

#include "graph/graph_spec.hpp"
#include "pregel/program.hpp"

namespace superstep::internal {
namespace {

bool reserved_node_name(const std::string& name) {
  return name == START || name == END || name == "__interrupt__" || name.find('|') != std::string::npos ||
         name.find(':') != std::string::npos;
}

bool reserved_key_name(const std::string& key) {
  return key == START || key == END || key.rfind("__pregel", 0) == 0 || key.rfind("branch:", 0) == 0 ||
         key.rfind("join:", 0) == 0 || key == "__interrupt__";
}

/// A field that says nothing of its own: it takes the declaration of the same key before it.
bool plain_field(const FieldSpec& f) {
  return !f.reducer && !f.default_value && f.kind == ChannelKind::automatic;
}

std::string describe_field(const FieldSpec& f) {
  std::string d = f.reducer ? "reducer '" + f.reducer->name() + "'" : std::string("no reducer");
  if (f.kind != ChannelKind::automatic) d += ", an explicit channel kind";
  if (f.default_value) d += ", default " + f.default_value->dump();
  return d;
}

}  // namespace

StateSchema merge_schemas(const GraphSpec& b, std::vector<std::string>& problems) {
  // As LangGraph.js' _addSchema: state, then input, then output; a later declaration of a key
  // must be the same channel, or a plain field (LastValue), which keeps the earlier one.
  // Reducers are C++ functions: two count as the same when their names are.
  StateSchema out = b.schema;
  std::vector<std::string> origin(out.fields().size(), "state");
  auto add = [&](const std::optional<StateSchema>& schema, const char* which) {
    if (!schema) return;
    for (const FieldSpec& f : schema->fields()) {
      const auto& fields = out.fields();
      auto it = std::find_if(fields.begin(), fields.end(), [&](const FieldSpec& g) { return g.name == f.name; });
      if (it == fields.end()) {
        out.field(f);
        origin.push_back(which);
        continue;
      }
      if (plain_field(f)) continue;
      const bool same = (it->reducer.has_value() == f.reducer.has_value()) &&
                        (!f.reducer || it->reducer->name() == f.reducer->name()) && it->kind == f.kind &&
                        it->default_value == f.default_value;
      if (!same)
        problems.push_back(std::string(which) + " schema key '" + f.name + "' (" + describe_field(f) +
                           ") is declared differently in the " + origin[it - fields.begin()] + " schema (" +
                           describe_field(*it) +
                           "); a key in several schemas must have the same reducer, kind and default, or be a "
                           "plain field in all but one");
    }
  };
  add(b.input_schema, "input");
  add(b.output_schema, "output");
  return out;
}

std::vector<std::string> validate(const GraphSpec& b, const CompileOptions& options) {
  std::vector<std::string> problems;
  // --- schema ---
  std::set<std::string> keys;
  for (const FieldSpec& f : b.schema.fields()) {
    if (f.name.empty()) problems.push_back("state key with an empty name");
    else if (reserved_key_name(f.name)) problems.push_back("state key '" + f.name + "' is a reserved name");
    else if (!keys.insert(f.name).second) problems.push_back("state key '" + f.name + "' is declared twice");
    if (f.reducer && f.kind != ChannelKind::automatic)
      problems.push_back("state key '" + f.name + "' has both a reducer and an explicit channel kind");
  }

  if (b.typed && (b.input_schema || b.output_schema))
    problems.push_back("input and output schemas are for JSON state (StateGraph); a typed graph's input and output are its struct");

  // --- nodes ---
  std::set<std::string> node_names;
  for (const auto& n : b.nodes) {
    if (n.name.empty()) {
      problems.push_back("node with an empty name");
      continue;
    }
    if (reserved_node_name(n.name)) {
      problems.push_back("node '" + n.name + "': name is reserved (START/END/__interrupt__, or contains '|' or ':')");
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
  return problems;
}

}  // namespace superstep::internal
