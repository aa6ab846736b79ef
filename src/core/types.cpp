#include "superstep/types.hpp"

#include <algorithm>
#include <random>

#include "superstep/errors.hpp"
#include "superstep/stream.hpp"

namespace superstep {

bool RetryPolicy::should_retry(std::exception_ptr error) const {
  // A subgraph node's failure is a NodeError naming the node inside that failed: as LangGraph
  // (which raises that node's own exception), the policy decides on what that node threw.
  try {
    std::rethrow_exception(error);
  } catch (const NodeError& e) {
    if (e.cause()) error = e.cause();
  } catch (...) {
  }
  if (retry_on) return retry_on(error);
  try {
    std::rethrow_exception(error);
  } catch (const ChatModelError& e) {
    return e.transient();
  } catch (const Error&) {
    return false;
  } catch (const std::logic_error&) {
    return false;
  } catch (...) {
    return true;
  }
}

std::chrono::duration<double> RetryPolicy::interval_after(int attempt) const {
  double interval = initial_interval;
  for (int i = 1; i < attempt; ++i) interval *= backoff_factor;
  interval = std::min(interval, max_interval);
  if (jitter) {
    thread_local std::mt19937 gen{std::random_device{}()};
    interval += std::uniform_real_distribution<double>(0.0, 1.0)(gen) * std::min(interval, 1.0) * 0.25;
  }
  return std::chrono::duration<double>(std::max(0.0, interval));
}

std::string_view to_string(StreamMode mode) {
  switch (mode) {
    case StreamMode::values: return "values";
    case StreamMode::updates: return "updates";
    case StreamMode::custom: return "custom";
    case StreamMode::messages: return "messages";
    case StreamMode::debug: return "debug";
    case StreamMode::tasks: return "tasks";
    case StreamMode::checkpoints: return "checkpoints";
  }
  return "?";
}

std::optional<StreamMode> parse_stream_mode(std::string_view name) {
  for (auto m : {StreamMode::values, StreamMode::updates, StreamMode::custom, StreamMode::messages, StreamMode::debug,
                 StreamMode::tasks, StreamMode::checkpoints})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

}  // namespace superstep
