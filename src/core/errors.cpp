#include "superstep/errors.hpp"

namespace superstep {
namespace {
std::string join_problems(const std::vector<std::string>& problems) {
  std::string out = problems.size() == 1 ? "invalid graph: " : "invalid graph (" + std::to_string(problems.size()) + " problems):";
  if (problems.size() == 1) return out + problems.front();
  for (const auto& p : problems) out += "\n  - " + p;
  return out;
}
}  // namespace

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
