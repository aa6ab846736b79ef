// The example graphs the `superstep` command can run and draw by name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <superstep/superstep.hpp>

namespace cli {

struct BuiltinGraph {
  std::string name;
  std::string description;
  superstep::json default_input;
  /// Compiles the graph with `options` (its name is set by the graph).
  std::function<superstep::CompiledStateGraph(superstep::CompileOptions options)> build;
};

const std::vector<BuiltinGraph>& builtin_graphs();
const BuiltinGraph* find_builtin(const std::string& name);

}  // namespace cli
