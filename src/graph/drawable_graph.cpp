#include "superstep/drawable_graph.hpp"

#include <sstream>

#include "graph/graph_spec.hpp"
#include "pregel/program.hpp"
#include "superstep/types.hpp"

namespace superstep {
namespace {
std::string mermaid_id(const std::string& id) {
  std::string out;
  for (char c : id) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out;
}
}  // namespace

std::string DrawableGraph::draw_mermaid() const {
  std::ostringstream out;
  out << "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n";
  for (const Node& n : nodes) {
    const std::string id = mermaid_id(n.id);
    if (n.id == START) out << "\t" << id << "([<p>" << n.id << "</p>]):::first\n";
    else if (n.id == END) out << "\t" << id << "([<p>" << n.id << "</p>]):::last\n";
    else out << "\t" << id << "(" << n.id << ")\n";
  }
  for (const Edge& e : edges) {
    out << "\t" << mermaid_id(e.source);
    if (!e.conditional) out << " --> ";
    else if (e.label.empty()) out << " -.-> ";
    else out << " -. &nbsp;" << e.label << "&nbsp; .-> ";
    out << mermaid_id(e.target) << ";\n";
  }
  out << "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      << "\tclassDef first fill-opacity:0\n"
      << "\tclassDef last fill:#bfb6fc\n";
  return out.str();
}

std::string DrawableGraph::draw_dot() const {
  std::ostringstream out;
  auto q = [](const std::string& s) {
    std::string r = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') r += '\\';
      r += c;
    }
    return r + "\"";
  };
  out << "digraph G {\n  rankdir=TB;\n  node [shape=box, style=rounded];\n";
  for (const Node& n : nodes) {
    out << "  " << q(n.id);
    if (n.id == START || n.id == END) out << " [shape=oval]";
    out << ";\n";
  }
  for (const Edge& e : edges) {
    out << "  " << q(e.source) << " -> " << q(e.target);
    if (e.conditional) {
      out << " [style=dashed";
      if (!e.label.empty()) out << ", label=" << q(e.label);
      out << "]";
    }
    out << ";\n";
  }
  out << "}\n";
  return out.str();
}

DrawableGraph internal::draw(const internal::GraphSpec& b, const internal::Program& program) {
  const internal::Program* g = &program;
  DrawableGraph d;
  d.nodes.push_back({START, json::object(), {}});
  for (std::size_t i = 1; i < g->nodes.size(); ++i)
    d.nodes.push_back({g->nodes[i].name, g->nodes[i].options.metadata,
                       g->nodes[i].subgraph ? g->nodes[i].subgraph->name : std::string()});
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
  if (end_used) d.nodes.push_back({END, json::object(), {}});
  return d;
}

}  // namespace superstep
