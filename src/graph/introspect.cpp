// What a compiled graph says about itself: its drawing with subgraphs inlined (xray), its
// subgraphs, and the JSON Schema of its state.
#include <map>
#include <set>

#include "pregel/program.hpp"
#include "superstep/graph/compiled_state_graph.hpp"
#include "superstep/types.hpp"

namespace superstep {

namespace {

/// `program`'s drawing with `depth` levels of subgraphs inlined (-1: all).
DrawableGraph xray(const internal::Program& program, int depth) {
  if (depth == 0 || !program.has_subgraphs) return program.drawable;
  const DrawableGraph& base = program.drawable;
  DrawableGraph out;
  std::vector<DrawableGraph::Edge> inner_edges;
  // Per inlined node: where edges into it go and where edges out of it come from.
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> ends;
  for (const auto& node : base.nodes) {
    int id = program.find_node(node.id);
    const internal::NodeData* data = id >= 0 ? &program.nodes[static_cast<std::size_t>(id)] : nullptr;
    if (!data || !data->subgraph) {
      out.nodes.push_back(node);
      continue;
    }
    DrawableGraph sub = xray(*data->subgraph, depth < 0 ? depth : depth - 1);
    std::string prefix = node.id + ":";
    auto& [firsts, lasts] = ends[node.id];
    for (const auto& n : sub.nodes)
      if (n.id != START && n.id != END) out.nodes.push_back({prefix + n.id, n.metadata, n.subgraph});
    for (const auto& e : sub.edges) {
      if (e.source == START && e.target != END) firsts.push_back(prefix + e.target);
      else if (e.target == END && e.source != START) lasts.push_back(prefix + e.source);
      else if (e.source != START && e.target != END)
        inner_edges.push_back({prefix + e.source, prefix + e.target, e.conditional, e.label});
    }
    std::set<std::string> seen;  // a node reached from START on several edges counts once
    std::erase_if(firsts, [&](const std::string& f) { return !seen.insert(f).second; });
    seen.clear();
    std::erase_if(lasts, [&](const std::string& l) { return !seen.insert(l).second; });
  }
  out.edges = inner_edges;
  for (const auto& e : base.edges) {
    auto from = ends.find(e.source);
    auto to = ends.find(e.target);
    std::vector<std::string> sources = from == ends.end() ? std::vector<std::string>{e.source} : from->second.second;
    std::vector<std::string> targets = to == ends.end() ? std::vector<std::string>{e.target} : to->second.first;
    for (const auto& s : sources)
      for (const auto& t : targets) out.edges.push_back({s, t, e.conditional, e.label});
  }
  return out;
}

}  // namespace

DrawableGraph CompiledStateGraph::get_graph(int depth) const { return xray(*data_, depth); }

std::vector<std::pair<std::string, CompiledStateGraph>> CompiledStateGraph::get_subgraphs(const std::string& ns,
                                                                                          bool recurse) const {
  std::vector<std::pair<std::string, CompiledStateGraph>> out;
  for (std::size_t i = 1; i < data_->nodes.size(); ++i) {
    const internal::NodeData& node = data_->nodes[i];
    if (!node.subgraph) continue;
    // `ns` is "node" or "node|inner|...": only this node's branch.
    if (!ns.empty() && ns != node.name && ns.rfind(node.name + "|", 0) != 0) continue;
    CompiledStateGraph sub(node.subgraph);
    if (ns.empty() || ns == node.name) out.emplace_back(node.name, sub);
    if (ns == node.name) return out;
    if (recurse || !ns.empty()) {
      std::string rest = ns.empty() ? "" : ns.substr(node.name.size() + 1);
      for (auto& [name, g] : sub.get_subgraphs(rest, recurse)) out.emplace_back(node.name + "|" + name, std::move(g));
    }
  }
  return out;
}

namespace {
json object_schema(const StateSchema& schema, const json& typed, const std::string& title) {
  json properties = json::object();
  for (const FieldSpec& f : schema.fields()) {
    json p = typed.contains(f.name) ? typed[f.name] : json::object();
    if (f.default_value && !f.default_value->is_null()) p["default"] = *f.default_value;
    properties[f.name] = std::move(p);
  }
  return json{{"$schema", "http://json-schema.org/draft-07/schema#"},
              {"title", title},
              {"type", "object"},
              {"properties", std::move(properties)}};
}
}  // namespace

json CompiledStateGraph::get_state_jsonschema() const {
  return object_schema(data_->schema, data_->typed ? data_->typed->field_schemas() : json::object(), data_->name);
}

json CompiledStateGraph::get_input_jsonschema() const {
  if (!data_->input_schema) return get_state_jsonschema();
  // A key the input shares with the state keeps the state's default (one channel).
  StateSchema keys;
  for (const FieldSpec& f : data_->input_schema->fields()) keys.field(*data_->schema.find(f.name));
  return object_schema(keys, json::object(), data_->name + "Input");
}

json CompiledStateGraph::get_output_jsonschema() const {
  if (!data_->output_schema) return get_state_jsonschema();
  StateSchema keys;
  for (const FieldSpec& f : data_->output_schema->fields()) keys.field(*data_->schema.find(f.name));
  return object_schema(keys, json::object(), data_->name + "Output");
}

}  // namespace superstep
