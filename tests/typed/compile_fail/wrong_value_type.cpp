#include "state.hpp"
int main() { auto u = superstep::Update<Chat>().set<&Chat::turns>(std::string("three")); }
