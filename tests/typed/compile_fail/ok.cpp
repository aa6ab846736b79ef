// Control case: the same harness compiles a correct use, so the failures below fail for their
// own reason.
#include "state.hpp"
int main() {
  auto u = superstep::Update<Chat>().set<&Chat::turns>(1).set<&Chat::answer>("x").overwrite<&Chat::log>(
      std::vector<std::string>{});
  (void)u;
}
