// The exception hierarchy. Every error superstep raises derives from superstep::Error and is
// named after its LangGraph counterpart. Messages name the graph element at fault (graph, node,
// key, edge). Exceptions are immutable values and safe to copy between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace superstep {

/// Root of every superstep exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The run executed more supersteps than `RunConfig::recursion_limit` allows.
class GraphRecursionError : public Error {
 public:
  using Error::Error;
};

/// The run was stopped through RunConfig::stop, at a superstep boundary: what it stored stays.
class RunCancelledError : public Error {
 public:
  using Error::Error;
};

/// A node or the input wrote something the state cannot take: an unknown key, a second value
/// for a LastValue key in one step, something that is not an update.
class InvalidUpdateError : public Error {
 public:
  using Error::Error;
};

/// A run started on a thread with no state and no input.
class EmptyInputError : public Error {
 public:
  using Error::Error;
};

/// A channel was read before it had a value (LangGraph's EmptyChannelError).
class EmptyChannelError : public Error {
 public:
  using Error::Error;
};

/// A state key was read that has no value in this state.
class KeyError : public Error {
 public:
  using Error::Error;
};

/// `StateGraph::compile()` found problems; `problems()` lists each one, naming the node or edge.
class GraphValidationError : public Error {
 public:
  explicit GraphValidationError(std::vector<std::string> problems);
  const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  std::vector<std::string> problems_;
};

/// What a node threw, wrapped with the node's name, its task id and the superstep it ran in.
/// `cause()` rethrows-able pointer to the original exception.
class NodeError : public Error {
 public:
  NodeError(std::string node, std::string task_id, int64_t step, std::exception_ptr cause,
            const std::string& what_cause);
  const std::string& node() const noexcept { return node_; }
  const std::string& task_id() const noexcept { return task_id_; }
  int64_t step() const noexcept { return step_; }
  std::exception_ptr cause() const noexcept { return cause_; }

 private:
  std::string node_;
  std::string task_id_;
  int64_t step_;
  std::exception_ptr cause_;
};

/// The graph is used in a way it does not support, e.g. a node calls `interrupt()` in a graph
/// compiled without a checkpointer (LangGraph's GraphValueError). Raised as is, not wrapped in
/// a NodeError, even when a node's call raised it.
class GraphValueError : public Error {
 public:
  using Error::Error;
};

/// A run passed one of its Limits (limits.hpp): an update, a checkpoint, the state or a message
/// larger than allowed. Raised as is (not wrapped in a NodeError) before anything over the limit
/// is applied or stored: the thread's last checkpoint stays as it was.
class LimitError : public Error {
 public:
  struct Detail {
    std::string limit;       ///< the Limits field: "max_update_bytes", "max_state_bytes", ...
    std::size_t configured;  ///< its value in this run
    std::size_t actual;      ///< the size found (at least this: measuring stops past the limit)
    std::string graph;
    std::string thread_id;   ///< empty without a checkpointer
    std::string node;        ///< the node whose update or message it is; empty for a whole checkpoint
    std::string field;       ///< the state key (or channel) involved; empty when it is no one key
  };
  explicit LimitError(Detail detail);
  const std::string& limit() const noexcept { return d_.limit; }
  std::size_t configured() const noexcept { return d_.configured; }
  std::size_t actual() const noexcept { return d_.actual; }
  const std::string& graph() const noexcept { return d_.graph; }
  const std::string& thread_id() const noexcept { return d_.thread_id; }
  const std::string& node() const noexcept { return d_.node; }
  const std::string& field() const noexcept { return d_.field; }

 private:
  Detail d_;
};

/// A stored checkpoint cannot be read or written.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

/// A chat model call failed: the server could not be reached, refused the request (the
/// server's message is quoted), or sent a reply that is not a valid chat completion.
class ChatModelError : public Error {
 public:
  explicit ChatModelError(const std::string& what, long status = 0, bool transient = false)
      : Error(what), status_(status), transient_(transient) {}
  /// The HTTP status, or 0 when no response arrived.
  long status() const noexcept { return status_; }
  /// Whether trying again later may succeed: the connection failed, was cut or timed out, or the
  /// server answered 408, 409, 429 or 5xx. The default RetryPolicy retries these (as
  /// LangGraph's retries connection errors and 5xx), not a reply that is not a chat completion.
  bool transient() const noexcept { return transient_; }

 private:
  long status_;
  bool transient_;
};

/// A tool was called with arguments that do not match its schema.
class ToolArgumentError : public Error {
 public:
  using Error::Error;
};

/// A model's structured output is not the JSON that was asked for.
class OutputParserError : public Error {
 public:
  using Error::Error;
};

}  // namespace superstep
