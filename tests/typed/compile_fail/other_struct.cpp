#include "state.hpp"
int main() { auto u = superstep::Update<Chat>().set<&Other::x>(1); }
