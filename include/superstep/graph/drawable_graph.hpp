// Forwards to "superstep/drawable_graph.hpp": DrawableGraph is a plain value that the engine builds
// too, so it lives on the ground floor. Include that header.
#pragma once

#include "superstep/drawable_graph.hpp"
