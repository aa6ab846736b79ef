// GraphSpec: what a StateGraph builder holds, as compile() reads it: validate (validate.cpp),
// lower into a Program (lower.cpp), draw (drawable_graph.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/drawable_graph.hpp"
#include "superstep/node.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/channels/typed_model.hpp"
#include "superstep/schema.hpp"

namespace superstep::internal {

struct Program;

struct GraphSpec {
  struct PendingNode {
    std::string name;
    NodeFn fn;
    NodeOptions options;
    std::shared_ptr<const Program> subgraph;
  };
  struct PendingBranch {
    std::string from;
    RouterFn router;
    PathMap path_map;
  };
  StateSchema schema;  // the state schema; at compile, every channel key (state, input, output)
  std::optional<StateSchema> input_schema;   // StateGraphOptions
  std::optional<StateSchema> output_schema;
  int num_state_schema_keys = -1;            // at compile: how many of `schema`'s keys are the state's
  std::vector<PendingNode> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<std::pair<std::vector<std::string>, std::string>> joins;
  std::vector<PendingBranch> branches;
  std::shared_ptr<const TypedModel> typed;
};

/// The keys of the state, input and output schemas in that order, each once (what compile()
/// makes channels of); a key declared differently in two of them is a problem.
StateSchema merge_schemas(const GraphSpec& spec, std::vector<std::string>& problems);
/// Every problem of the graph (for GraphValidationError), without the graph's name; empty when
/// it compiles.
std::vector<std::string> validate(const GraphSpec& spec, const CompileOptions& options);
/// The Program of a valid graph: channels (state keys, __start__, branch and join channels),
/// nodes with their triggers and writes, orders by name, initial versions, and warnings for
/// nodes nothing reaches.
std::shared_ptr<Program> lower(const GraphSpec& spec, const CompileOptions& options);
/// The drawing of a lowered graph (get_graph): its nodes and edges as declared.
DrawableGraph draw(const GraphSpec& spec, const Program& program);

}  // namespace superstep::internal
