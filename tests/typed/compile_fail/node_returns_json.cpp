// A typed node must return sp::Update<S>, not JSON.
#include "state.hpp"
int main() {
  superstep::TypedStateGraph<Chat> g;
  g.add_node("a", [](const Chat&) { return superstep::json{{"turns", 1}}; });
}
