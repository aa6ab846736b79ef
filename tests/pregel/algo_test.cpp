// Planning and the barrier alone (src/pregel/algo.hpp): no pool, no saver, no stream. A graph is
// compiled into its Program; each step the test plans the tasks (triggered_nodes and the
// pending Sends, as the loop does), gives each task the result its node would return
// (collect_writes) and applies the writes. Joins, Sends, Commands, deferred nodes, reducers,
// versions and triggers, as LangGraph's _algo defines them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "pregel/algo.hpp"
#include "test_util.hpp"

namespace {

using namespace superstep::internal;
using testing_util::trace_schema;

/// What a node returns, by task name ("name", or "name[i]" for PUSH task i).
using Results = std::map<std::string, std::variant<json, sp::Command>>;

/// One run's ChannelState over a compiled graph, stepped by hand.
class Algo {
 public:
  explicit Algo(const sp::CompiledStateGraph& app)
      : g_(program_of(app)), set_(g_->channel_pool->acquire(*g_)), s_(set_.state) {
    start_channels(*g_, s_);
  }
  ~Algo() {
    tasks_.clear();
    g_->channel_pool->release(std::move(set_), *g_);
  }

  const Program& g() const { return *g_; }
  ChannelState& s() { return s_; }

  /// The run's input, as the loop writes it to __start__.
  void input(json in) {
    sp::Value v = std::move(in);
    s_.channels[g_->start_channel]->update_values(std::span<sp::Value>(&v, 1));
  }

  /// Plans the next step: PUSH tasks (pending Sends, in Send order) then PULL tasks (triggered
  /// nodes, in name order). Returns their names, a PUSH task as "name[i]".
  std::vector<std::string> plan() {
    tasks_.clear();
    for (std::size_t i = 0; i < s_.pending_sends.size(); ++i) {
      sp::Send& send = s_.pending_sends[i];
      TaskPtr t(new ExecutableTask());
      t->node = &g_->nodes[g_->find_node(send.node)];
      t->step = step_;
      t->push = true;
      t->push_index = i;
      t->send_arg = std::move(send.arg);
      tasks_.push_back(std::move(t));
    }
    s_.pending_sends.clear();
    for (int n : triggered_nodes(*g_, s_)) {
      TaskPtr t(new ExecutableTask());
      t->node = &g_->nodes[n];
      t->step = step_;
      tasks_.push_back(std::move(t));
    }
    std::vector<std::string> names;
    for (auto& t : tasks_) {
      t->runtime.emplace(*t);
      names.push_back(t->push ? t->node->name + "[" + std::to_string(t->push_index) + "]" : t->node->name);
    }
    return names;
  }

  /// The Send argument of the planned PUSH task `i`.
  json send_arg(std::size_t i) const { return tasks_.at(i)->send_arg.value_or(json()); }

  /// Finishes the planned step: each task gets results[its name] (none: an empty result), its
  /// results collected in `completion` order (default: planned order), then the writes apply.
  void finish(const Results& results = {}, std::vector<std::size_t> completion = {}) {
    if (completion.empty())
      for (std::size_t i = 0; i < tasks_.size(); ++i) completion.push_back(i);
    for (std::size_t i : completion) {
      ExecutableTask& t = *tasks_.at(i);
      std::string name = t.push ? t.node->name + "[" + std::to_string(t.push_index) + "]" : t.node->name;
      sp::NodeResult r;
      if (auto it = results.find(name); it != results.end())
        r = std::visit([](const auto& v) { return sp::NodeResult(v); }, it->second);
      else if (t.node->is_start) r = sp::NodeResult(start_input());
      collect_writes(*g_, t, std::move(r), {.keep_update = true});
    }
    apply_writes(*g_, s_, tasks_, step_++);
    tasks_.clear();
  }

  /// Runs steps (each task with an empty result unless `results` names it) until nothing is
  /// planned. Returns each step's plan.
  std::vector<std::vector<std::string>> run(const Results& results = {}) {
    std::vector<std::vector<std::string>> steps;
    for (auto p = plan(); !p.empty(); p = plan()) {
      steps.push_back(p);
      finish(results);
    }
    return steps;
  }

  /// A state key's value (null when it has none).
  json value(const std::string& key) const {
    const json* v = static_cast<const sp::JsonChannel*>(s_.channels[g_->find_key(key)])->peek();
    return v ? *v : json();
  }
  uint64_t version(const std::string& channel) const { return s_.versions[g_->find_channel(channel)]; }

 private:
  json start_input() const {
    const json* in = static_cast<const sp::JsonChannel*>(s_.channels[g_->start_channel])->peek();
    return in ? *in : json::object();
  }

  std::shared_ptr<const Program> g_;
  ChannelPool::Set set_;
  ChannelState& s_;
  std::vector<TaskPtr> tasks_;
  int64_t step_ = 0;
};

using Plan = std::vector<std::string>;
using Steps = std::vector<Plan>;

sp::StateGraph chain() {
  sp::StateGraph g(trace_schema());
  g.add_node("a", testing_util::tracer("a")).add_node("b", testing_util::tracer("b"));
  g.add_edge(sp::START, "a").add_edge("a", "b");
  return g;
}

TEST(Algo, TheInputTriggersStartThenEdgesTriggerOneNodeAStep) {
  auto app = chain().compile();
  Algo run(app);
  run.input({{"n", 1}});
  EXPECT_EQ(run.plan(), (Plan{"__start__"}));
  run.finish();
  EXPECT_EQ(run.value("n"), 1);
  EXPECT_EQ(run.plan(), (Plan{"a"}));
  run.finish({{"a", json{{"trace", {"a"}}}}});
  EXPECT_EQ(run.plan(), (Plan{"b"}));
  run.finish({{"b", json{{"trace", {"b"}}}}});
  EXPECT_EQ(run.plan(), Plan{});  // nothing triggered: the run is over
  EXPECT_EQ(run.value("trace"), json::array({"a", "b"}));
}

TEST(Algo, WithoutInputNothingRuns) {
  auto app = chain().compile();
  Algo run(app);
  EXPECT_EQ(run.plan(), Plan{}) << "__start__ holds no value: it is not available";
}

TEST(Algo, EachStepGivesItsUpdatesOneNewVersionAndANodeRunsOnlyOnANewerTrigger) {
  auto app = chain().compile();
  Algo run(app);
  run.input(json::object());
  run.plan();
  run.finish();  // __start__
  const uint64_t to_a = run.version("branch:to:a");
  EXPECT_GT(to_a, run.version("__start__") - 1);
  run.plan();
  run.finish({{"a", json{{"trace", {"a"}}, {"n", 1}}}});
  // Both keys a wrote carry the step's one version, above every earlier one.
  EXPECT_EQ(run.version("trace"), run.version("n"));
  EXPECT_EQ(run.version("trace"), run.version("branch:to:b"));
  EXPECT_GT(run.version("trace"), to_a);
  // a consumed its trigger and saw its version: planning again does not run it.
  const NodeData& a = run.g().nodes[run.g().find_node("a")];
  EXPECT_EQ(run.s().seen[a.id][0], to_a);
  EXPECT_EQ(run.plan(), (Plan{"b"}));
  // A state key is no trigger: writing `n` again wakes nobody once b is done.
  run.finish({{"b", json{{"n", 2}}}});
  EXPECT_EQ(run.plan(), Plan{});
  // b consumed its trigger at its barrier: the trigger's version moved past what b saw.
  const int to_b = run.g().find_channel("branch:to:b");
  const NodeData& b = run.g().nodes[run.g().find_node("b")];
  EXPECT_GT(run.s().versions[to_b], run.s().seen[b.id][0]);
  // A trigger holding a value at the version b saw does not run b again; a newer version does.
  sp::Value v = json(nullptr);
  run.s().channels[to_b]->update_values(std::span<sp::Value>(&v, 1));
  run.s().seen[b.id][0] = run.s().versions[to_b];
  run.s().updated = {to_b};
  EXPECT_EQ(run.plan(), Plan{});
  run.s().versions[to_b] = run.s().next_version();
  EXPECT_EQ(run.plan(), (Plan{"b"}));
}

TEST(Algo, AJoinWaitsForEveryNodeWhateverTheStepsTheyRanIn) {
  sp::StateGraph g(trace_schema());
  for (const char* n : {"a", "b", "slow", "c"}) g.add_node(n, testing_util::tracer(n));
  g.add_edge(sp::START, "a").add_edge(sp::START, "slow").add_edge("slow", "b");
  g.add_edge(std::vector<std::string>{"a", "b"}, "c");
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  EXPECT_EQ(run.run(), (Steps{{"__start__"}, {"a", "slow"}, {"b"}, {"c"}}))
      << "c waits for b, which runs a step after a";
}

TEST(Algo, WritesToOneKeyApplyInPathOrderNotCompletionOrder) {
  // Path order: PULL tasks by node name, then PUSH tasks by Send index, though planning puts
  // the PUSH tasks first and the tasks finish in any order.
  sp::StateGraph g(trace_schema());
  for (const char* n : {"fan", "x", "y", "z", "w"}) g.add_node(n, testing_util::tracer(n));
  g.add_edge(sp::START, "fan");
  for (const char* n : {"z", "x", "y"}) g.add_edge("fan", n);
  g.add_conditional_edges("fan", [](const sp::State&) {
    return sp::Route(std::vector<sp::Send>{{"w", json(0)}, {"w", json(1)}});
  });
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  run.plan();
  run.finish();
  run.plan();
  run.finish();
  ASSERT_EQ(run.plan(), (Plan{"w[0]", "w[1]", "x", "y", "z"}));
  run.finish({{"w[0]", json{{"trace", {"w0"}}}},
              {"w[1]", json{{"trace", {"w1"}}}},
              {"x", json{{"trace", {"x"}}}},
              {"y", json{{"trace", {"y"}}}},
              {"z", json{{"trace", {"z"}}}}},
             /*completion=*/{4, 1, 2, 0, 3});
  EXPECT_EQ(run.value("trace"), json::array({"x", "y", "z", "w0", "w1"}));
}

TEST(Algo, TwoWritesToALastValueKeyInOneStepNameTheKeyAndBothWriters) {
  sp::StateGraph g(trace_schema());
  g.add_node("p", testing_util::tracer("p")).add_node("q", testing_util::tracer("q"));
  g.add_edge(sp::START, "p").add_edge(sp::START, "q");
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  run.plan();
  run.finish();
  run.plan();
  try {
    run.finish({{"p", json{{"n", 1}}}, {"q", json{{"n", 2}}}});
    ADD_FAILURE() << "two values for a plain key in one step";
  } catch (const sp::InvalidUpdateError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("step 1"), std::string::npos) << what;
    EXPECT_NE(what.find("'n'"), std::string::npos) << what;
    EXPECT_NE(what.find("'p', 'q'"), std::string::npos) << what;
  }
}

TEST(Algo, SendsBecomeTheNextStepsPushTasksBeforeItsPullTasks) {
  sp::StateGraph g(trace_schema());
  g.add_node("fan", testing_util::tracer("fan"))
      .add_node("worker", testing_util::tracer("worker"))
      .add_node("after", testing_util::tracer("after"));
  g.add_edge(sp::START, "fan").add_edge("fan", "after");
  g.add_conditional_edges("fan", [](const sp::State&) {
    return sp::Route(std::vector<sp::Send>{{"worker", json{{"i", 0}}}, {sp::END, json{}}, {"worker", json{{"i", 1}}}});
  });
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  run.plan();
  run.finish();
  EXPECT_EQ(run.plan(), (Plan{"fan"}));
  run.finish();
  EXPECT_EQ(run.s().pending_sends.size(), 2u) << "a Send to END runs nothing";
  EXPECT_EQ(run.plan(), (Plan{"worker[0]", "worker[1]", "after"}));
  EXPECT_EQ(run.send_arg(0), (json{{"i", 0}}));
  EXPECT_EQ(run.send_arg(1), (json{{"i", 1}}));
  // PUSH tasks consume no trigger and see no version: after them, nothing runs again.
  run.finish();
  EXPECT_EQ(run.plan(), Plan{});
}

TEST(Algo, ACommandWritesAndRoutesAndAnUnknownDestinationIsNamed) {
  sp::StateGraph g(trace_schema());
  for (const char* n : {"a", "b", "c"}) g.add_node(n, testing_util::tracer(n));
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  {
    Algo run(app);
    run.input(json::object());
    EXPECT_EQ(run.run({{"a", sp::Command{.update = {{"n", 7}}, .go_to = std::vector<std::string>{"c", "b"}}}}),
              (Steps{{"__start__"}, {"a"}, {"b", "c"}}));
    EXPECT_EQ(run.value("n"), 7);
  }
  Algo run(app);
  run.input(json::object());
  run.plan();
  run.finish();
  run.plan();
  try {
    run.finish({{"a", sp::Command{.go_to = "nowhere"}}});
    ADD_FAILURE() << "Command to an unknown node";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'a' returned Command going to unknown node 'nowhere'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Algo, ARouterSeesItsOwnTasksWritesOnly) {
  sp::StateGraph g(trace_schema());
  g.add_node("r", testing_util::tracer("r")).add_node("other", testing_util::tracer("other"));
  g.add_node("low", testing_util::tracer("low")).add_node("high", testing_util::tracer("high"));
  g.add_edge(sp::START, "r").add_edge(sp::START, "other");
  json seen;
  g.add_conditional_edges("r", [&seen](const sp::State& s) {
    seen = s.get<json>("trace");
    return s.get<json>("trace").size() > 1 ? "high" : "low";
  });
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  EXPECT_EQ(run.run({{"r", json{{"trace", {"r"}}}}, {"other", json{{"trace", {"other"}}}}}),
            (Steps{{"__start__"}, {"other", "r"}, {"low"}}));
  EXPECT_EQ(seen, json::array({"r"})) << "other's write to trace is not the router's to see";
  EXPECT_EQ(run.value("trace"), json::array({"other", "r"}));
}

TEST(Algo, ADeferredNodeRunsOnlyWhenNothingElseWould) {
  sp::StateGraph g(trace_schema());
  for (const char* n : {"a", "b", "b2"}) g.add_node(n, testing_util::tracer(n));
  g.add_node("end", testing_util::tracer("end"), {.defer = true});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2");
  g.add_edge("a", "end").add_edge("b2", "end");
  auto app = g.compile();
  Algo run(app);
  run.input(json::object());
  EXPECT_EQ(run.run(), (Steps{{"__start__"}, {"a", "b"}, {"b2"}, {"end"}}))
      << "end was triggered after a's step but waits until b2 is done";
}

TEST(Algo, InputWritesOfNoTaskApplyAsTheInputStep) {
  auto app = chain().compile();
  Algo run(app);
  ExecutableTask t;
  t.node = &run.g().nodes[0];
  t.writes.emplace_back(run.g().find_key("trace"), json::array({"given"}));
  t.control.push_back(run.g().branch_channel[run.g().find_node("b")]);
  EXPECT_TRUE(apply_input_writes(run.g(), run.s(), t));
  EXPECT_EQ(run.value("trace"), json::array({"given"}));
  EXPECT_EQ(run.plan(), (Plan{"b"})) << "the go_to wakes b; the empty __start__ triggers nothing";
  ExecutableTask none;
  EXPECT_FALSE(apply_input_writes(run.g(), run.s(), none));
}

}  // namespace
