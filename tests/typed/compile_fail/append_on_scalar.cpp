// sp::typed::append on a field that is not a container.
#include "state.hpp"
struct Bad {
  int count = 0;
};
SUPERSTEP_STATE(Bad, SUPERSTEP_FIELD(Bad, count, superstep::typed::append{}));
int main() {
  superstep::TypedStateGraph<Bad> g;
  g.add_node("a", [](const Bad&) { return superstep::Update<Bad>().set<&Bad::count>(1); });
  g.add_edge(superstep::START, "a");
  return g.compile().invoke().count;
}
