// DrawableGraph: the nodes and edges of a compiled graph, as get_graph() returns them, with
// LangGraph's Mermaid and Graphviz renderings. A plain value.
#pragma once

#include <string>
#include <vector>

#include "superstep/json.hpp"

namespace superstep {

struct DrawableGraph {
  struct Node {
    std::string id;
    json metadata = json::object();
    std::string subgraph;  ///< the compiled graph's name when the node is one (else empty)
  };
  struct Edge {
    std::string source;
    std::string target;
    bool conditional = false;
    std::string label;  ///< the path-map key of a conditional edge, if any
  };
  std::vector<Node> nodes;  ///< __start__ first, __end__ last (when reachable)
  std::vector<Edge> edges;

  /// Mermaid flowchart text (as LangGraph's draw_mermaid).
  std::string draw_mermaid() const;
  /// Graphviz dot text.
  std::string draw_dot() const;
};

}  // namespace superstep
