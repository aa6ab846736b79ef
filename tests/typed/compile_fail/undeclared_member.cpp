#include "state.hpp"
int main() { auto u = superstep::Update<Chat>().set<&Chat::undeclared>(1.0); }
