// Forwards to "superstep/node.hpp": NodeFn, RouterFn, NodeOptions and PathMap live on the ground
// floor, since the engine (src/pregel) runs nodes and routers too. Include that header.
#pragma once

#include "superstep/node.hpp"
