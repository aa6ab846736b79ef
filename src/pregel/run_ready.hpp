// RunReady: suspends an asynchronous consumer of a run (ainvoke's driver, AsyncStream::next)
// until the run's next() has something to do without blocking: a part to yield or the step's
// end. The thread that emits the part or finishes the step resubmits the consumer to the
// executor, so no thread waits.
#pragma once

#include <coroutine>

#include "pregel/loop.hpp"
#include "superstep/executor.hpp"

namespace superstep::internal {

struct RunReady {
  PregelLoop* run;
  // A plain pointer: the consumer's frame owns the executor until the run ends, and a copy of
  // the shared_ptr here could be its last owner, released on one of its own threads.
  ThreadPool* executor;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    return run->wake_when_ready([h, pool = executor] { pool->submit([h] { h.resume(); }); });
  }
  void await_resume() const noexcept {}
};

}  // namespace superstep::internal
