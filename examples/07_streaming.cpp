// Streaming: iterate over a run while it executes; several modes at once.
#include <iostream>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("text").field("words", sp::reducers::add, 0);

  sp::StateGraph graph(schema);
  graph.add_node("count", [](const sp::State& s, sp::Runtime& rt) {
    int words = 0;
    for (char c : s.get<std::string>("text")) {
      if (c == ' ') {
        ++words;
        rt.stream_writer({{"counted", words}});  // the "custom" mode: progress from inside a node
      }
    }
    return json{{"words", words + 1}};
  });
  graph.add_edge(sp::START, "count");

  int parts = 0;
  for (const sp::StreamPart& part : graph.compile().stream(
           json{{"text", "streams yield parts while the run goes on"}}, {},
           {sp::StreamMode::updates, sp::StreamMode::custom, sp::StreamMode::values})) {
    std::cout << sp::to_string(part.mode) << ": " << part.data.dump() << "\n";
    ++parts;
  }
  return parts == 10 ? 0 : 1;
}
