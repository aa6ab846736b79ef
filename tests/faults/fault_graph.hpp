// The graph the storage fault tests run: one node, `step`, runs kSteps supersteps in a loop.
// Each step sets n to its number, appends it to `log` (an append reducer: a step applied twice
// or lost shows there) and sets `doc` to a large text (about 6 KB, stored in overflow pages of
// its own in SQLite) made of the marker "STEP<n>|". A hook called at the start of each step
// injects the fault mid-run.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <superstep/superstep.hpp>

namespace fault_test {

namespace sp = superstep;
using sp::json;

inline constexpr int kSteps = 6;

/// The text `doc` holds after step `n`.
inline std::string doc_of(int n) {
  std::string marker = "STEP" + std::to_string(n) + "|", out;
  while (out.size() < 6000) out += marker;
  return out;
}

/// Called at the start of step `n` (1..kSteps), on the task's thread, before the node writes.
using Hook = std::function<void(int n)>;

inline sp::CompiledStateGraph build(std::shared_ptr<sp::CheckpointSaver> saver, Hook hook = {},
                                    std::shared_ptr<std::atomic<int>> runs = nullptr) {
  sp::StateSchema s;
  s.field("n").field("log", sp::reducers::append).field("doc");
  sp::StateGraph g(s);
  g.add_node("step", [hook, runs](const sp::State& st) {
    int n = st.contains("n") ? st["n"].get<int>() + 1 : 1;
    if (runs) ++*runs;
    if (hook) hook(n);
    return json{{"n", n}, {"log", {n}}, {"doc", doc_of(n)}};
  });
  g.add_edge(sp::START, "step");
  g.add_conditional_edges("step", [](const sp::State& st) -> sp::Route {
    return st["n"].get<int>() < kSteps ? sp::Route("step") : sp::Route(sp::END);
  });
  return g.compile({.checkpointer = std::move(saver), .name = "faults"});
}

/// The final state of an uninterrupted run (on an in-memory saver).
inline json uninterrupted() {
  return build(std::make_shared<sp::InMemorySaver>()).invoke(json{{"n", 0}}, sp::RunConfig{.thread_id = "ref"});
}

/// The error message of `f`'s CheckpointError; fails the test when it throws anything else or nothing.
template <class F>
inline std::string checkpoint_error(F&& f) {
  try {
    f();
  } catch (const sp::CheckpointError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a CheckpointError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected a CheckpointError, the run succeeded";
  return "";
}

inline sp::RunConfig thread(const std::string& id) { return sp::RunConfig{.thread_id = id}; }

/// The state of thread `id` as stored: n of the latest checkpoint, and that its log is 1..n
/// (no step lost or applied twice up to there) and its doc the one of step n.
inline int stored_step(const sp::CompiledStateGraph& app, const std::string& id) {
  json v = app.get_state(thread(id)).values;
  int n = v.value("n", 0);
  json log = json::array();
  for (int i = 1; i <= n; ++i) log.push_back(i);
  EXPECT_EQ(v.value("log", json::array()), log);
  if (n > 0) {
    EXPECT_EQ(v.value("doc", ""), fault_test::doc_of(n));
  }
  return n;
}

/// Every checkpoint of the history is readable and consistent (log 1..n for each).
inline void expect_history_readable(const sp::CompiledStateGraph& app, const std::string& id, int newest) {
  auto history = app.get_state_history(thread(id));
  ASSERT_FALSE(history.empty());
  EXPECT_LE(history.front().values.value("n", 0), newest);  // get_state also shows saved writes of the next step
  for (const auto& snap : history) {
    int n = snap.values.value("n", 0);
    EXPECT_EQ(snap.values.value("log", json::array()).size(), static_cast<std::size_t>(n));
  }
}

}  // namespace fault_test
