// Conditional edges: a router picks the next node from the fresh state.
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("number").field("steps", sp::reducers::append);

  sp::StateGraph graph(schema);
  graph.add_node("halve", [](const sp::State& s) {
    return json{{"number", s.get<int>("number") / 2}, {"steps", "halve"}};
  });
  graph.add_node("triple_plus_one", [](const sp::State& s) {
    return json{{"number", s.get<int>("number") * 3 + 1}, {"steps", "3n+1"}};
  });
  auto collatz = [](const sp::State& s) -> std::string {
    int n = s.get<int>("number");
    if (n == 1) return "stop";
    return n % 2 == 0 ? "even" : "odd";
  };
  // The path map names where each router result leads (and lets drawings show the labels).
  sp::PathMap paths{{"even", "halve"}, {"odd", "triple_plus_one"}, {"stop", sp::END}};
  graph.set_conditional_entry_point(collatz, paths);
  graph.add_conditional_edges("halve", collatz, paths);
  graph.add_conditional_edges("triple_plus_one", collatz, paths);

  auto app = graph.compile();
  json result = app.invoke(json{{"number", 6}}, {.recursion_limit = 100});
  std::cout << result.dump() << "\n" << app.get_graph().draw_mermaid();
  return result["number"] == 1 && result["steps"].size() == 8 ? 0 : 1;
}
