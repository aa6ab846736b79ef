// Human in the loop: interrupt() pauses a run inside a node; the run is resumed later with
// invoke(sp::Command{.resume = value}, config) on the same thread. Needs a checkpointer.
//
//   g.add_node("approve", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
//     json answer = sp::interrupt(rt, json{{"question", "ship it?"}});   // pauses here
//     return json{{"approved", answer == "yes"}};                        // runs on resume
//   });
//
// On resume the node runs again from the top; its k-th interrupt() call returns the k-th
// resume value given to that task. Code before an interrupt() therefore runs again: keep side
// effects after it, or make them idempotent.
#pragma once

#include <string>
#include <vector>

#include "superstep/errors.hpp"
#include "superstep/json.hpp"

namespace superstep {

class Runtime;

/// A pending interrupt: the value the node passed to interrupt() and the id a resume map uses.
struct Interrupt {
  json value;
  std::string id;
  /// `{"value": ..., "id": ...}` (LangGraph's wire form).
  json to_json() const { return json{{"id", id}, {"value", value}}; }
  bool operator==(const Interrupt&) const = default;
};

/// The signal interrupt() raises to stop its task. The engine catches it at the task boundary;
/// a node must let it pass (do not swallow it with catch (...)). Never retried.
class GraphInterrupt : public Error {
 public:
  explicit GraphInterrupt(std::vector<Interrupt> interrupts)
      : Error("graph interrupted"), interrupts_(std::move(interrupts)) {}
  const std::vector<Interrupt>& interrupts() const noexcept { return interrupts_; }

 private:
  std::vector<Interrupt> interrupts_;
};

/// Pauses the run and surfaces `value` to the caller (as `__interrupt__` in the result and in
/// the `updates`/`values` streams, and in get_state().tasks). Returns: the resume value once the
/// run is resumed. Throws: GraphInterrupt (to pause); Error when the graph has no checkpointer.
/// A tool calls it with the Runtime it is given (ToolNode's node's): the tools node pauses.
json interrupt(const Runtime& rt, json value);

}  // namespace superstep
