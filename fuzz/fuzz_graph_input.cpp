// What a caller hands a checkpointed graph (the CLI's --input/--value, the server's run bodies):
// any JSON as input, as a Command's update/goto/resume, and as update_state values. The engine
// answers with a superstep::Error naming the problem, or runs; nothing else escapes, and the
// thread stays readable.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <superstep/superstep.hpp>

#include "fuzz_util.hpp"

namespace {
namespace sp = superstep;
using sp::json;

const sp::CompiledStateGraph& graph() {
  static const sp::CompiledStateGraph app = [] {
    sp::StateSchema s;
    s.field("messages", sp::reducers::add_messages).field("n", sp::reducers::add, 0).field("x").field("items",
                                                                                                   sp::reducers::append);
    sp::StateGraph g(s);
    g.add_node("count", [](const sp::State&) { return json{{"n", 1}}; });
    g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
      json answer = sp::interrupt(rt, json{{"question", "x?"}});
      return json{{"x", answer}, {"items", {answer}}};
    });
    g.add_edge(sp::START, "count").add_edge("count", "ask").add_edge("ask", sp::END);
    return g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>(), .name = "fuzzed"});
  }();
  return app;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::atomic<long> threads{0};
  json j = json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (j.is_discarded()) return 0;
  const auto& app = graph();
  sp::RunConfig cfg;
  cfg.thread_id = "t" + std::to_string(threads++);
  fuzz::named_errors_only([&] { app.invoke(j, cfg); });
  fuzz::named_errors_only([&] {
    sp::Command cmd;
    if (j.is_object()) {
      if (j.contains("update")) cmd.update = j["update"];
      if (j.contains("resume")) cmd.resume = j["resume"];
      if (j.contains("goto") && j["goto"].is_string()) cmd.go_to = sp::Route(j["goto"].get<std::string>());
    } else {
      cmd.resume = j;
    }
    app.invoke(cmd, cfg);
  });
  fuzz::named_errors_only([&] { app.update_state(cfg, j, "count"); });
  fuzz::named_errors_only([&] { app.update_state(cfg, j); });
  fuzz::named_errors_only([&] {
    (void)app.get_state(cfg);
    for (const auto& s : app.get_state_history(cfg)) (void)s.values.dump();
  });
  return 0;
}
