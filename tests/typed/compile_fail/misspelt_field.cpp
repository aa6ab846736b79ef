#include "state.hpp"
int main() { auto u = superstep::Update<Chat>().set<&Chat::turnz>(1); }
