// Update<S> needs only the ground floor: with typed.hpp alone (no channel, graph or engine
// header; scripts/check-layers keeps typed.hpp from including them), a node's update of every
// kind compiles, typed::add_messages included. (Compiled with -fsyntax-only, not run.)
#include <string>
#include <vector>

#include <superstep/typed.hpp>

struct Msg {
  std::string id;
  std::string text;
};
struct Alone {
  int turns = 0;
  std::vector<Msg> messages;
};
SUPERSTEP_STATE(Alone, SUPERSTEP_FIELD(Alone, turns, superstep::typed::add{}),
                SUPERSTEP_FIELD(Alone, messages, superstep::typed::add_messages{}));

int main() {
  auto u = superstep::Update<Alone>().set<&Alone::turns>(1).set<&Alone::messages>(std::vector<Msg>{{"", "hi"}});
  u.set<&Alone::turns>(2);  // a reducer field set twice: the batch's extra writes
  auto list = std::move(u).take();
  std::vector<std::pair<int, superstep::Value>> writes;
  list.batch->explode(writes);
  return writes.size() == 3 ? 0 : 1;
}
