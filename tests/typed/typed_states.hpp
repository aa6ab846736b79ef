// State structs shared by the typed tests.
#pragma once

#include <string>
#include <vector>

#include <superstep/superstep.hpp>

struct Flow {
  int n = 0;                          // LastValue
  int total = 10;                     // add, default 10
  std::vector<std::string> trace;     // append
  bool flag = true;                   // LastValue
  std::string text = "start";         // LastValue
};
SUPERSTEP_STATE(Flow,
                SUPERSTEP_FIELD(Flow, n),
                SUPERSTEP_FIELD(Flow, total, superstep::typed::add{}),
                SUPERSTEP_FIELD(Flow, trace, superstep::typed::append{}),
                SUPERSTEP_FIELD(Flow, flag),
                SUPERSTEP_FIELD(Flow, text));

/// The argument of typed Sends in the map-reduce tests.
struct Item {
  int i = 0;
  std::vector<std::string> trace;
};
