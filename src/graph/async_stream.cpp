// AsyncStream (async_stream.hpp): next() drives the run's loop, suspending on RunReady while a
// step runs with nothing to yield.
#include "superstep/async_stream.hpp"

#include "graph/run_ready.hpp"
#include "pregel/loop.hpp"

namespace superstep {

AsyncStream::AsyncStream(std::unique_ptr<internal::PregelLoop> run, std::shared_ptr<ThreadPool> executor)
    : run_(std::move(run)), executor_(std::move(executor)) {}
AsyncStream::AsyncStream(AsyncStream&&) noexcept = default;
AsyncStream& AsyncStream::operator=(AsyncStream&&) noexcept = default;
AsyncStream::~AsyncStream() = default;

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
