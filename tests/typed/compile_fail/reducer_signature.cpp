// A reducer taking strings declared on an int field.
#include "state.hpp"
struct Bad {
  int count = 0;
};
SUPERSTEP_STATE(Bad, SUPERSTEP_FIELD(Bad, count, [](std::string a, std::string b) { return a + b; }));
int main() { auto u = superstep::Update<Bad>().set<&Bad::count>(1); }
