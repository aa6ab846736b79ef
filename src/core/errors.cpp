#include "superstep/errors.hpp"

#include <map>

namespace superstep {
namespace {
std::string join_problems(const std::vector<std::string>& problems) {
  std::string out = problems.size() == 1 ? "invalid graph: " : "invalid graph (" + std::to_string(problems.size()) + " problems):";
  if (problems.size() == 1) return out + problems.front();
  for (const auto& p : problems) out += "\n  - " + p;
  return out;
}
std::string describe_limit(const LimitError::Detail& d) {
  static const std::map<std::string, std::string, std::less<>> what = {
      {"max_update_bytes", "an update"},
      {"max_checkpoint_bytes", "a checkpoint"},
      {"max_state_bytes", "the state"},
      {"max_message_bytes", "a message"}};
  auto it = what.find(d.limit);
  std::string out = "graph '" + d.graph + "'";
  if (!d.thread_id.empty()) out += ", thread '" + d.thread_id + "'";
  if (!d.node.empty()) out += ", node '" + d.node + "'";
  if (!d.field.empty()) out += ", key '" + d.field + "'";
  const bool whole = d.limit == "max_checkpoint_bytes" || d.limit == "max_state_bytes";
  out += ": " + (it == what.end() ? std::string("a value") : it->second) + " of at least " + std::to_string(d.actual) +
         " bytes is over Limits::" + d.limit + " (" + std::to_string(d.configured) + " bytes); " +
         (whole ? "the step's checkpoint was not stored (its tasks' saved writes are kept for a later run)"
                : "nothing of it was applied or stored") +
         ". Raise the limit (CompileOptions::limits or RunConfig::limits) if such sizes are expected";
  return out;
}
}  // namespace

LimitError::LimitError(Detail detail) : Error(describe_limit(detail)), d_(std::move(detail)) {}

GraphValidationError::GraphValidationError(std::vector<std::string> problems)
    : Error(join_problems(problems)), problems_(std::move(problems)) {}

NodeError::NodeError(std::string node, std::string task_id, int64_t step, std::exception_ptr cause,
                     const std::string& what_cause)
    : Error("node '" + node + "' failed in step " + std::to_string(step) + " (task " + task_id + "): " + what_cause),
      node_(std::move(node)),
      task_id_(std::move(task_id)),
      step_(step),
      cause_(std::move(cause)) {}

}  // namespace superstep
