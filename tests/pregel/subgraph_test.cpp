// Subgraphs: a compiled graph as a node. Shared keys in and out, checkpoints under
// `node:<task_id>`, interrupts inside (also nested and parallel, resumed by id), Command to the
// parent, stream(subgraphs) namespaces, get_state(subgraphs) and reading a subgraph's
// namespace. Expected values are what LangGraph.js 1.7.3 gives for the same graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <superstep/messages/message.hpp>

#include "saver_cases.hpp"
#include "test_util.hpp"

using namespace testing_util;

namespace {

sp::StateSchema foo_log_schema() {
  sp::StateSchema s;
  s.field("foo").field("log", sp::reducers::append);
  return s;
}

sp::NodeFn logger(const std::string& name) {
  return [name](const sp::State&) { return json{{"log", {name}}}; };
}

/// Counts node executions across runs (thread-safe).
struct Counter {
  std::mutex m;
  std::map<std::string, int> n;
  void hit(const std::string& k) {
    std::lock_guard lock(m);
    ++n[k];
  }
};

std::string ns_of(const sp::StreamPart& p) {
  std::string out;
  for (const auto& s : p.ns) out += (out.empty() ? "" : "|") + s.substr(0, s.find(':'));
  return out;
}

class Subgraphs : public ::testing::TestWithParam<SaverCase> {
 protected:
  void SetUp() override {
    if (GetParam().needs_postgres) SUPERSTEP_REQUIRE_POSTGRES();
    saver = GetParam().make();
  }
  std::shared_ptr<sp::CheckpointSaver> saver;
  static sp::RunConfig cfg(const std::string& thread) {
    sp::RunConfig c;
    c.thread_id = thread;
    return c;
  }
};

/// p1 -> sub (c1 -> c2, c2 asks) -> p2; the child has a private key `baz`.
sp::CompiledStateGraph ask_parent(std::shared_ptr<sp::CheckpointSaver> saver, Counter& runs) {
  sp::StateSchema cs;
  cs.field("foo").field("baz").field("log", sp::reducers::append);
  sp::StateGraph child(cs);
  child.add_node("c1", [&runs](const sp::State&) {
    runs.hit("c1");
    return json{{"baz", "baz from c1"}, {"log", {"c1"}}};
  });
  child.add_node("c2", [&runs](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    runs.hit("c2");
    json a = sp::interrupt(rt, json{{"ask", "ok?"}, {"foo", s.at("foo")}});
    return json{{"foo", s.get<std::string>("foo") + "|" + a.get<std::string>()}, {"log", {"c2:" + a.get<std::string>()}}};
  });
  child.add_edge(sp::START, "c1").add_edge("c1", "c2");
  sp::StateSchema ps;
  ps.field("foo").field("other").field("log", sp::reducers::append);
  sp::StateGraph parent(ps);
  parent.add_node("p1", [](const sp::State&) { return json{{"foo", "hi"}, {"log", {"p1"}}}; });
  parent.add_node("sub", child.compile({.name = "child"}));
  parent.add_node("p2", [&runs](const sp::State& s) {
    runs.hit("p2");
    return json{{"other", "done:" + s.get<std::string>("foo")}, {"log", {"p2"}}};
  });
  parent.add_edge(sp::START, "p1").add_edge("p1", "sub").add_edge("sub", "p2");
  return parent.compile({.checkpointer = std::move(saver)});
}

TEST_P(Subgraphs, InterruptInsideASubgraphPausesTheParentAndResumesWhereItStopped) {
  Counter runs;
  auto app = ask_parent(saver, runs);
  auto c = cfg("t");
  c.subgraphs = true;
  std::vector<std::pair<std::string, json>> parts;
  auto stream = app.stream(json{{"foo", "x"}}, c, {sp::StreamMode::updates});
  for (const auto& p : stream) parts.emplace_back(ns_of(p), p.data);
  ASSERT_EQ(parts.size(), 4u) << json(parts).dump();
  EXPECT_EQ(parts[0], (std::pair<std::string, json>{"", {{"p1", {{"foo", "hi"}, {"log", {"p1"}}}}}}));
  EXPECT_EQ(parts[1], (std::pair<std::string, json>{"sub", {{"c1", {{"baz", "baz from c1"}, {"log", {"c1"}}}}}}));
  EXPECT_EQ(parts[2].first, "sub");
  ASSERT_TRUE(parts[2].second.contains("__interrupt__"));
  EXPECT_EQ(parts[3].first, "");
  // The parent surfaces the subgraph's interrupt, with the same id.
  EXPECT_EQ(parts[3].second, parts[2].second);
  json interrupt = parts[3].second["__interrupt__"][0];
  EXPECT_EQ(interrupt["value"], (json{{"ask", "ok?"}, {"foo", "hi"}}));
  EXPECT_EQ(stream.result()["__interrupt__"][0], interrupt);

  // The parent's state: sub is next, its task holds the interrupt and where the child lives.
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.values, (json{{"foo", "hi"}, {"log", {"p1"}}}));
  EXPECT_EQ(st.next, std::vector<std::string>{"sub"});
  ASSERT_EQ(st.tasks.size(), 1u);
  ASSERT_TRUE(st.tasks[0].state_config);
  EXPECT_EQ(st.tasks[0].state_config->checkpoint_ns, "sub:" + st.tasks[0].id);
  EXPECT_FALSE(st.tasks[0].state) << "the child's snapshot only with subgraphs=true";
  EXPECT_EQ(st.tasks[0].to_json()["state"], (json{{"configurable", {{"thread_id", "t"}, {"checkpoint_ns", "sub:" + st.tasks[0].id}}}}));
  ASSERT_EQ(st.interrupts.size(), 1u);
  EXPECT_EQ(st.interrupts[0].id, interrupt["id"]);

  // With subgraphs: the child's own snapshot (its private key, its next node, its parents).
  auto deep = app.get_state(cfg("t"), /*subgraphs=*/true);
  ASSERT_TRUE(deep.tasks[0].state);
  const sp::StateSnapshot& child = *deep.tasks[0].state;
  EXPECT_EQ(child.values, (json{{"foo", "hi"}, {"baz", "baz from c1"}, {"log", {"p1", "c1"}}}));
  EXPECT_EQ(child.next, std::vector<std::string>{"c2"});
  EXPECT_EQ(child.config.checkpoint_ns, "sub:" + st.tasks[0].id);
  EXPECT_EQ(child.metadata["step"], 1);
  EXPECT_EQ(child.metadata["source"], "loop");
  EXPECT_EQ(child.metadata["parents"], (json{{"", *st.config.checkpoint_id}}));
  ASSERT_EQ(child.tasks.size(), 1u);
  ASSERT_EQ(child.tasks[0].interrupts.size(), 1u);
  EXPECT_EQ(child.tasks[0].interrupts[0].id, interrupt["id"]);

  // The child's namespace can be read directly, as in LangGraph.
  sp::RunConfig at_child = cfg("t");
  at_child.checkpoint_ns = st.tasks[0].state_config->checkpoint_ns;
  EXPECT_EQ(app.get_state(at_child).values, child.values);
  EXPECT_EQ(app.get_state_history(at_child).front().values, child.values);
  at_child.checkpoint_ns = "nope:123";
  EXPECT_THROW(app.get_state(at_child), sp::CheckpointError);

  // Resume: c2 runs again with the answer; c1 does not run again.
  parts.clear();
  auto resumed = app.stream(sp::Command{.resume = "yes"}, c, {sp::StreamMode::updates});
  for (const auto& p : resumed) parts.emplace_back(ns_of(p), p.data);
  ASSERT_EQ(parts.size(), 3u) << json(parts).dump();
  EXPECT_EQ(parts[0], (std::pair<std::string, json>{"sub", {{"c2", {{"foo", "hi|yes"}, {"log", {"c2:yes"}}}}}}));
  // The node's update: the child's final values of the shared keys (its whole `log`, so the
  // parent's append reducer repeats "p1", as in LangGraph).
  EXPECT_EQ(parts[1], (std::pair<std::string, json>{"", {{"sub", {{"foo", "hi|yes"}, {"log", {"p1", "c1", "c2:yes"}}}}}}));
  EXPECT_EQ(parts[2], (std::pair<std::string, json>{"", {{"p2", {{"other", "done:hi|yes"}, {"log", {"p2"}}}}}}));
  EXPECT_EQ(resumed.result(), (json{{"foo", "hi|yes"}, {"other", "done:hi|yes"}, {"log", {"p1", "p1", "c1", "c2:yes", "p2"}}}));
  EXPECT_EQ(runs.n["c1"], 1);
  EXPECT_EQ(runs.n["c2"], 2);
  EXPECT_EQ(runs.n["p2"], 1);
}

// A subgraph compiled with its own interrupt_before / interrupt_after pauses the parent (with
// no interrupt values: `__interrupt__` is empty), and `invoke(nullptr)` continues it where it
// stopped. (The pause used to be lost: the parent applied the subgraph as if it returned nothing
// and ended.)
TEST_P(Subgraphs, ASubgraphsOwnInterruptBeforeOrAfterPausesTheParent) {
  for (bool before : {true, false}) {
    SCOPED_TRACE(before ? "interrupt_before" : "interrupt_after");
    Counter runs;
    sp::StateGraph child(foo_log_schema());
    for (std::string n : {"s1", "s2"})
      child.add_node(n, [&runs, n](const sp::State&) {
        runs.hit(n);
        return json{{"log", {n}}};
      });
    child.add_edge(sp::START, "s1").add_edge("s1", "s2");
    sp::CompileOptions pause;
    if (before) pause.interrupt_before = {"s2"};
    else pause.interrupt_after = {"s1"};
    sp::StateGraph parent(foo_log_schema());
    parent.add_node("pre", logger("pre"));
    parent.add_node("sub", child.compile(pause));
    parent.add_node("post", logger("post"));
    parent.add_edge(sp::START, "pre").add_edge("pre", "sub").add_edge("sub", "post");
    auto app = parent.compile({.checkpointer = saver});
    const std::string thread = before ? "before" : "after";

    std::vector<json> parts;
    for (auto& p : app.stream(json{{"foo", 1}}, cfg(thread), {sp::StreamMode::updates})) parts.push_back(p.data);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[1], (json{{"__interrupt__", json::array()}}));
    auto st = app.get_state(cfg(thread), /*subgraphs=*/true);
    EXPECT_EQ(st.values["log"], json({"pre"}));
    EXPECT_EQ(st.next, std::vector<std::string>{"sub"});
    ASSERT_EQ(st.tasks.size(), 1u);
    EXPECT_TRUE(st.tasks[0].interrupts.empty());
    ASSERT_TRUE(st.tasks[0].state);
    EXPECT_EQ(st.tasks[0].state->next, std::vector<std::string>{"s2"});

    json out = app.invoke(nullptr, cfg(thread));
    EXPECT_EQ(out["log"], json({"pre", "pre", "s1", "s2", "post"}));  // the subgraph's whole list, appended
    EXPECT_EQ(runs.n["s1"], 1);
    EXPECT_EQ(runs.n["s2"], 1);
  }
}

// A paused subgraph's state edited through its own config (update_state on its namespace), then
// the parent resumed: the answer reaches the subgraph's node, which sees the edit (as LangGraph).
TEST_P(Subgraphs, EditingAPausedSubgraphsStateThenResumingTheParent) {
  Counter runs;
  auto app = ask_parent(saver, runs);
  app.invoke(json::object(), cfg("t"));
  auto st = app.get_state(cfg("t"), /*subgraphs=*/true);
  ASSERT_EQ(st.tasks.size(), 1u);
  ASSERT_TRUE(st.tasks[0].state);
  const sp::CheckpointConfig& at = st.tasks[0].state->config;
  app.update_state(sp::RunConfig{.thread_id = at.thread_id, .checkpoint_id = at.checkpoint_id, .checkpoint_ns = at.checkpoint_ns},
                   json{{"foo", "edited"}}, "c1");
  json out = app.invoke(sp::Command{.resume = "yes"}, cfg("t"));
  EXPECT_EQ(out["foo"], "edited|yes");
  EXPECT_EQ(out["other"], "done:edited|yes");
  EXPECT_EQ(runs.n["c1"], 1);
  EXPECT_EQ(runs.n["c2"], 2);
}

TEST_P(Subgraphs, WithoutSubgraphsTheStreamShowsOnlyTheParent) {
  Counter runs;
  auto app = ask_parent(saver, runs);
  std::vector<std::string> seen;
  for (const auto& p : app.stream(json{{"foo", "x"}}, cfg("t"), {sp::StreamMode::updates})) {
    EXPECT_TRUE(p.ns.empty());
    seen.push_back(p.data.begin().key());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"p1", "__interrupt__"}));
  json out = app.invoke(sp::Command{.resume = "no"}, cfg("t"));
  EXPECT_EQ(out["foo"], "hi|no");
  EXPECT_FALSE(out.contains("baz")) << "the child's private key stays in the child";
}

TEST_P(Subgraphs, NestedAndParallelSubgraphInterruptsAreResumedById) {
  Counter runs;
  sp::StateGraph inner_g(foo_log_schema());
  inner_g.add_node("ask", [&runs](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    runs.hit("ask");
    json a = sp::interrupt(rt, "q-" + s.value<std::string>("foo", "none"));
    return json{{"log", {"ans:" + a.get<std::string>()}}};
  });
  inner_g.add_edge(sp::START, "ask");
  auto inner = inner_g.compile({.name = "inner"});
  sp::StateGraph mid_g(foo_log_schema());
  mid_g.add_node("m1", [&runs](const sp::State&) {
    runs.hit("m1");
    return json{{"log", {"m1"}}};
  });
  mid_g.add_node("inner", inner);
  mid_g.add_edge(sp::START, "m1").add_edge("m1", "inner");
  sp::StateSchema top_s;
  top_s.field("log", sp::reducers::append);  // no `foo`: the parallel subgraphs do not both write it
  sp::StateGraph top_g(top_s);
  top_g.add_node("a", mid_g.compile({.name = "mid"}));
  top_g.add_node("b", inner);
  top_g.add_node("z", logger("z"));
  top_g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "z");
  auto app = top_g.compile({.executor = pool(2), .checkpointer = saver});

  auto c = cfg("n");
  c.subgraphs = true;
  std::vector<std::string> interrupt_ns;
  for (const auto& p : app.stream(json{{"log", json::array()}}, c, {sp::StreamMode::updates}))
    if (p.data.contains("__interrupt__")) interrupt_ns.push_back(ns_of(p));
  std::sort(interrupt_ns.begin(), interrupt_ns.end());
  // Each level reports the interrupt: inner inside a, a itself, b, and the root twice.
  EXPECT_EQ(interrupt_ns, (std::vector<std::string>{"", "", "a", "a|inner", "b"}));

  auto st = app.get_state(cfg("n"), true);
  ASSERT_EQ(st.interrupts.size(), 2u);
  ASSERT_EQ(st.tasks.size(), 2u);
  const sp::StateSnapshot& a_state = *st.tasks[0].state;
  ASSERT_EQ(a_state.tasks.size(), 1u);
  ASSERT_TRUE(a_state.tasks[0].state);
  EXPECT_EQ(a_state.tasks[0].state->config.checkpoint_ns,
            "a:" + st.tasks[0].id + "|inner:" + a_state.tasks[0].id);
  EXPECT_EQ(a_state.tasks[0].state->next, std::vector<std::string>{"ask"});

  // The values have no foo in these subgraphs, so the question reads "q-" + nothing: the
  // inner graph received no foo. Give each interrupt its own answer, by id.
  json answers = json::object();
  answers[st.tasks[0].interrupts.at(0).id] = "for-a";
  answers[st.tasks[1].interrupts.at(0).id] = "for-b";
  json out = app.invoke(sp::Command{.resume = answers}, cfg("n"));
  EXPECT_FALSE(out.contains("__interrupt__")) << out.dump();
  // mid's log is ["m1"] + inner's whole log ["m1", "ans:for-a"]; a's update is mid's whole log;
  // a and b apply in task path order (LangGraph.js gives the same).
  EXPECT_EQ(out["log"], json({"m1", "m1", "ans:for-a", "ans:for-b", "z"}));
  EXPECT_EQ(runs.n["m1"], 1) << "m1 finished before the pause and is not run again";
  EXPECT_EQ(runs.n["ask"], 4);
}

TEST_P(Subgraphs, AFailureInsideASubgraphResumesWithoutRerunningFinishedChildNodes) {
  Counter runs;
  bool fail = true;
  sp::StateGraph child(foo_log_schema());
  child.add_node("c1", [&runs](const sp::State&) {
    runs.hit("c1");
    return json{{"log", {"c1"}}};
  });
  child.add_node("c2", [&](const sp::State&) {
    runs.hit("c2");
    if (fail) throw std::runtime_error("c2 is down");
    return json{{"log", {"c2"}}};
  });
  child.add_edge(sp::START, "c1").add_edge("c1", "c2");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("sub", child.compile());
  parent.add_edge(sp::START, "sub");
  auto app = parent.compile({.checkpointer = saver});
  try {
    app.invoke(json{{"foo", "x"}}, cfg("f"));
    ADD_FAILURE() << "c2 fails";
  } catch (const sp::NodeError& e) {
    EXPECT_NE(std::string(e.what()).find("c2 is down"), std::string::npos) << e.what();
  }
  auto st = app.get_state(cfg("f"), true);
  ASSERT_EQ(st.tasks.size(), 1u);
  ASSERT_TRUE(st.tasks[0].error);
  ASSERT_TRUE(st.tasks[0].state);
  EXPECT_EQ(st.tasks[0].state->next, std::vector<std::string>{"c2"});
  fail = false;
  json out = app.invoke(nullptr, cfg("f"));
  EXPECT_EQ(out["log"], json({"c1", "c2"}));
  EXPECT_EQ(runs.n["c1"], 1);
  EXPECT_EQ(runs.n["c2"], 2);
}

// What a node inside a subgraph throws comes back as one NodeError naming that node (not a
// NodeError wrapping the subgraph's NodeError), whose cause is the node's own exception.
TEST_P(Subgraphs, AFailureInsideNestedSubgraphsIsOneNodeErrorWhoseCauseIsTheNodesOwn) {
  sp::StateGraph inner(foo_log_schema());
  inner.add_node("deep", [](const sp::State&) -> json { throw std::out_of_range("deep is down"); });
  inner.add_edge(sp::START, "deep");
  sp::StateGraph middle(foo_log_schema());
  middle.add_node("inner", inner.compile());
  middle.add_edge(sp::START, "inner");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("middle", middle.compile());
  parent.add_edge(sp::START, "middle");
  auto app = parent.compile({.checkpointer = saver});
  try {
    app.invoke(json{{"foo", "x"}}, cfg("n"));
    FAIL() << "deep fails";
  } catch (const sp::NodeError& e) {
    EXPECT_EQ(e.node(), "deep");
    EXPECT_THROW(std::rethrow_exception(e.cause()), std::out_of_range);
  }
}

// As LangGraph.js 1.7.3 (tests/differential er_retry_subgraph, er_recursion_subgraph): a retry
// policy on a subgraph node decides on what the node inside failed with and runs the whole
// subgraph again; a subgraph's recursion limit is a GraphRecursionError at every level.
TEST_P(Subgraphs, ARetryPolicyOnASubgraphNodeRetriesItAndItsRecursionLimitIsRaisedAsIs) {
  Counter runs;
  int failures_left = 2;
  std::mutex m;
  sp::StateGraph inner(foo_log_schema());
  inner.add_node("s1", logger("s1")).add_node("flaky", [&](const sp::State&) -> json {
    runs.hit("flaky");
    std::lock_guard lock(m);
    if (failures_left-- > 0) throw std::runtime_error("inner down");
    return json{{"log", {"flaky"}}};
  });
  inner.add_edge(sp::START, "s1").add_edge("s1", "flaky");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("sub", inner.compile(),
                  sp::NodeOptions{.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 3, .jitter = false}});
  parent.add_edge(sp::START, "sub");
  auto app = parent.compile({.checkpointer = saver});
  json out = app.invoke(json{{"foo", "x"}}, cfg("retry"));
  EXPECT_EQ(runs.n["flaky"], 3);
  EXPECT_EQ(out["log"], json({"s1", "flaky"}));

  sp::StateGraph looping(foo_log_schema());
  looping.add_node("again", logger("again"));
  looping.add_edge(sp::START, "again").add_edge("again", "again");
  sp::StateGraph outer(foo_log_schema());
  outer.add_node("sub", looping.compile());
  outer.add_edge(sp::START, "sub");
  sp::RunConfig c = cfg("recursion");
  c.recursion_limit = 4;
  EXPECT_THROW(outer.compile({.checkpointer = saver}).invoke(json{{"foo", "x"}}, c), sp::GraphRecursionError);
}

// A subgraph that pauses streams no last `values` part of its own (as LangGraph, only the root
// graph streams the state its finished tasks leave; the parent streams its interrupt).
TEST_P(Subgraphs, APausedSubgraphStreamsNoLastValuesPart) {
  sp::StateGraph child(foo_log_schema());
  child.add_node("p", logger("p")).add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"log", {"ask=" + sp::interrupt(rt, "q").get<std::string>()}}};
  });
  child.add_edge(sp::START, "p").add_edge(sp::START, "ask");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("sub", child.compile());
  parent.add_edge(sp::START, "sub");
  auto app = parent.compile({.checkpointer = saver});
  sp::RunConfig c = cfg("t");
  c.subgraphs = true;
  int sub_values = 0;
  for (const auto& part : app.stream(json{{"foo", "x"}}, c, {sp::StreamMode::values, sp::StreamMode::updates}))
    if (part.mode == sp::StreamMode::values && !part.ns.empty()) {
      ++sub_values;
      EXPECT_FALSE(part.data.contains("log") && part.data["log"] == json({"p"})) << part.data.dump();
    }
  EXPECT_GE(sub_values, 1) << "the subgraph's input";
}

// A subgraph with two interrupts, one answered by id: the parent's subgraph task is still to
// run (in `next`), as in LangGraph (the answer is the subgraph's, not a write of that task);
// a finished subgraph task beside a paused one still shows its subgraph's state.
TEST_P(Subgraphs, ASubgraphAnsweredByIdStaysInNextAndAFinishedOneShowsItsState) {
  sp::StateGraph child(foo_log_schema());
  for (std::string n : {"q1", "q2"})
    child.add_node(n, [n](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
      return json{{"log", {n + "=" + sp::interrupt(rt, n).get<std::string>()}}};
    });
  child.add_edge(sp::START, "q1").add_edge(sp::START, "q2");
  sp::StateGraph done(foo_log_schema());
  done.add_node("d", logger("d"));
  done.add_edge(sp::START, "d");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("asks", child.compile());
  parent.add_node("quick", done.compile());
  parent.add_edge(sp::START, "asks").add_edge(sp::START, "quick");
  auto app = parent.compile({.checkpointer = saver});
  json out = app.invoke(json{{"foo", "x"}}, cfg("i"));
  ASSERT_EQ(out["__interrupt__"].size(), 2u);
  auto st = app.get_state(cfg("i"), true);
  ASSERT_EQ(st.tasks.size(), 2u);
  EXPECT_EQ(st.tasks[1].name, "quick");
  ASSERT_TRUE(st.tasks[1].state) << "a finished subgraph task shows its subgraph's state";
  EXPECT_EQ(st.tasks[1].state->values["log"], json({"d"}));
  std::string q1 = out["__interrupt__"][0]["value"] == "q1" ? out["__interrupt__"][0]["id"] : out["__interrupt__"][1]["id"];
  out = app.invoke(sp::Command{.resume = json{{q1, "yes"}}}, cfg("i"));
  ASSERT_EQ(out["__interrupt__"].size(), 1u);
  EXPECT_EQ(out["__interrupt__"][0]["value"], "q2");
  EXPECT_EQ(app.get_state(cfg("i")).next, std::vector<std::string>{"asks"});
}

// A graph invoked inside a node with the node's Runtime (invoke(input, rt)) is the task's
// subgraph, as in LangGraph: its parts stream under the node's namespace, its interrupt pauses
// the node, and the node's run on resume continues it with the answer (the input unused) and
// gets its output. A second graph in the same node run is refused with a checkpointer.
TEST_P(Subgraphs, AGraphInvokedInsideANodeWithItsRuntimeIsTheNodesSubgraph) {
  sp::StateSchema is;
  is.field("q").field("log", sp::reducers::append);
  sp::StateGraph inner(is);
  inner.add_node("ask", [](const sp::State& st, sp::Runtime& rt) {
    return json{{"log", {st.get<std::string>("q") + "=" + sp::interrupt(rt, "answer " + st.get<std::string>("q")).get<std::string>()}}};
  });
  inner.add_edge(sp::START, "ask");
  auto inner_app = inner.compile();  // no checkpointer of its own: the run's
  auto calls = std::make_shared<std::atomic<int>>(0);
  sp::StateGraph outer(foo_log_schema());
  outer.add_node("caller", [inner_app, calls](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    ++*calls;
    json out = inner_app.invoke(json{{"q", "q" + std::to_string(calls->load())}}, rt);
    return json{{"log", out["log"]}};
  });
  outer.add_edge(sp::START, "caller");
  auto app = outer.compile({.checkpointer = saver});
  sp::RunConfig c = cfg("inner");
  c.subgraphs = true;
  std::vector<std::string> inner_parts;
  for (const sp::StreamPart& p : app.stream(json::object(), c, {sp::StreamMode::updates}))
    if (!p.ns.empty()) inner_parts.push_back(ns_of(p));
  sp::StateSnapshot paused = app.get_state(c);
  ASSERT_EQ(paused.interrupts.size(), 1u);
  EXPECT_EQ(paused.interrupts[0].value, "answer q1");
  EXPECT_EQ(paused.next, std::vector<std::string>{"caller"});
  EXPECT_EQ(inner_parts, std::vector<std::string>{"caller"});  // its interrupt, under the node's namespace
  json done = app.invoke(sp::Command{.resume = "yes"}, c);
  EXPECT_EQ(done["log"], json({"q1=yes"}));  // the paused run continued: q2, the new input, unused
  EXPECT_EQ(*calls, 2);

  sp::StateGraph plain(foo_log_schema());
  plain.add_node("p", logger("p"));
  plain.add_edge(sp::START, "p");
  auto plain_app = plain.compile();
  sp::StateGraph twice(foo_log_schema());
  twice.add_node("twice", [plain_app](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    EXPECT_EQ(plain_app.invoke(json::object(), rt)["log"], json({"p"}));
    plain_app.invoke(json::object(), rt);
    return json::object();
  });
  twice.add_edge(sp::START, "twice");
  try {
    twice.compile({.checkpointer = saver}).invoke(json::object(), cfg("twice"));
    ADD_FAILURE() << "two graphs in one node run were accepted";
  } catch (const sp::GraphValueError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'twice' invoked graph"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a GraphValueError: " << e.what();
  }
}

// The coroutine form, ainvoke(input, rt), and a Command(graph=PARENT) from the invoked graph,
// which becomes the node's own result (LangGraph's ParentCommand).
TEST_P(Subgraphs, AGraphAwaitedInsideACoroutineNodeAndItsCommandToTheParent) {
  using namespace std::chrono_literals;
  sp::StateGraph inner(foo_log_schema());
  inner.add_node("wait", [](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, 2ms);
    co_return json{{"log", {"waited"}}};
  });
  inner.add_node("jump", [](const sp::State&) -> sp::NodeResult {
    return sp::Command{.update = json{{"log", {"jumped"}}}, .go_to = "target", .graph = sp::Command::PARENT};
  });
  inner.add_edge(sp::START, "wait").add_edge("wait", "jump");
  auto inner_app = inner.compile();
  sp::StateGraph outer(foo_log_schema());
  outer.add_node("caller", [inner_app](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    json out = co_await inner_app.ainvoke(json::object(), rt);
    co_return json{{"log", {"never: the Command ends it"}}};
  });
  outer.add_node("target", logger("target")).add_node("skipped", logger("skipped"));
  outer.add_edge(sp::START, "caller").add_edge("caller", "skipped");
  auto app = outer.compile({.checkpointer = saver});
  json log = app.invoke(json::object(), cfg("await"))["log"];
  ASSERT_EQ(log.size(), 3u) << log;
  EXPECT_EQ(log[0], "jumped");  // the Command's update, as the caller's
  EXPECT_EQ((std::set<std::string>{log[1], log[2]}), (std::set<std::string>{"target", "skipped"}));
}

INSTANTIATE_TEST_SUITE_P(Savers, Subgraphs, ::testing::ValuesIn(saver_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(SubgraphsWithoutCheckpointer, SharedKeysInAndOutPrivateKeysStayInside) {
  sp::StateSchema cs;
  cs.field("foo").field("secret");
  sp::StateGraph child(cs);
  child.add_node("c", [](const sp::State& s) {
    return json{{"secret", "s"}, {"foo", s.get<std::string>("foo") + "!"}};
  });
  child.add_edge(sp::START, "c");
  sp::StateSchema ps;
  ps.field("foo").field("bar");
  sp::StateGraph parent(ps);
  parent.add_node("sub", child.compile());
  parent.add_node("after", [](const sp::State& s) { return json{{"bar", s.get<std::string>("foo")}}; });
  parent.add_edge(sp::START, "sub").add_edge("sub", "after");
  auto app = parent.compile();
  EXPECT_EQ(app.invoke(json{{"foo", "hey"}}), (json{{"foo", "hey!"}, {"bar", "hey!"}}));
  // An interrupt needs a checkpointer somewhere.
  sp::StateGraph asking(cs);
  asking.add_node("q", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult { return json{{"foo", sp::interrupt(rt, 1)}}; });
  asking.add_edge(sp::START, "q");
  sp::StateGraph p2(ps);
  p2.add_node("sub", asking.compile());
  p2.add_edge(sp::START, "sub");
  try {
    p2.compile().invoke(json{{"foo", "x"}});
    ADD_FAILURE() << "interrupt without a checkpointer";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("needs a checkpointer"), std::string::npos) << e.what();
  }
}

TEST(SubgraphsWithoutCheckpointer, CommandToTheParentUpdatesAndRoutesIt) {
  // LangGraph.js: the parent's `sub` update is the Command's update; p3 runs beside p2 (the
  // static edge sub -> p2 still fires); c2 never runs.
  sp::StateGraph child(foo_log_schema());
  child.add_node("c1", [](const sp::State&) {
    return sp::Command{.update = {{"foo", "from child"}, {"log", {"c1"}}}, .go_to = "p3", .graph = sp::Command::PARENT};
  });
  child.add_node("c2", logger("c2"));
  child.add_edge(sp::START, "c1").add_edge("c1", "c2");
  sp::StateGraph parent(foo_log_schema());
  parent.add_node("p1", logger("p1"));
  parent.add_node("sub", child.compile(), {.ends = {"p3"}});
  parent.add_node("p2", logger("p2"));
  parent.add_node("p3", [](const sp::State& s) { return json{{"log", {"p3:" + s.get<std::string>("foo")}}}; });
  parent.add_edge(sp::START, "p1").add_edge("p1", "sub").add_edge("sub", "p2");
  auto app = parent.compile();
  sp::RunConfig c;
  c.subgraphs = true;
  json updates = json::array();
  for (const auto& p : app.stream(json{{"foo", "x"}}, c, {sp::StreamMode::updates})) updates.push_back(p.data);
  // p2 and p3 run in the same step: their parts come in completion order, as in LangGraph.
  ASSERT_EQ(updates.size(), 4u) << updates;
  std::sort(updates.begin() + 2, updates.end());
  EXPECT_EQ(updates, json::parse(R"([{"p1":{"log":["p1"]}},{"sub":{"foo":"from child","log":["c1"]}},
                                     {"p2":{"log":["p2"]}},{"p3":{"log":["p3:from child"]}}])"));
  EXPECT_EQ(app.invoke(json{{"foo", "x"}}), json::parse(R"({"foo":"from child","log":["p1","c1","p2","p3:from child"]})"));
}

// Two subgraph tasks in one step, streamed with `subgraphs` and custom chunks, on a pool of one
// worker shared by both graphs: the task running a subgraph runs the subgraph's tasks itself and
// its parts go straight into the parent's stream, so no pool thread waits for another (it hung
// here before, every worker holding a subgraph that waited for its tasks).
TEST(SubgraphStreams, ParallelSubgraphsOnOneSharedWorkerStreamWithoutWaitingOnEachOther) {
  auto pool = std::make_shared<sp::ThreadPool>(1);
  sp::StateGraph child(foo_log_schema());
  child.add_node("inner", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    rt.stream_writer("chunk");
    return json{{"log", {"inner"}}};
  });
  child.add_edge(sp::START, "inner");
  sp::StateGraph parent(foo_log_schema());
  auto sub = child.compile({.executor = pool});
  parent.add_node("s1", sub).add_node("s2", sub);
  parent.add_edge(sp::START, "s1").add_edge(sp::START, "s2");
  auto app = parent.compile({.executor = pool});
  sp::RunConfig cfg;
  cfg.subgraphs = true;
  std::map<std::string, int> chunks;  // namespace -> custom chunks
  int updates = 0;
  for (const sp::StreamPart& p : app.stream(json::object(), cfg, {sp::StreamMode::custom, sp::StreamMode::updates})) {
    if (p.mode == sp::StreamMode::custom) ++chunks[ns_of(p)];
    if (p.mode == sp::StreamMode::updates && p.ns.empty()) ++updates;
  }
  EXPECT_EQ(chunks, (std::map<std::string, int>{{"s1", 1}, {"s2", 1}}));
  EXPECT_EQ(updates, 2);
}

// A subgraph's coroutine node resumes on the pool (its timer posts it there). With one worker,
// that worker may be the very thread running the subgraph and waiting for the step to end: it
// runs the pool's jobs while it waits (before, it slept and the run hung). Both graphs have a
// coroutine node beside a plain one, streamed with `subgraphs` and without.
TEST(SubgraphStreams, ACoroutineNodeOfASubgraphResumesWhenItsPoolsOnlyWorkerRunsTheSubgraph) {
  using namespace std::chrono_literals;
  auto sleeper = [](std::string name) {
    return [name](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      co_await sp::sleep_for(rt, 2ms);
      co_return json{{"log", {name}}};
    };
  };
  for (bool subgraphs : {true, false}) {
    auto pool = std::make_shared<sp::ThreadPool>(1);
    sp::StateGraph child(foo_log_schema());
    child.add_node("inner_wait", sleeper("inner_wait")).add_node("inner_plain", logger("inner_plain"));
    child.add_edge(sp::START, "inner_wait").add_edge(sp::START, "inner_plain");
    sp::StateGraph parent(foo_log_schema());
    parent.add_node("sub", child.compile({.executor = pool})).add_node("outer_wait", sleeper("outer_wait"));
    parent.add_edge(sp::START, "sub").add_edge(sp::START, "outer_wait");
    auto app = parent.compile({.executor = pool});
    sp::RunConfig cfg;
    cfg.subgraphs = subgraphs;
    std::set<std::string> updated;  // "<namespace>/<node>"
    auto run = std::async(std::launch::async, [&] {
      for (const sp::StreamPart& p : app.stream(json::object(), cfg, {sp::StreamMode::updates}))
        for (auto it = p.data.begin(); it != p.data.end(); ++it) updated.insert(ns_of(p) + "/" + it.key());
    });
    if (run.wait_for(10s) != std::future_status::ready) {  // a hung run never returns: fail now
      std::fprintf(stderr, "the run hung (subgraphs %d)\n", subgraphs);
      std::abort();
    }
    run.get();
    std::set<std::string> expected{"/sub", "/outer_wait"};
    if (subgraphs) expected.insert({"sub/inner_wait", "sub/inner_plain"});
    EXPECT_EQ(updated, expected) << subgraphs;
  }
}

// A subgraph stopped at its own interrupt_before/interrupt_after: as LangGraph.js 1.7.3, only
// the root announces the pause ({"__interrupt__": []} in `updates`, then `values`), once the
// step is over and after the state its finished sibling wrote; the subgraph's namespace has no
// such parts (before, it had both, and the root's came as soon as the subgraph's task stopped).
TEST(SubgraphStreams, ASubgraphsOwnInterruptBeforeIsAnnouncedByTheRootAfterTheStep) {
  for (bool before : {true, false}) {
    sp::StateGraph child(foo_log_schema());
    child.add_node("s1", logger("s1")).add_node("s2", logger("s2"));
    child.add_edge(sp::START, "s1").add_edge("s1", "s2");
    sp::CompileOptions co;
    if (before) co.interrupt_before = {"s2"};
    else co.interrupt_after = {"s1"};
    sp::StateGraph parent(foo_log_schema());
    parent.add_node("sub", child.compile(co)).add_node("sibling", [](const sp::State&) -> sp::NodeResult {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ends after the subgraph stops
      return json{{"log", {"sibling"}}};
    });
    parent.add_edge(sp::START, "sub").add_edge(sp::START, "sibling");
    auto app = parent.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
    sp::RunConfig cfg;
    cfg.thread_id = "t";
    cfg.subgraphs = true;
    std::vector<std::string> seen;  // "<mode> <namespace> <data>" of root parts and interrupt parts
    for (const sp::StreamPart& p : app.stream(json::object(), cfg, {sp::StreamMode::updates, sp::StreamMode::values})) {
      const bool interrupt = p.data.is_object() && p.data.contains("__interrupt__");
      if (interrupt || p.ns.empty()) seen.push_back(std::string(sp::to_string(p.mode)) + " " + ns_of(p) + " " + p.data.dump());
    }
    EXPECT_EQ(seen, (std::vector<std::string>{
                        R"(updates  {"sibling":{"log":["sibling"]}})",
                        R"(values  {"log":["sibling"]})",
                        R"(updates  {"__interrupt__":[]})",
                        R"(values  {"__interrupt__":[]})",
                    }))
        << (before ? "interrupt_before" : "interrupt_after");
  }
}

// A subgraph task holds no thread while its coroutine nodes await: on a one-worker pool, two
// subgraphs' coroutine nodes and a parent coroutine node beside them all wait at once, streamed
// with `subgraphs` or not, and invoked (before, a streamed subgraph's task kept the worker until
// its run ended, so the others waited their turn: differential mc_co_two_subs_pool).
TEST(SubgraphStreams, SubgraphTasksAwaitingTheirCoroutineNodesHoldNoThread) {
  using namespace std::chrono_literals;
  auto waiting = std::make_shared<std::atomic<int>>(0);
  auto peak = std::make_shared<std::atomic<int>>(0);
  auto waiter = [waiting, peak](std::string name) {
    return [waiting, peak, name](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
      int w = ++*waiting;
      int p = peak->load();
      while (w > p && !peak->compare_exchange_weak(p, w)) {
      }
      rt.stream_writer(json{{name, "waiting"}});
      co_await sp::sleep_for(rt, 250ms);
      --*waiting;
      co_return json{{"log", {name}}};
    };
  };
  for (int how = 0; how < 3; ++how) {  // stream with subgraphs, stream without, invoke
    auto pool = std::make_shared<sp::ThreadPool>(1);
    auto sub = [&](const std::string& name) {
      sp::StateGraph child(foo_log_schema());
      child.add_node(name + "_wait", waiter(name + "_wait"));
      child.add_edge(sp::START, name + "_wait");
      return child.compile({.executor = pool});
    };
    sp::StateGraph parent(foo_log_schema());
    parent.add_node("A", sub("a")).add_node("B", sub("b")).add_node("pc", waiter("pc"));
    parent.add_edge(sp::START, "A").add_edge(sp::START, "B").add_edge(sp::START, "pc");
    auto app = parent.compile({.executor = pool});
    peak->store(0);
    json result;
    if (how < 2) {
      sp::RunConfig cfg;
      cfg.subgraphs = how == 0;
      for (const sp::StreamPart& p : app.stream(json::object(), cfg, {sp::StreamMode::custom, sp::StreamMode::values}))
        if (p.mode == sp::StreamMode::values && p.ns.empty()) result = p.data;
    } else {
      result = app.invoke(json::object());
    }
    EXPECT_EQ(peak->load(), 3) << "how " << how;
    std::multiset<std::string> logged(result["log"].begin(), result["log"].end());
    EXPECT_EQ(logged, (std::multiset<std::string>{"a_wait", "b_wait", "pc"})) << "how " << how;
  }
}

// The messages stream of a subgraph: with `subgraphs`, a message the subgraph's node returns is
// shown once, in the subgraph's namespace (not again when the parent's task ends), and the
// messages either graph's node was given are not shown at all, as LangGraph.js 1.7.3.
TEST(SubgraphStreams, MessagesAreShownOnceAndInputMessagesNotAtAll) {
  sp::StateGraph child(sp::messages_state());
  child.add_node("inner", [](const sp::State&) {
    return json{{"messages", {{{"type", "ai"}, {"content", "from inside"}, {"id", "s-1"}}}}};
  });
  child.add_edge(sp::START, "inner");
  sp::StateGraph parent(sp::messages_state());
  parent.add_node("sub", child.compile());
  parent.add_edge(sp::START, "sub");
  auto app = parent.compile();
  json input = {{"messages", {{{"type", "human"}, {"content", "hi"}, {"id", "h-1"}}}}};
  for (bool subgraphs : {true, false}) {
    sp::RunConfig cfg;
    cfg.subgraphs = subgraphs;
    std::vector<std::string> shown;  // "<id>@<namespace>"
    for (const sp::StreamPart& p : app.stream(input, cfg, {sp::StreamMode::messages}))
      shown.push_back(p.data[0].value("id", "") + "@" + ns_of(p));
    EXPECT_EQ(shown, (std::vector<std::string>{subgraphs ? "s-1@sub" : "s-1@"})) << subgraphs;
  }
}

// A step of a subgraph in which one node sends a Command to the parent and another fails:
// the failure is the step's, whatever the plan order (as LangGraph raises node errors before
// bubbling a Command up); before, a Command first in plan order hid the failure.
TEST(SubgraphCommands, AFailureBesideACommandToTheParentIsRaised) {
  for (const std::string jumper : {"a_jump", "c_jump"}) {
    sp::StateGraph child(foo_log_schema());
    child.add_node(jumper, [](const sp::State&) -> sp::NodeResult {
      return sp::Command{.update = {{"log", {"jump"}}}, .go_to = "target", .graph = sp::Command::PARENT};
    });
    child.add_node("b_fail", [](const sp::State&) -> sp::NodeResult { throw std::runtime_error("b_fail broke"); });
    child.add_edge(sp::START, jumper).add_edge(sp::START, "b_fail");
    sp::StateGraph parent(foo_log_schema());
    parent.add_node("sub", child.compile(), {.ends = {"target"}}).add_node("target", logger("target"));
    parent.add_edge(sp::START, "sub");
    try {
      parent.compile().invoke(json::object());
      FAIL() << jumper << ": the failure was lost";
    } catch (const sp::NodeError& e) {
      EXPECT_NE(std::string(e.what()).find("b_fail broke"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
