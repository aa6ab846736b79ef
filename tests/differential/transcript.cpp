// The transcript helpers of the C++ side (transcript.hpp).
#include "transcript.hpp"

#include <mutex>

namespace diff {

std::vector<Scenario>& registry() {
  static std::vector<Scenario> all;
  return all;
}

std::shared_ptr<sp::ThreadPool> one_worker() {
  static auto pool = std::make_shared<sp::ThreadPool>(1);
  return pool;
}

sp::CompileOptions Ctx::opts(sp::CompileOptions o) const {
  o = plain(std::move(o));
  o.checkpointer = saver;
  return o;
}

sp::CompileOptions Ctx::plain(sp::CompileOptions o) const {
  if (!o.executor) o.executor = one_worker();
  return o;
}

sp::RunConfig thread(const std::string& id) {
  sp::RunConfig c;
  c.thread_id = id;
  return c;
}

sp::RunConfig with_subgraphs(sp::RunConfig cfg) {
  cfg.subgraphs = true;
  return cfg;
}

std::map<std::string, std::string> ids_by_value(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg) {
  std::map<std::string, std::string> ids;
  for (const auto& t : app.get_state(cfg).tasks)
    for (const auto& i : t.interrupts) ids[i.value.get<std::string>()] = i.id;
  return ids;
}

sp::RunConfig at_config(const sp::CheckpointConfig& c) {
  sp::RunConfig r = thread(c.thread_id);
  r.checkpoint_ns = c.checkpoint_ns;
  r.checkpoint_id = c.checkpoint_id;
  return r;
}

void emit(const json& line) { std::cout << line.dump() << "\n" << std::flush; }

void note(const std::string& text) { emit(json{{"note", text}}); }

json error_line(std::exception_ptr e) {
  auto named = [](const char* n) { return json{{"error", {{"name", n}}}}; };
  try {
    std::rethrow_exception(e);
  } catch (const sp::NodeError& ne) {
    try {
      std::rethrow_exception(ne.cause());
    } catch (const std::exception& cause) {
      return json{{"error", {{"node_error", cause.what()}}}};
    } catch (...) {
      return json{{"error", {{"node_error", "(not a std::exception)"}}}};
    }
  } catch (const sp::GraphRecursionError&) {
    return named("GraphRecursionError");
  } catch (const sp::InvalidUpdateError&) {
    return named("InvalidUpdateError");
  } catch (const sp::EmptyInputError&) {
    return named("EmptyInputError");
  } catch (const sp::EmptyChannelError&) {
    return named("EmptyChannelError");
  } catch (const sp::GraphInterrupt&) {
    return named("GraphInterrupt");
  } catch (const sp::GraphValidationError&) {
    return named("GraphValidationError");
  } catch (const sp::KeyError&) {
    return named("KeyError");
  } catch (const sp::CheckpointError&) {
    return named("CheckpointError");
  } catch (const sp::GraphValueError&) {
    return named("GraphValueError");
  } catch (const sp::Error& other) {
    // No LangGraph class to map to: superstep's plain Error, with its message.
    return json{{"error", {{"name", "Error"}, {"superstep", other.what()}}}};
  } catch (const std::exception& other) {
    return json{{"error", {{"name", "std::exception"}, {"message", other.what()}}}};
  }
}

sp::Task<int> adrain(sp::AsyncStream s) {
  int parts = 0;
  while (std::optional<sp::StreamPart> p = co_await s.next()) {
    emit(json{{"part", {{"mode", std::string(sp::to_string(p->mode))}, {"ns", p->ns}, {"data", p->data}}}});
    ++parts;
  }
  co_return parts;
}

namespace {
template <class In>
void stream_any(const sp::CompiledStateGraph& app, const In& input, const sp::RunConfig& cfg, std::vector<Mode> modes) {
  try {
    bool raw = modes.empty();
    auto s = raw ? app.stream(input, cfg) : app.stream(input, cfg, modes);
    for (const sp::StreamPart& p : s) {
      if (raw) emit(json{{"raw", p.data}});
      else emit(json{{"part", {{"mode", std::string(sp::to_string(p.mode))}, {"ns", p.ns}, {"data", p.data}}}});
    }
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}
template <class In>
void invoke_any(const sp::CompiledStateGraph& app, const In& input, const sp::RunConfig& cfg) {
  try {
    emit(json{{"result", app.invoke(input, cfg)}});
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}
}  // namespace

void stream(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg, std::vector<Mode> modes) {
  stream_any(app, input, cfg, std::move(modes));
}
void stream(const sp::CompiledStateGraph& app, const sp::Command& input, const sp::RunConfig& cfg,
            std::vector<Mode> modes) {
  stream_any(app, input, cfg, std::move(modes));
}
void invoke(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg) {
  invoke_any(app, input, cfg);
}
void invoke(const sp::CompiledStateGraph& app, const sp::Command& input, const sp::RunConfig& cfg) {
  invoke_any(app, input, cfg);
}

void state(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, bool subgraphs) {
  try {
    emit(json{{"state", app.get_state(cfg, subgraphs).to_json()}});
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}

void history(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, const json& filter,
             std::optional<std::string> before, std::optional<std::size_t> limit) {
  try {
    json all = json::array();
    for (const auto& s : app.get_state_history(cfg, filter, std::move(before), limit)) all.push_back(s.to_json());
    emit(json{{"history", all}});
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}

std::optional<sp::RunConfig> update(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, const json& values,
                                    const std::string& as_node) {
  try {
    sp::RunConfig c = app.update_state(cfg, values, as_node);
    json configurable = {{"thread_id", c.thread_id}, {"checkpoint_ns", c.checkpoint_ns}};
    if (c.checkpoint_id) configurable["checkpoint_id"] = *c.checkpoint_id;
    emit(json{{"config", {{"configurable", configurable}}}});
    return c;
  } catch (...) {
    emit(error_line(std::current_exception()));
    return std::nullopt;
  }
}

sp::StateSchema trace_schema() {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append, json::array()).field("n");
  return s;
}

sp::NodeFn tracer(const std::string& name) {
  return [name](const sp::State&) { return json{{"trace", json::array({name})}}; };
}

sp::RetryPolicy quick_retry(int attempts) {
  return sp::RetryPolicy{.initial_interval = 0.001, .backoff_factor = 1, .max_attempts = attempts, .jitter = false};
}

std::string n_of(const sp::State& s) { return std::to_string(s.get<int>("n")); }

sp::StateGraph ask_graph() {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_node("ask", [](const sp::State& s, sp::Runtime& rt) {
    json v = sp::interrupt(rt, "q");
    return json{{"trace", {"ask:" + v.get<std::string>() + ":n=" + n_of(s)}}};
  });
  g.add_node("c", [](const sp::State& s) { return json{{"trace", {"c:n=" + n_of(s)}}}; });
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
  return g;
}

}  // namespace diff
