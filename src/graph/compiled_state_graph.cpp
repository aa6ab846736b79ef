#include "superstep/graph/compiled_state_graph.hpp"

#include <algorithm>

#include "pregel/program.hpp"
#include "pregel/run_ready.hpp"
#include "pregel/loop.hpp"
#include "pregel/persistence.hpp"

namespace superstep {

CompiledStateGraph::CompiledStateGraph(std::shared_ptr<const internal::Program> data) : data_(std::move(data)) {}

const std::shared_ptr<const internal::Program>& internal::program_of(const CompiledStateGraph& graph) noexcept {
  return graph.data_;
}

json CompiledStateGraph::invoke(const json& input, const RunConfig& config) const {
  internal::PregelLoop run(data_, input, config, {});
  while (run.next()) {
  }
  return run.result();
}

json CompiledStateGraph::invoke(const Command& input, const RunConfig& config) const {
  internal::PregelLoop run(data_, input, config, {});
  while (run.next()) {
  }
  return run.result();
}

namespace {
Task<json> drive(std::unique_ptr<internal::PregelLoop> run, std::shared_ptr<ThreadPool> executor) {
  for (;;) {
    bool pending = false;
    std::optional<StreamPart> part = run->next(&pending);
    if (pending) {
      co_await internal::RunReady{run.get(), executor.get()};
      continue;
    }
    if (!part) break;
  }
  co_return run->result();
}
}  // namespace

json CompiledStateGraph::invoke(json input, Runtime& rt) const { return internal::invoke_inner(data_, std::move(input), rt); }

Task<json> CompiledStateGraph::ainvoke(json input, Runtime& rt) const {
  return internal::ainvoke_inner(data_, std::move(input), rt);
}

// Lazy, as every Task: the run starts (and reports bad input) when awaited.
Task<json> CompiledStateGraph::ainvoke(json input, RunConfig config) const {
  std::shared_ptr<const internal::Program> g = data_;
  // GCC 12 destroys some temporaries of a co_await operand twice: build the task first.
  auto run = std::make_unique<internal::PregelLoop>(g, input, std::move(config), std::vector<StreamMode>{});
  Task<json> driven = drive(std::move(run), g->executor);
  co_return co_await std::move(driven);
}

Task<json> CompiledStateGraph::ainvoke(Command input, RunConfig config) const {
  std::shared_ptr<const internal::Program> g = data_;
  auto run = std::make_unique<internal::PregelLoop>(g, input, std::move(config), std::vector<StreamMode>{});
  Task<json> driven = drive(std::move(run), g->executor);
  co_return co_await std::move(driven);
}

Stream CompiledStateGraph::stream(const Command& input, const RunConfig& config, std::vector<StreamMode> modes) const {
  return Stream(std::make_unique<internal::PregelLoop>(data_, input, config, modes));
}

AsyncStream CompiledStateGraph::astream(const json& input, const RunConfig& config, std::vector<StreamMode> modes) const {
  return AsyncStream(std::make_unique<internal::PregelLoop>(data_, input, config, modes), data_->executor);
}

AsyncStream CompiledStateGraph::astream(const Command& input, const RunConfig& config,
                                        std::vector<StreamMode> modes) const {
  return AsyncStream(std::make_unique<internal::PregelLoop>(data_, input, config, modes), data_->executor);
}

namespace {
/// The graph a config's checkpoint namespace belongs to (this one for "", else the subgraph of
/// each `node:<task_id>` segment), with the saver it uses (its own, else its parent's).
struct Target {
  std::shared_ptr<const internal::Program> graph;
  internal::ParentLink link;  // carries the inherited saver for a subgraph without its own
  const std::shared_ptr<CheckpointSaver>& saver() const { return graph->checkpointer ? graph->checkpointer : link.saver; }
  const internal::ParentLink* parent() const { return graph->checkpointer ? nullptr : &link; }
};

Target resolve(const std::shared_ptr<const internal::Program>& root, const RunConfig& config, const char* what) {
  Target t{root, {}};
  t.link.saver = root->checkpointer;
  std::string_view ns = config.checkpoint_ns;
  while (!ns.empty()) {
    std::string_view segment = ns.substr(0, ns.find('|'));
    ns.remove_prefix(std::min(ns.size(), segment.size() + 1));
    std::string_view node = segment.substr(0, segment.find(':'));
    int id = t.graph->find_node(node);
    if (id <= 0 || !t.graph->nodes[id].subgraph)
      throw CheckpointError("graph '" + root->name + "': checkpoint namespace '" + config.checkpoint_ns +
                            "' names no subgraph ('" + std::string(node) + "' is not a subgraph node of graph '" +
                            t.graph->name + "')");
    if (t.graph->checkpointer) t.link.saver = t.graph->checkpointer;
    t.graph = t.graph->nodes[id].subgraph;
  }
  if (!t.saver())
    throw Error("graph '" + root->name + "' has no checkpointer: " + what + " needs CompileOptions::checkpointer");
  if (config.thread_id.empty()) throw Error("graph '" + root->name + "': " + what + " needs RunConfig::thread_id");
  return t;
}

/// The checkpoint `config` names (its thread's latest when no checkpoint_id), or nullopt.
/// Throws: CheckpointError when the named checkpoint does not exist.
std::optional<CheckpointTuple> load(const Target& target, const RunConfig& config) {
  auto tuple = internal::name_saver_failure(
      target.graph->name, config.thread_id,
      [&] {
        return config.checkpoint_id ? "reading checkpoint '" + *config.checkpoint_id + "'"
                                    : std::string("reading its latest checkpoint");
      },
      [&] { return target.saver()->get_tuple({config.thread_id, config.checkpoint_ns, config.checkpoint_id}); });
  if (config.checkpoint_id && !tuple)
    throw CheckpointError("graph '" + target.graph->name + "': thread '" + config.thread_id + "' has no checkpoint '" +
                          *config.checkpoint_id + "'");
  return tuple;
}
}  // namespace

StateSnapshot CompiledStateGraph::get_state(const RunConfig& config, bool subgraphs) const {
  Target target = resolve(data_, config, "get_state");
  auto tuple = load(target, config);
  internal::PregelLoop run(target.graph, config, tuple ? &*tuple : nullptr, internal::PregelLoop::Inspect{},
                          target.parent());
  return run.snapshot(/*apply_pending=*/!config.checkpoint_id, subgraphs);
}

std::vector<StateSnapshot> CompiledStateGraph::get_state_history(const RunConfig& config, const json& filter,
                                                                 std::optional<std::string> before,
                                                                 std::optional<std::size_t> limit) const {
  Target target = resolve(data_, config, "get_state_history");
  CheckpointQuery q;
  q.thread_id = config.thread_id;
  q.checkpoint_ns = config.checkpoint_ns;
  q.checkpoint_id = config.checkpoint_id;  // as LangGraph: a config naming a checkpoint lists that one only
  q.filter = filter;
  q.before = std::move(before);
  q.limit = limit;
  q.as_changes = true;
  auto tuples = internal::name_saver_failure(target.graph->name, config.thread_id, [] { return "reading its history"; },
                                             [&] { return target.saver()->list(q); });
  return internal::PregelLoop::history(target.graph, config, std::move(tuples), target.parent());
}

RunConfig CompiledStateGraph::update_state(const RunConfig& config, const json& values, const std::string& as_node) const {
  Target target = resolve(data_, config, "update_state");
  auto tuple = load(target, config);
  internal::PregelLoop run(target.graph, config, tuple ? &*tuple : nullptr, internal::PregelLoop::Inspect{},
                          target.parent());
  CheckpointConfig saved = run.update(values, as_node);
  RunConfig out = config;
  out.checkpoint_id = saved.checkpoint_id;
  return out;
}

RunConfig CompiledStateGraph::bulk_update_state(const RunConfig& config,
                                                const std::vector<std::vector<StateUpdate>>& supersteps) const {
  if (supersteps.empty()) throw InvalidUpdateError("graph '" + data_->name + "': bulk_update_state needs a superstep");
  RunConfig at = config;
  for (const auto& updates : supersteps) {
    Target target = resolve(data_, at, "bulk_update_state");
    auto tuple = load(target, at);
    internal::PregelLoop run(target.graph, at, tuple ? &*tuple : nullptr, internal::PregelLoop::Inspect{}, target.parent());
    at.checkpoint_id = run.update(updates).checkpoint_id;
  }
  return at;
}

void CompiledStateGraph::invoke_typed(internal::WriteList input, const RunConfig& config,
                                      const std::function<void(void*)>& take) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  internal::PregelLoop run(data_, std::move(input), config, {});
  while (run.next()) {
  }
  take(run.typed_state());
}

void CompiledStateGraph::invoke_typed(const Command* input, const RunConfig& config,
                                      const std::function<void(void*)>& take) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  std::optional<internal::PregelLoop> run;
  if (input) run.emplace(data_, *input, config, std::vector<StreamMode>{});
  else run.emplace(data_, json(nullptr), config, std::vector<StreamMode>{});
  while (run->next()) {
  }
  take(run->typed_state());
}

Stream CompiledStateGraph::stream_typed(internal::WriteList input, const RunConfig& config,
                                        std::vector<StreamMode> modes) const {
  if (!data_->typed) throw Error("graph '" + data_->name + "' has JSON state, not typed state");
  return Stream(std::make_unique<internal::PregelLoop>(data_, std::move(input), config, modes));
}

Stream CompiledStateGraph::stream(const json& input, const RunConfig& config, std::vector<StreamMode> modes) const {
  return Stream(std::make_unique<internal::PregelLoop>(data_, input, config, modes));
}

DrawableGraph CompiledStateGraph::get_graph() const { return data_->drawable; }
void CompiledStateGraph::clear_cache(const std::vector<std::string>& nodes) const {
  if (!data_->cache) return;
  for (const internal::NodeData& n : data_->nodes) {
    if (n.is_start || !n.options.cache_policy) continue;
    if (!nodes.empty() && std::find(nodes.begin(), nodes.end(), n.name) == nodes.end()) continue;
    data_->cache->clear(internal::node_cache_ns(*data_, n));
  }
}

const std::vector<std::string>& CompiledStateGraph::warnings() const noexcept { return data_->warnings; }
const std::string& CompiledStateGraph::name() const noexcept { return data_->name; }

std::vector<std::string> CompiledStateGraph::nodes() const {
  std::vector<std::string> out;
  for (const auto& n : data_->nodes)
    if (!n.is_start) out.push_back(n.name);
  return out;
}

Stream::Stream(std::unique_ptr<internal::PregelLoop> run) : run_(std::move(run)) {}
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
