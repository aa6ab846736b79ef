#include "superstep/graph/compiled_state_graph.hpp"

#include "graph/graph_data.hpp"
#include "pregel/run.hpp"

namespace superstep {

CompiledStateGraph::CompiledStateGraph(std::shared_ptr<const internal::GraphData> data) : data_(std::move(data)) {}

json CompiledStateGraph::invoke(const json& input, const RunConfig& config) const {
  internal::PregelRun run(data_, input, config, {});
  while (run.next()) {
  }
  return run.result();
}

json CompiledStateGraph::invoke(const Command& input, const RunConfig& config) const {
  internal::PregelRun run(data_, input, config, {});
  while (run.next()) {
  }
  return run.result();
}

Stream CompiledStateGraph::stream(const Command& input, const RunConfig& config, std::vector<StreamMode> modes) const {
  return Stream(std::make_unique<internal::PregelRun>(data_, input, config, modes));
}

namespace {
void require_checkpointer(const internal::GraphData& g, const RunConfig& config, const char* what) {
  if (!g.checkpointer)
    throw Error("graph '" + g.name + "' has no checkpointer: " + what + " needs CompileOptions::checkpointer");
  if (config.thread_id.empty()) throw Error("graph '" + g.name + "': " + what + " needs RunConfig::thread_id");
}

/// The checkpoint `config` names (its thread's latest when no checkpoint_id), or nullopt.
/// Throws: CheckpointError when the named checkpoint does not exist.
std::optional<CheckpointTuple> load(const internal::GraphData& g, const RunConfig& config, const char* what) {
  require_checkpointer(g, config, what);
  auto tuple = g.checkpointer->get_tuple({config.thread_id, config.checkpoint_ns, config.checkpoint_id});
  if (config.checkpoint_id && !tuple)
    throw CheckpointError("graph '" + g.name + "': thread '" + config.thread_id + "' has no checkpoint '" +
                          *config.checkpoint_id + "'");
  return tuple;
}
}  // namespace

StateSnapshot CompiledStateGraph::get_state(const RunConfig& config) const {
  auto tuple = load(*data_, config, "get_state");
  internal::PregelRun run(data_, config, tuple ? &*tuple : nullptr, internal::PregelRun::Inspect{});
  return run.snapshot(/*apply_pending=*/!config.checkpoint_id);
}

std::vector<StateSnapshot> CompiledStateGraph::get_state_history(const RunConfig& config, const json& filter,
                                                                 std::optional<std::string> before,
                                                                 std::optional<std::size_t> limit) const {
  require_checkpointer(*data_, config, "get_state_history");
  CheckpointQuery q;
  q.thread_id = config.thread_id;
  q.checkpoint_ns = config.checkpoint_ns;
  q.filter = filter;
  q.before = std::move(before);
  q.limit = limit;
  std::vector<StateSnapshot> out;
  for (const CheckpointTuple& t : data_->checkpointer->list(q)) {
    internal::PregelRun run(data_, config, &t, internal::PregelRun::Inspect{});
    out.push_back(run.snapshot(/*apply_pending=*/false));
  }
  return out;
}

RunConfig CompiledStateGraph::update_state(const RunConfig& config, const json& values, const std::string& as_node) const {
  auto tuple = load(*data_, config, "update_state");
  internal::PregelRun run(data_, config, tuple ? &*tuple : nullptr, internal::PregelRun::Inspect{});
  CheckpointConfig saved = run.update(values, as_node);
  RunConfig out = config;
  out.checkpoint_id = saved.checkpoint_id;
  return out;
}

void CompiledStateGraph::invoke_typed(internal::WriteList input, const RunConfig& config,
                                      const std::function<void(void*)>& take) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  internal::PregelRun run(data_, std::move(input), config, {});
  while (run.next()) {
  }
  take(run.typed_state());
}

void CompiledStateGraph::invoke_typed(const Command* input, const RunConfig& config,
                                      const std::function<void(void*)>& take) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  std::optional<internal::PregelRun> run;
  if (input) run.emplace(data_, *input, config, std::vector<StreamMode>{});
  else run.emplace(data_, json(nullptr), config, std::vector<StreamMode>{});
  while (run->next()) {
  }
  take(run->typed_state());
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

json Stream::result() const { return run_->result(/*take=*/false); }

}  // namespace superstep
