// The state used by the compile-failure cases.
#pragma once
#include <string>
#include <vector>
#include <superstep/superstep.hpp>
struct Chat {
  int turns = 0;
  std::string answer;
  std::vector<std::string> log;
  double undeclared = 0;  // a member that is not a state field
};
SUPERSTEP_STATE(Chat,
                SUPERSTEP_FIELD(Chat, turns, superstep::typed::add{}),
                SUPERSTEP_FIELD(Chat, answer),
                SUPERSTEP_FIELD(Chat, log, superstep::typed::append{}));
struct Other {
  int x = 0;
};
