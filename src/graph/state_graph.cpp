// The builder: StateGraph records nodes and edges; compile() validates them (validate.cpp),
// lowers them into a Program (lower.cpp) and draws them (drawable_graph.cpp).
#include "superstep/graph/state_graph.hpp"

#include "graph/graph_spec.hpp"
#include "pregel/program.hpp"
#include "pregel/subgraph.hpp"

namespace superstep {

struct StateGraph::Impl : internal::GraphSpec {};

StateGraph::StateGraph(StateSchema schema) : impl_(std::make_unique<Impl>()) { impl_->schema = std::move(schema); }
StateGraph::StateGraph(StateSchema schema, StateGraphOptions options) : StateGraph(std::move(schema)) {
  impl_->input_schema = std::move(options.input_schema);
  impl_->output_schema = std::move(options.output_schema);
}
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
  // One source is a plain edge, except into END: a join cannot target END (as LangGraph).
  if (from.size() == 1 && to != END) return add_single_edge(std::move(from.front()), std::move(to));
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

CompiledStateGraph StateGraph::compile(CompileOptions options) const {
  // With input or output schemas, the graph compiles over the keys of all three.
  const internal::GraphSpec* spec = impl_.get();
  std::optional<internal::GraphSpec> merged;
  std::vector<std::string> problems;
  if (impl_->input_schema || impl_->output_schema) {
    merged.emplace(*impl_);
    merged->num_state_schema_keys = static_cast<int>(impl_->schema.fields().size());
    merged->schema = internal::merge_schemas(*impl_, problems);
    spec = &*merged;
  }
  std::vector<std::string> more = internal::validate(*spec, options);
  problems.insert(problems.end(), more.begin(), more.end());
  if (!problems.empty()) {
    for (auto& p : problems) p = "graph '" + options.name + "': " + p;
    throw GraphValidationError(std::move(problems));
  }
  std::shared_ptr<internal::Program> g = internal::lower(*spec, options);
  g->drawable = internal::draw(*spec, *g);
  return CompiledStateGraph(std::move(g));
}

}  // namespace superstep
