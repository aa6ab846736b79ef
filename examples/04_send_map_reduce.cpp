// Send: fan out one task per item (map), then reduce. Results keep Send order whatever order
// the tasks finish in.
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("subjects").field("jokes", sp::reducers::append).field("best");

  sp::StateGraph graph(schema);
  // A Send task sees only the Send's argument as its state.
  graph.add_node("write_joke", [](const sp::State& s) {
    return json{{"jokes", "a joke about " + s.get<std::string>("subject")}};
  });
  graph.add_node("pick_best", [](const sp::State& s) { return json{{"best", s["jokes"].back()}}; });
  graph.add_conditional_edges(sp::START, [](const sp::State& s) {
    std::vector<sp::Send> sends;
    for (const auto& subject : s["subjects"]) sends.push_back({"write_joke", {{"subject", subject}}});
    return sends;
  });
  graph.add_edge("write_joke", "pick_best");

  json result = graph.compile().invoke(json{{"subjects", {"cats", "dogs", "compilers"}}});
  std::cout << result.dump(2) << "\n";
  return result["jokes"].size() == 3 && result["best"] == "a joke about compilers" ? 0 : 1;
}
