// superstep uses nlohmann::json as its dynamic value type: state values, updates, stream parts.
#pragma once

#include <nlohmann/json.hpp>

namespace superstep {
using json = nlohmann::json;
}  // namespace superstep
