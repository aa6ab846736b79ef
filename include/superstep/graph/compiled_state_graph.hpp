// CompiledStateGraph: an immutable, validated graph ready to run. Cheap to copy (shared
// immutable data); invoke and stream may be called from many threads at once, each call being
// an independent run with its own channels.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "superstep/config.hpp"
#include "superstep/graph/drawable_graph.hpp"
#include "superstep/json.hpp"
#include "superstep/stream.hpp"
#include "superstep/types.hpp"

namespace superstep {
namespace internal {
struct GraphData;
}

class CompiledStateGraph {
 public:
  explicit CompiledStateGraph(std::shared_ptr<const internal::GraphData> data);

  /// Runs the graph to the end and returns the final state.
  /// Throws: EmptyInputError (null input), InvalidUpdateError, GraphRecursionError, NodeError.
  json invoke(const json& input, const RunConfig& config = {}) const;

  /// Runs the graph, yielding parts of the requested modes while it runs.
  Stream stream(const json& input, const RunConfig& config = {},
                std::vector<StreamMode> modes = {StreamMode::values}) const;

  /// The graph's structure, for drawing.
  DrawableGraph get_graph() const;
  /// Non-fatal findings of compile() (e.g. nodes unreachable through static edges).
  const std::vector<std::string>& warnings() const noexcept;
  const std::string& name() const noexcept;
  /// The names of the nodes, in the order they were added.
  std::vector<std::string> nodes() const;

  /// Typed state (used by TypedCompiledGraph<S>): runs with typed input writes and hands the
  /// final state struct to `take` before the run's channels are recycled.
  void invoke_typed(internal::WriteList input, const RunConfig& config, const std::function<void(void*)>& take) const;
  Stream stream_typed(internal::WriteList input, const RunConfig& config, std::vector<StreamMode> modes) const;

 private:
  std::shared_ptr<const internal::GraphData> data_;
};

}  // namespace superstep
