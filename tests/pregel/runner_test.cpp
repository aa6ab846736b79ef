// The runner alone (src/pregel/runner.hpp): a step's tasks run on the pool or on this thread,
// plain and coroutine nodes, retries, results collected into each task's buffers, the host told
// of each finished task, and the step's end told through the outbox. No loop, no saver: the test
// plans with RunState and plays the loop's part (RunnerHost) itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "pregel/algo.hpp"
#include "pregel/run_state.hpp"
#include "pregel/runner.hpp"
#include "test_util.hpp"

namespace {

using namespace superstep::internal;
using testing_util::trace_schema;
using testing_util::tracer;

/// Plays the loop: records which tasks finished, and refuses to save the writes of `refuse`.
class Host final : public RunnerHost {
 public:
  std::string refuse;
  std::mutex m;
  std::vector<std::string> saved, streamed;
  std::set<std::thread::id> threads;

  void save_task_writes(ExecutableTask& t) override {
    std::lock_guard lock(m);
    if (t.node->name == refuse) throw std::runtime_error("disk full");
    saved.push_back(t.node->name);
  }
  void stream_task_result(ExecutableTask& t) override {
    std::lock_guard lock(m);
    streamed.push_back(t.node->name);
    threads.insert(std::this_thread::get_id());
  }
};

/// One run's state over a compiled graph, planned and applied by hand around the runner.
class Step {
 public:
  /// `modes`: what the run streams (the runner asks the host to stream a task only when some
  /// mode is wanted).
  explicit Step(const sp::CompiledStateGraph& app, bool checkpointed = false,
                std::vector<sp::StreamMode> modes = {sp::StreamMode::updates})
      : s_(program_of(app), {}, nullptr) {
    s_.out.set_modes(modes);
    ChannelPool::Set set = s_.g->channel_pool->acquire(*s_.g);
    s_.cs = std::move(set.state);
    s_.checkpointed = checkpointed;
    start_channels(*s_.g, s_.cs);
    sp::Value in = json::object();
    s_.cs.channels[s_.g->start_channel]->update_values(std::span<sp::Value>(&in, 1));
  }

  RunState& state() { return s_; }

  /// Plans the next step; returns its tasks' node names.
  std::vector<std::string> plan() {
    s_.prepare_next_tasks(nullptr);
    std::vector<std::string> names;
    for (const auto& t : s_.tasks) names.push_back(t->node->name);
    return names;
  }
  /// Runs the planned step and waits for its end as the loop does; returns whether it ran on
  /// this thread alone.
  bool run(PregelRunner& runner, bool inline_tasks) {
    runner.start_step(inline_tasks);
    const bool solo = runner.solo() && s_.out.done_inline();
    std::deque<sp::StreamPart> ready;
    while (!s_.out.collect(ready, runner.solo() && s_.out.done_inline())) {
    }
    return solo;
  }
  void apply() { apply_writes(*s_.g, s_.cs, s_.tasks, s_.step++); }
  /// Runs and applies the __start__ step, then plans the step after it.
  void past_start(PregelRunner& runner) {
    plan();
    run(runner, true);
    apply();
    plan();
  }
  ExecutableTask& task(const std::string& name) {
    for (auto& t : s_.tasks)
      if (t->node->name == name) return *t;
    throw std::out_of_range(name);
  }
  json writes(const std::string& name) {
    json out = json::object();
    for (const auto& [c, v] : task(name).writes) out[s_.g->state_keys[c]] = v.to_json();
    return out;
  }

 private:
  RunState s_;
};

sp::CompiledStateGraph fan_out(sp::StateGraph& g, std::shared_ptr<sp::ThreadPool> pool) {
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
  return g.compile({.executor = std::move(pool)});
}

TEST(Runner, TheStartTaskRunsOnThisThreadAloneAndMapsTheInput) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  auto app = g.compile({.executor = testing_util::pool(2)});
  Step step(app);
  Host host;
  PregelRunner runner(step.state(), host);
  ASSERT_EQ(step.plan(), std::vector<std::string>{"__start__"});
  EXPECT_TRUE(step.run(runner, /*inline_tasks=*/false));  // even when tasks may not run inline
  EXPECT_TRUE(host.streamed.empty());                     // __start__ is not streamed
  step.apply();
  EXPECT_EQ(step.plan(), std::vector<std::string>{"a"});
}

TEST(Runner, EveryTaskOfAStepRunsOnThePoolAndItsHostHearsOfEach) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  auto app = fan_out(g, testing_util::pool(2));
  Step step(app);
  Host host;
  PregelRunner runner(step.state(), host);
  step.plan();
  step.run(runner, false);
  step.apply();
  ASSERT_EQ(step.plan(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(step.run(runner, /*inline_tasks=*/false));
  std::sort(host.streamed.begin(), host.streamed.end());
  EXPECT_EQ(host.streamed, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(host.threads.contains(std::this_thread::get_id()));  // not inline: pool workers only
  EXPECT_TRUE(host.saved.empty());  // not checkpointed: nothing to save
  for (std::string n : {"a", "b", "c"}) EXPECT_EQ(step.writes(n), (json{{"trace", {n}}})) << n;
  runner.end_step();
  step.apply();
  EXPECT_TRUE(step.plan().empty());
}

TEST(Runner, AFailedAttemptIsRetriedAndOnlyTheLastAttemptsWritesCount) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("c", tracer("c"));
  g.add_node("b", [&](const sp::State&) -> sp::NodeResult {
    if (++calls < 3) throw std::runtime_error("503");
    return json{{"trace", {"b"}}};
  }, {.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 3, .jitter = false}});
  auto app = fan_out(g, testing_util::pool(2));
  Step step(app, /*checkpointed=*/true);
  Host host;
  PregelRunner runner(step.state(), host);
  step.past_start(runner);
  step.run(runner, /*inline_tasks=*/true);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(step.task("b").attempt, 3);
  EXPECT_FALSE(step.task("b").error);
  EXPECT_EQ(step.writes("b"), (json{{"trace", {"b"}}}));
  EXPECT_FALSE(runner.cancelled());
  std::sort(host.saved.begin(), host.saved.end());  // each task's writes saved once, after its last attempt
  EXPECT_EQ(host.saved, (std::vector<std::string>{"__start__", "a", "b", "c"}));
}

TEST(Runner, AFailedTaskLetsItsSiblingsRunAndTellsThemTheStepFailed) {
  std::atomic<bool> sibling_saw_cancel{false};
  std::atomic<bool> failed{false};
  std::atomic<PregelRunner*> runner_of_b{nullptr};  // what b's Runtime::cancelled() asks, without a loop
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) -> sp::NodeResult {
    failed = true;
    throw std::runtime_error("boom");
  });
  g.add_node("b", [&](const sp::State&) -> sp::NodeResult {
    while (!failed) std::this_thread::yield();
    // a's failure is recorded when a finishes, after it threw: wait for it.
    for (int i = 0; i < 1000000 && !runner_of_b.load()->cancelled(); ++i) std::this_thread::yield();
    sibling_saw_cancel = runner_of_b.load()->cancelled();
    return json{{"trace", {"b"}}};
  });
  g.add_node("c", tracer("c"));
  auto app = fan_out(g, testing_util::pool(1));
  Step step(app);
  Host host;
  PregelRunner runner(step.state(), host);
  runner_of_b = &runner;
  step.past_start(runner);
  // One worker and this thread: a and b run at once (b waits for a), then c.
  step.run(runner, /*inline_tasks=*/true);
  EXPECT_TRUE(step.task("a").error);
  EXPECT_TRUE(step.task("a").error_from_node);
  EXPECT_FALSE(step.task("b").error);
  EXPECT_FALSE(step.task("c").error);  // not skipped: its writes would be saved for a resume
  EXPECT_EQ(step.writes("c"), (json{{"trace", {"c"}}}));
  EXPECT_TRUE(sibling_saw_cancel);
  EXPECT_TRUE(runner.cancelled());
}

TEST(Runner, ASaverRefusalFailsTheTaskAsTheEnginesErrorAndSkipsTasksNotStarted) {
  std::atomic<int> ran{0};
  sp::StateGraph g(trace_schema());
  for (std::string n : {"a", "b", "c"})
    g.add_node(n, [&, n](const sp::State&) -> sp::NodeResult {
      ++ran;
      return json{{"trace", {n}}};
    });
  auto app = fan_out(g, testing_util::pool(2));
  Step step(app, /*checkpointed=*/true);
  Host host;
  host.refuse = "a";
  PregelRunner runner(step.state(), host);
  step.past_start(runner);
  step.state().config.max_concurrency = 1;  // one at a time, in plan order: b and c start after a's refusal
  step.run(runner, /*inline_tasks=*/true);
  ExecutableTask& a = step.task("a");
  ASSERT_TRUE(a.error);
  EXPECT_FALSE(a.error_from_node);  // the saver's, not the node's: not wrapped in NodeError
  EXPECT_EQ(describe(a.error), "disk full");
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(runner.cancelled());
  std::sort(host.streamed.begin(), host.streamed.end());
  EXPECT_EQ(host.streamed, (std::vector<std::string>{"a", "b", "c"}));  // every task's end is told
}

TEST(Runner, ACoroutineNodeFinishesWhereItResumesAndItsResultIsCollected) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", [](const sp::State&, sp::Runtime&) -> sp::Task<sp::NodeResult> { co_return json{{"trace", {"a"}}}; });
  g.add_node("b", tracer("b")).add_node("c", tracer("c"));
  auto app = fan_out(g, testing_util::pool(2));
  Step step(app);
  Host host;
  PregelRunner runner(step.state(), host);
  step.past_start(runner);
  EXPECT_FALSE(step.run(runner, /*inline_tasks=*/true));
  EXPECT_EQ(step.writes("a"), (json{{"trace", {"a"}}}));
  EXPECT_EQ(host.streamed.size(), 3u);
}

TEST(Runner, ARunStreamingNoModeSavesEachTaskButStreamsNone) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  auto app = fan_out(g, testing_util::pool(2));
  Step step(app, /*checkpointed=*/true, /*modes=*/{});
  Host host;
  PregelRunner runner(step.state(), host);
  step.past_start(runner);
  step.run(runner, /*inline_tasks=*/true);
  EXPECT_TRUE(host.streamed.empty());
  EXPECT_EQ(host.saved.size(), 4u);  // __start__, a, b, c
  for (std::string n : {"a", "b", "c"}) EXPECT_EQ(step.writes(n), (json{{"trace", {n}}})) << n;
}

}  // namespace
