// Coroutine nodes: a node that waits (on a model, an HTTP tool, a timer) co_awaits and holds no
// thread meanwhile, so 200 waiting nodes run at once on a two-thread pool.
#include <chrono>
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;
using namespace std::chrono_literals;

int main() {
  sp::StateSchema schema;
  schema.field("answers", sp::reducers::add, 0);

  sp::StateGraph graph(schema);
  graph.add_node("ask", [](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 100ms);  // stands in for a 100 ms model call
    co_return json{{"answers", 1}};
  });
  graph.add_conditional_edges(sp::START, [](const sp::State&) {
    return std::vector<sp::Send>(200, sp::Send{"ask", json::object()});
  });

  auto app = graph.compile({.executor = std::make_shared<sp::ThreadPool>(2)});
  auto t0 = std::chrono::steady_clock::now();
  json result = app.invoke(json::object());
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::cout << result["answers"] << " answers in " << ms << " ms on 2 threads (blocking would take 10 s)\n";
  return result["answers"] == 200 ? 0 : 1;
}
