#include "superstep/graph/compiled_state_graph.hpp"

#include "graph/graph_data.hpp"
#include "pregel/run.hpp"

namespace superstep {

CompiledStateGraph::CompiledStateGraph(std::shared_ptr<const internal::GraphData> data) : data_(std::move(data)) {}

json CompiledStateGraph::invoke(const json& input, const RunConfig& config) const {
  internal::PregelRun run(data_, input, config, {});
  while (run.next()) {
  }
  return data_->typed ? run.state_json() : run.take_state();
}

void CompiledStateGraph::invoke_typed(internal::WriteList input, const RunConfig& config,
                                      const std::function<void(void*)>& take) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  internal::PregelRun run(data_, std::move(input), config, {});
  while (run.next()) {
  }
  take(run.typed_state());
}

Stream CompiledStateGraph::stream_typed(internal::WriteList input, const RunConfig& config,
                                        std::vector<StreamMode> modes) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  return Stream(std::make_unique<internal::PregelRun>(data_, std::move(input), config, modes));
}

Stream CompiledStateGraph::stream(const json& input, const RunConfig& config, std::vector<StreamMode> modes) const {
  return Stream(std::make_unique<internal::PregelRun>(data_, input, config, modes));
}

DrawableGraph CompiledStateGraph::get_graph() const { return data_->drawable; }
const std::vector<std::string>& CompiledStateGraph::warnings() const noexcept { return data_->warnings; }
const std::string& CompiledStateGraph::name() const noexcept { return data_->name; }

std::vector<std::string> CompiledStateGraph::nodes() const {
  std::vector<std::string> out;
  for (const auto& n : data_->nodes)
    if (!n.is_start) out.push_back(n.name);
  return out;
}

Stream::Stream(std::unique_ptr<internal::PregelRun> run) : run_(std::move(run)) {}
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;
Stream::~Stream() = default;

Stream::iterator Stream::begin() {
  if (!started_) {
    started_ = true;
    advance();
  }
  return iterator(this);
}

void Stream::advance() { current_ = run_->next(); }

json Stream::result() const { return run_->state_json(); }

}  // namespace superstep
