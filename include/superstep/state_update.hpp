// StateUpdate: one node's write in CompiledStateGraph::bulk_update_state (LangGraph's
// StateUpdate): `values` applied as if node `as_node` had returned them (empty: the node that
// ran last).
#pragma once

#include <string>

#include "superstep/json.hpp"

namespace superstep {

struct StateUpdate {
  json values;
  std::string as_node;
};

}  // namespace superstep
