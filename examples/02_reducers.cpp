// Reducers: how a key merges the writes of several nodes (LangGraph's Annotated[..., reducer]).
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("total", sp::reducers::add, 0)                  // numbers add up
      .field("log", sp::reducers::append)                     // lists grow
      .field("meta", sp::reducers::merge)                     // objects merge
      .field("best", sp::Reducer([](json a, json b) {         // any function (current, update)
                       return std::max(a.get<int>(), b.get<int>());
                     }, "max"), 0);

  sp::StateGraph graph(schema);
  // Two nodes in the same superstep write the same keys: the reducers combine their writes.
  graph.add_node("left", [](const sp::State&) {
    return json{{"total", 2}, {"log", "left ran"}, {"meta", {{"left", true}}}, {"best", 7}};
  });
  graph.add_node("right", [](const sp::State&) {
    return json{{"total", 3}, {"log", "right ran"}, {"meta", {{"right", true}}}, {"best", 4}};
  });
  // Overwrite bypasses the reducer.
  graph.add_node("reset_log", [](const sp::State&) { return json{{"log", sp::Overwrite{json::array({"reset"})}}}; });
  graph.add_edge(sp::START, "left").add_edge(sp::START, "right");
  graph.add_edge({"left", "right"}, "reset_log");

  json result = graph.compile().invoke(json{{"total", 10}});
  std::cout << result.dump(2) << "\n";
  return result["total"] == 15 && result["best"] == 7 && result["log"] == json({"reset"}) ? 0 : 1;
}
