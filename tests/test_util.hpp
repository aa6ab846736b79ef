// Helpers shared by the tests.
#pragma once

#include <string>
#include <vector>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace testing_util {

/// Every part of a stream as [mode, data] pairs (LangGraph's multi-mode tuple shape).
inline json collect(sp::Stream&& stream) {
  json out = json::array();
  for (const sp::StreamPart& p : stream) out.push_back(json::array({std::string(sp::to_string(p.mode)), p.data}));
  return out;
}

/// The `trace` schema most tests use: `trace` appends, `n` is a plain value.
inline sp::StateSchema trace_schema() {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append).field("n");
  return s;
}

/// A node that appends its name to `trace`.
inline sp::NodeFn tracer(const std::string& name) {
  return [name](const sp::State&) { return json{{"trace", json::array({name})}}; };
}

/// A pool per worker count, kept for the whole test program.
inline std::shared_ptr<sp::ThreadPool> pool(std::size_t workers) {
  static std::map<std::size_t, std::shared_ptr<sp::ThreadPool>> pools;
  static std::mutex m;
  std::lock_guard lock(m);
  auto& p = pools[workers];
  if (!p) p = std::make_shared<sp::ThreadPool>(workers);
  return p;
}

}  // namespace testing_util
