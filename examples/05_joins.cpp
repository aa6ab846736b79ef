// Joins: add_edge({a, b}, c) runs c once after both a and b, even when the branches have
// different lengths. Without the join, c would run once per arriving branch.
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("trace", sp::reducers::append);
  auto step = [](std::string name) { return [name](const sp::State&) { return json{{"trace", name}}; }; };

  sp::StateGraph graph(schema);
  graph.add_node("a", step("a")).add_node("b", step("b")).add_node("b2", step("b2")).add_node("c", step("c"));
  graph.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2");
  graph.add_edge({"a", "b2"}, "c");  // wait for both

  json result = graph.compile().invoke(json::object());
  std::cout << result.dump() << "\n";  // {"trace":["a","b","b2","c"]}
  return result["trace"] == json({"a", "b", "b2", "c"}) ? 0 : 1;
}
