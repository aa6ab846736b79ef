// Value moved to the ground floor: superstep/value.hpp. This path stays for code that includes it.
#pragma once

#include "superstep/value.hpp"
