// A Command given as a run's input, mapped to writes (LangGraph's map_command): pure functions of
// the Program and, for resume, the thread's pending writes. The loop stores and applies what
// they return (input.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pregel/program.hpp"
#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/interrupt.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

/// The task id of writes that belong to no task (an input Command's, update_state's).
inline constexpr const char* kNullTask = "00000000-0000-0000-0000-000000000000";

/// Command.update and Command.go_to as writes of no task, by channel name: each updated key,
/// a Send as a __pregel_tasks write, a node as a write to its branch channel (END: nothing).
/// Throws: EmptyInputError for a Command with nothing in it; InvalidUpdateError for graph=PARENT,
/// an update that is not an object, an unknown key or node (naming the graph's keys or nodes).
std::vector<std::pair<std::string, json>> map_command(const Program& g, const Command& command);

/// What Command.resume answers on a thread whose checkpoint has `pending` writes.
struct ResumeMapping {
  /// The value answers the next interrupt() call of any task (no id given).
  std::optional<json> null_resume;
  /// No interrupt was pending: the value is stored once the first plan has a task (else the
  /// thread has finished, and the run stores nothing).
  bool needs_task = false;
  /// ... and it answered interrupts by id (an error when a task does run).
  bool by_id_unmatched = false;
  /// Answers by interrupt id (subgraph tasks look theirs up here), or an empty object.
  json by_id = json::object();
  /// Per task answered by id: all its answers so far (its stored __resume__ plus the new one).
  std::vector<std::pair<std::string, json>> task_answers;
  /// One pending interrupt answered by value: a __resume__ write of no task.
  bool resume_write = false;
};

/// Maps `resume` onto the interrupts pending in `pending`: those of tasks that have not finished
/// since. As LangGraph: an object whose keys all look like interrupt ids answers interrupts by
/// id (ids answered before are skipped); anything else is one value, which answers the one
/// pending interrupt, or the first interrupt() the run reaches when none is pending.
/// Throws: InvalidUpdateError naming the graph and thread for an id of no pending interrupt, a
/// resume answering only interrupts answered before, or a value with several pending.
ResumeMapping map_resume(const std::string& graph, const std::string& thread, const std::vector<PendingWrite>& pending,
                         const json& resume);

/// The interrupts stored as a write's value ([{value, id}, ...]).
std::vector<Interrupt> interrupts_from(const json& v);
/// Whether `key` has the form of an interrupt id (32 lowercase hex digits).
bool looks_like_interrupt_id(const std::string& key);
/// Whether `channel` is one of the channels of interrupts, errors, schedules and resumes (not
/// state or control).
bool special_channel(const std::string& channel);

}  // namespace superstep::internal
