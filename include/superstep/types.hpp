// Small value types shared by the graph builder, nodes and the runtime: START/END, Send,
// Command, Overwrite, RetryPolicy. All are plain values, safe to copy and move across threads.
#pragma once

#include <chrono>
#include <concepts>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "superstep/value.hpp"
#include "superstep/json.hpp"

namespace superstep {

/// The virtual entry node: `add_edge(START, "first")`.
inline const std::string START = "__start__";
/// The virtual exit node: `add_edge("last", END)`, or a router returning END.
inline const std::string END = "__end__";

/// Runs `node` in the next superstep with `arg` as its whole input (map-reduce fan-out).
/// Returned by routers (`std::vector<Send>`) or put in `Command::go_to`.
struct Send {
  std::string node;
  json arg;
  /// Typed state: the argument as a C++ value (made by sp::send<S>); then `arg` is unused.
  std::shared_ptr<const void> typed_arg;
  bool operator==(const Send& o) const { return node == o.node && arg == o.arg && typed_arg == o.typed_arg; }
};

/// One destination of a route: a node name (or END) or a Send.
using Destination = std::variant<std::string, Send>;

/// What a router returns and what `Command::go_to` holds: zero or more destinations.
/// Converts from a name, a Send, or lists of either.
class Route {
 public:
  Route() = default;
  Route(const char* node) { items_.emplace_back(std::string(node)); }
  Route(std::string node) { items_.emplace_back(std::move(node)); }
  Route(std::string_view node) { items_.emplace_back(std::string(node)); }
  Route(Send send) { items_.emplace_back(std::move(send)); }
  Route(std::vector<std::string> nodes) {
    for (auto& n : nodes) items_.emplace_back(std::move(n));
  }
  Route(std::vector<Send> sends) {
    for (auto& s : sends) items_.emplace_back(std::move(s));
  }
  Route(std::vector<Destination> items) : items_(std::move(items)) {}
  Route(std::initializer_list<Destination> items) : items_(items) {}

  const std::vector<Destination>& items() const noexcept { return items_; }
  std::vector<Destination>& items() noexcept { return items_; }
  bool empty() const noexcept { return items_.empty(); }

 private:
  std::vector<Destination> items_;
};

/// Replaces a reducer key's value instead of folding into it: `{"messages", Overwrite{...}}`.
/// In JSON it is the object `{"__overwrite__": value}` (LangGraph's wire form).
struct Overwrite {
  json value;
};
inline constexpr const char* kOverwriteKey = "__overwrite__";
inline void to_json(json& j, const Overwrite& o) { j = json{{kOverwriteKey, o.value}}; }

/// A node's combined state update and control flow: `Command{.update = {...}, .go_to = "b"}`.
struct Command {
  json update;           ///< object of key -> value, or null
  Route go_to;           ///< nodes (or Sends) to run next, in addition to static edges
  json resume;           ///< resume value(s) for interrupts (persistence work)
  std::string graph;     ///< "" = this graph; Command::PARENT = the enclosing graph
  inline static const std::string PARENT = "__parent__";
};

namespace internal {
/// A typed node's field writes kept by field (made by sp::Update<S>), so that the step's only
/// task can fold them into the field channels without boxing each one.
class TypedBatch {
 public:
  virtual ~TypedBatch() = default;
  /// Drops any writes left and deletes the batch, or keeps it for reuse by this thread.
  virtual void release() noexcept = 0;
  struct Release {
    void operator()(TypedBatch* b) const noexcept { b->release(); }
  };
  /// Moves the writes out as (field index, FieldWrite<T>) pairs; per field in the order made.
  virtual void explode(std::vector<std::pair<int, Value>>& out) = 0;
  // Folding a batch into the field channels is the typed model's (TypedModel::apply): a batch
  // is data, below the channels.
  /// Whether the batch holds a write to field `field`.
  virtual bool writes(int field) const = 0;
};

/// A typed node's update: the fields it sets, (field index, FieldWrite<T>) pairs and/or a
/// batch, and its routing.
struct WriteList {
  std::vector<std::pair<int, Value>> writes;
  std::unique_ptr<TypedBatch, TypedBatch::Release> batch;
  Route go_to;
  /// Moves the batch's writes into `writes`.
  void flatten() {
    if (batch) {
      batch->explode(writes);
      batch.reset();
    }
  }
};
}  // namespace internal

/// What a node returns: a JSON object update, a Command, a list of those, or nothing (typed
/// nodes: a WriteList made from sp::Update<S>).
///
/// A list (LangGraph's node returning an array with Commands, as ToolNode does when tools
/// return Commands) is applied item by item, in order, as the task's writes: each update's
/// keys and each Command's update are separate writes (two writes to a reducer key both fold
/// in; two to a plain key are an InvalidUpdateError), and every Command's `go_to` is followed.
/// A Command with graph=PARENT in a list goes to the parent graph (the first one; the task's
/// other items are then not applied), as a single one does. As in LangGraph, a list must hold
/// at least one Command (InvalidUpdateError otherwise).
/// An item of a node's list result: a JSON object update or a Command.
using ResultItem = std::variant<json, Command>;

class NodeResult {
 public:
  NodeResult() = default;
  NodeResult(std::nullptr_t) {}
  NodeResult(json update) : value_(std::move(update)) {}
  NodeResult(Command command) : value_(std::move(command)) {}
  /// `return std::vector<sp::ResultItem>{json{{"a", 1}}, sp::Command{.go_to = "b"}};` (a vector
  /// only: a braced list converts to NodeResult as it did before, through json).
  template <class V>
    requires std::same_as<std::remove_cvref_t<V>, std::vector<ResultItem>>
  NodeResult(V&& items) : value_(std::forward<V>(items)) {}
  NodeResult(internal::WriteList writes) : value_(std::move(writes)) {}
  internal::WriteList* typed_writes() noexcept { return std::get_if<internal::WriteList>(&value_); }
  bool is_list() const noexcept { return std::holds_alternative<std::vector<ResultItem>>(value_); }
  const std::vector<ResultItem>* list() const noexcept { return std::get_if<std::vector<ResultItem>>(&value_); }
  std::vector<ResultItem>* list() noexcept { return std::get_if<std::vector<ResultItem>>(&value_); }

  bool is_none() const noexcept { return std::holds_alternative<std::monostate>(value_); }
  bool is_command() const noexcept { return std::holds_alternative<Command>(value_); }
  const json* update() const noexcept { return std::get_if<json>(&value_); }
  json* update() noexcept { return std::get_if<json>(&value_); }
  const Command* command() const noexcept { return std::get_if<Command>(&value_); }
  Command* command() noexcept { return std::get_if<Command>(&value_); }

 private:
  std::variant<std::monostate, json, Command, std::vector<ResultItem>, internal::WriteList> value_;
};

/// How a failing node is retried (LangGraph's RetryPolicy). Intervals are in seconds.
struct RetryPolicy {
  double initial_interval = 0.5;
  double backoff_factor = 2.0;
  double max_interval = 128.0;
  int max_attempts = 3;
  bool jitter = true;
  /// Which failures are retried. Default: everything except superstep::Error (engine errors
  /// such as InvalidUpdateError) and std::logic_error (programming errors), but a transient
  /// ChatModelError (connection failed, cut or timed out; HTTP 408, 409, 429, 5xx) is retried.
  /// For a subgraph node, the decision (and `retry_on`'s argument) is what the node inside it
  /// threw (NodeError::cause()), as LangGraph; a retry runs the whole subgraph again.
  std::function<bool(std::exception_ptr)> retry_on;

  /// Whether `error` should be retried under this policy.
  bool should_retry(std::exception_ptr error) const;
  /// The pause before attempt `attempt` + 1 (attempt counts from 1).
  std::chrono::duration<double> interval_after(int attempt) const;
};

}  // namespace superstep
