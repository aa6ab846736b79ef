// AsyncStream (async_stream.hpp): next() drives the run's loop, suspending on RunReady while a
// step runs with nothing to yield.
#include "superstep/async_stream.hpp"

#include "pregel/run_ready.hpp"
#include "pregel/loop.hpp"

namespace superstep {

AsyncStream::AsyncStream(std::unique_ptr<internal::PregelLoop> run, std::shared_ptr<ThreadPool> executor)
    : run_(std::move(run)), executor_(std::move(executor)) {}
AsyncStream::AsyncStream(AsyncStream&&) noexcept = default;
AsyncStream& AsyncStream::operator=(AsyncStream&& other) noexcept {
  if (this != &other) {
    AsyncStream old(std::move(*this));  // dropped as the destructor drops it
    run_ = std::move(other.run_);
    executor_ = std::move(other.executor_);
  }
  return *this;
}

AsyncStream::~AsyncStream() {
  if (!run_) return;
  // Dropped mid-step. Waiting here for the step's end (as ~PregelLoop does) would hold this
  // thread, often one of the executor's workers, while the step's suspended coroutine nodes may
  // need a free worker to finish: with every worker waiting so, nothing would ever finish. So
  // the step is stopped, and the thread that ends it hands the run to the executor to destroy.
  std::shared_ptr<internal::PregelLoop> run(std::move(run_));
  internal::PregelLoop* loop = run.get();
  loop->cancel_step_then([run, executor = executor_]() mutable {
    executor->submit([run = std::move(run)] {});  // the last owner: ~PregelLoop, the step ended
  });
  // Not running a step (or it already ended): `run` is the last owner, destroyed here without
  // waiting. Else the step's end owns it now.
}

Task<std::optional<StreamPart>> AsyncStream::next() {
  for (;;) {
    bool pending = false;
    std::optional<StreamPart> part = run_->next(&pending);
    if (!pending) co_return part;
    co_await internal::RunReady{run_.get(), executor_.get()};
  }
}

json AsyncStream::result() const { return run_->result(/*take=*/false); }

}  // namespace superstep
