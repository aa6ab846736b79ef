// AsyncStream: a running graph consumed from a coroutine (CompiledStateGraph::astream).
#pragma once

#include <memory>
#include <optional>

#include "superstep/executor.hpp"
#include "superstep/stream.hpp"
#include "superstep/task.hpp"

namespace superstep {
namespace internal {
class PregelLoop;
}

/// `co_await stream.next()` gives the run's next part, or nullopt once the run has ended. While
/// a step runs with nothing to yield, the awaiting coroutine is suspended and holds no thread:
/// it resumes on the graph's executor as soon as a task emits a part (custom, messages, updates,
/// ...) or the step ends, so parts produced inside a node arrive while the node still runs.
/// Errors of the run are thrown from next(). Destroying the stream before the end stops the
/// run without waiting for it (unlike Stream, whose destructor waits): the running step's tasks
/// not yet started are skipped, those running finish in the background (Runtime::cancelled()
/// tells them) and the run is then released on the executor; so a stream dropped on one of the
/// executor's workers never holds that worker. One consumer, one next() awaited at a time; the
/// graph must outlive it, and what its nodes use must outlive their step.
///
///   sp::AsyncStream s = app.astream(input, cfg, {sp::StreamMode::custom});
///   while (std::optional<sp::StreamPart> part = co_await s.next()) send(*part);
class AsyncStream {
 public:
  AsyncStream(std::unique_ptr<internal::PregelLoop> run, std::shared_ptr<ThreadPool> executor);
  AsyncStream(AsyncStream&&) noexcept;
  AsyncStream& operator=(AsyncStream&&) noexcept;
  ~AsyncStream();

  /// The next part (lazy: the run advances when the task is awaited).
  Task<std::optional<StreamPart>> next();
  /// The final state (plus `__interrupt__` when the run paused); valid once next() gave nullopt.
  json result() const;

 private:
  std::unique_ptr<internal::PregelLoop> run_;
  std::shared_ptr<ThreadPool> executor_;
};

}  // namespace superstep
