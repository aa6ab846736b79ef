// The smallest graph: a state with one key, two nodes in a row.
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("greeting");  // no reducer: each write replaces the value (LastValue)

  sp::StateGraph graph(schema);
  graph.add_node("hello", [](const sp::State&) { return json{{"greeting", "Hello"}}; });
  graph.add_node("world", [](const sp::State& state) {
    return json{{"greeting", state.get<std::string>("greeting") + ", world!"}};
  });
  graph.add_edge(sp::START, "hello");
  graph.add_edge("hello", "world");
  graph.add_edge("world", sp::END);

  sp::CompiledStateGraph app = graph.compile();
  json result = app.invoke(json::object());
  std::cout << result.dump() << "\n";  // {"greeting":"Hello, world!"}
  return result["greeting"] == "Hello, world!" ? 0 : 1;
}
