// RunConfig: per-call settings of invoke and stream (LangGraph's RunnableConfig).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "superstep/json.hpp"

namespace superstep {

struct RunConfig {
  std::string thread_id;                       ///< conversation thread (persistence)
  int recursion_limit = 25;                    ///< maximum supersteps of this run
  int max_concurrency = 0;                     ///< tasks run at once; 0 = no limit
  std::optional<std::string> checkpoint_id;    ///< replay / fork point (persistence)
  std::string checkpoint_ns;                   ///< namespace (subgraphs)
  json configurable = json::object();          ///< user values, readable by nodes
  std::string run_id;                          ///< set by the caller or generated
};

}  // namespace superstep
