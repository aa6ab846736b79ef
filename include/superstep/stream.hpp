// Stream modes and parts. A run streams parts while it executes; see CompiledStateGraph::stream.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/json.hpp"

namespace superstep {

enum class StreamMode { values, updates, custom, messages, debug, tasks, checkpoints };

/// The LangGraph name of a mode ("values", "updates", ...).
std::string_view to_string(StreamMode mode);
/// Parses a LangGraph mode name; nullopt when unknown.
std::optional<StreamMode> parse_stream_mode(std::string_view name);

/// One streamed item: the mode that produced it, the subgraph namespace (empty for the root
/// graph) and the payload in LangGraph's shape for that mode.
struct StreamPart {
  StreamMode mode;
  std::vector<std::string> ns;
  json data;
};

}  // namespace superstep

#include <iterator>
#include <memory>

#include "superstep/pull_iterator.hpp"

namespace superstep {
namespace internal {
class PregelLoop;
}

/// A running graph, consumed as a single-pass range of StreamParts. Parts are yielded as soon
/// as they exist (a slow node does not hold back parts already produced). Errors of the run are
/// thrown from begin() or ++. Destroying a Stream before the end stops the run: tasks not yet
/// started are skipped and running ones are waited for. Not thread-safe: consume from one thread.
class Stream {
 public:
  using iterator = PullIterator<Stream, StreamPart>;

  explicit Stream(std::unique_ptr<internal::PregelLoop> run);
  Stream(Stream&&) noexcept;
  Stream& operator=(Stream&&) noexcept;
  ~Stream();

  iterator begin();
  std::default_sentinel_t end() const noexcept { return {}; }
  /// The final state (plus `__interrupt__` when the run paused); valid once the stream is
  /// exhausted.
  json result() const;

 private:
  friend iterator;
  void advance();
  std::unique_ptr<internal::PregelLoop> run_;
  std::optional<StreamPart> current_;
  bool started_ = false;
};

}  // namespace superstep
