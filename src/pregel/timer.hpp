// Timer: one background thread that fires callbacks at deadlines (coroutine sleeps, retry
// back-off of coroutine nodes). Callbacks must be short: they post work to an executor.
#pragma once

#include <chrono>
#include <functional>

namespace superstep::internal {

/// Calls `fn` on the timer thread once `delay` has passed.
void run_after(std::chrono::nanoseconds delay, std::function<void()> fn);

}  // namespace superstep::internal
