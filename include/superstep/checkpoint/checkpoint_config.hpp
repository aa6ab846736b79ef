// Forwards to "superstep/checkpoint_config.hpp": CheckpointConfig names a checkpoint, as a
// StateSnapshot (ground floor) does, so it lives on the ground floor. Include that header.
#pragma once

#include "superstep/checkpoint_config.hpp"
