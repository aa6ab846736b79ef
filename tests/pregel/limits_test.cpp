// Limits users can rely on (docs/reliability.md, "Limits users can rely on"): each limit of
// superstep::Limits refuses one byte over and accepts exactly its value, with a LimitError
// naming limit, sizes, graph, thread, node and key; what was checkpointed before stays readable
// and a run with a raised limit continues the thread. Also the recursion limit's kept state,
// 10^4 parallel Sends, a 10 MB value through SQLite and 10^4 checkpoints read in pages.
// Reduced sizes; the full ones are `superstep-bench limits` (bench/workloads/limits.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "saver_cases.hpp"
#include "test_util.hpp"

using namespace testing_util;

namespace {

std::vector<SaverCase> local_savers() {
  std::vector<SaverCase> out;
  for (auto& c : saver_cases())
    if (c.name != "postgres") out.push_back(c);
  return out;
}

class Limits : public ::testing::TestWithParam<SaverCase> {
 protected:
  void SetUp() override {
    if (GetParam().needs_postgres) SUPERSTEP_REQUIRE_POSTGRES();
    saver = GetParam().make();
  }
  std::shared_ptr<sp::CheckpointSaver> saver;
  static sp::RunConfig cfg(const std::string& thread, std::optional<sp::Limits> limits = std::nullopt) {
    sp::RunConfig c;
    c.thread_id = thread;
    c.limits = limits;
    return c;
  }
};

/// `big` writes `data`: a string of `size` (from the input) 'x's. An update {"data": s} measures
/// 4 + s.size() bytes.
sp::StateGraph big_writer(std::atomic<int>* runs = nullptr) {
  sp::StateSchema schema;
  schema.field("size").field("data");
  sp::StateGraph g(schema);
  g.add_node("big", [runs](const sp::State& s) {
    if (runs) ++*runs;
    return json{{"data", std::string(s.get<std::size_t>("size"), 'x')}};
  });
  g.add_edge(sp::START, "big");
  return g;
}

sp::Limits with_update(std::size_t bytes) {
  sp::Limits l;
  l.max_update_bytes = bytes;
  return l;
}

TEST(LimitsDefaults, AreGenerousAndBounded) {
  sp::Limits l;
  EXPECT_EQ(l.max_update_bytes, 256u << 20);
  EXPECT_EQ(l.max_checkpoint_bytes, 256u << 20);
  EXPECT_EQ(l.max_state_bytes, std::size_t{1} << 30);
  EXPECT_EQ(l.max_message_bytes, 32u << 20);
}

TEST(LimitsNoCheckpointer, UpdateExactlyAtTheLimitIsAcceptedOneByteOverIsRefused) {
  sp::CompileOptions opts;
  opts.limits = with_update(1000);
  auto app = big_writer().compile(opts);
  EXPECT_EQ(app.invoke(json{{"size", 996}})["data"].get<std::string>().size(), 996u);
  try {
    app.invoke(json{{"size", 997}});
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_update_bytes");
    EXPECT_EQ(e.configured(), 1000u);
    EXPECT_EQ(e.actual(), 1001u);
    EXPECT_EQ(e.graph(), "LangGraph");
    EXPECT_EQ(e.node(), "big");
    EXPECT_EQ(e.field(), "data");
    EXPECT_EQ(e.thread_id(), "");
    EXPECT_NE(std::string(e.what()).find("node 'big', key 'data': an update of at least 1001 bytes is over "
                                         "Limits::max_update_bytes (1000 bytes)"),
              std::string::npos)
        << e.what();
  }
  // The run's own limits replace the graph's.
  sp::RunConfig raised;
  raised.limits = with_update(2000);
  EXPECT_EQ(app.invoke(json{{"size", 997}}, raised)["data"].get<std::string>().size(), 997u);
}

TEST(LimitsNoCheckpointer, TheInputIsAnUpdateOfStart) {
  sp::CompileOptions opts;
  opts.limits = with_update(100);
  auto app = big_writer().compile(opts);
  try {
    app.invoke(json{{"size", 0}, {"data", std::string(200, 'y')}});
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.node(), "__start__");
    EXPECT_EQ(e.field(), "data");
  }
}

TEST(LimitsNoCheckpointer, SendsANodeMakesCountInItsUpdate) {
  sp::StateSchema schema;
  schema.field("total", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  g.add_node("fan", [](const sp::State&) {
    return sp::Command{.go_to = {sp::Send{"work", {{"i", std::string(500, 'z')}}}}};
  });
  g.add_node("work", [](const sp::State& s) { return json{{"total", s.get<std::string>("i").size()}}; });
  g.add_edge(sp::START, "fan");
  sp::CompileOptions opts;
  opts.limits = with_update(100);
  try {
    g.compile(opts).invoke(json::object());
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_update_bytes");
    EXPECT_EQ(e.node(), "fan");
    EXPECT_EQ(e.field(), "Send to 'work'");
  }
}

TEST_P(Limits, UpdateOverTheLimitFailsTheStepKeepsTheThreadAndAResumeWithARaisedLimitContinues) {
  std::atomic<int> runs = 0;
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  opts.limits = with_update(1000);
  auto app = big_writer(&runs).compile(opts);
  EXPECT_EQ(app.invoke(json{{"size", 996}}, cfg("t"))["data"].get<std::string>().size(), 996u);
  try {
    app.invoke(json{{"size", 997}}, cfg("t"));
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_update_bytes");
    EXPECT_EQ(e.actual(), 1001u);
    EXPECT_EQ(e.thread_id(), "t");
    EXPECT_EQ(e.node(), "big");
    EXPECT_EQ(e.field(), "data");
  }
  // Nothing of the refused update was stored; the input's checkpoint is the thread's latest.
  auto snap = app.get_state(cfg("t"));
  EXPECT_EQ(snap.values["size"], 997);
  EXPECT_EQ(snap.values["data"].get<std::string>().size(), 996u);
  EXPECT_EQ(snap.next, std::vector<std::string>{"big"});
  EXPECT_EQ(runs.load(), 2);
  // The same limit refuses again; a raised one continues the thread from there.
  EXPECT_THROW(app.invoke(nullptr, cfg("t")), sp::LimitError);
  auto out = app.invoke(nullptr, cfg("t", with_update(1001)));
  EXPECT_EQ(out["data"].get<std::string>().size(), 997u);
  // A smaller input is accepted under the first limit.
  EXPECT_EQ(app.invoke(json{{"size", 10}}, cfg("t"))["data"].get<std::string>().size(), 10u);
}

TEST_P(Limits, CheckpointOverTheLimitIsNotStoredAndTheSavedWritesResumeWithARaisedLimit) {
  std::atomic<int> runs = 0;
  sp::Limits limits;
  limits.max_checkpoint_bytes = 5000;
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  opts.limits = limits;
  auto app = big_writer(&runs).compile(opts);
  app.invoke(json{{"size", 100}}, cfg("c"));
  const auto before = app.get_state_history(cfg("c")).size();
  try {
    app.invoke(json{{"size", 6000}}, cfg("c"));
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_checkpoint_bytes") << e.what();
    EXPECT_EQ(e.configured(), 5000u);
    EXPECT_GT(e.actual(), 5000u);
    EXPECT_EQ(e.node(), "");
    EXPECT_EQ(e.field(), "data");
    EXPECT_EQ(e.thread_id(), "c");
  }
  // The steps before were stored, the node's was not: the thread's latest checkpoint holds
  // the old value and, as a pending write, what the node returned (get_state shows it applied,
  // as LangGraph does once every task of the step has finished).
  EXPECT_EQ(app.get_state_history(cfg("c")).size(), before + 2);  // the input's and __start__'s steps
  auto latest = saver->get_tuple(sp::CheckpointConfig{"c", "", std::nullopt});
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->checkpoint.channel_values["data"].get<std::string>().size(), 100u);
  ASSERT_FALSE(latest->pending_writes.empty());
  EXPECT_EQ(app.get_state(cfg("c")).values["data"].get<std::string>().size(), 6000u);
  // The task's writes were saved: a raised limit applies them without running the node again.
  sp::Limits raised = limits;
  raised.max_checkpoint_bytes = 10000;
  EXPECT_EQ(app.invoke(nullptr, cfg("c", raised))["data"].get<std::string>().size(), 6000u);
  EXPECT_EQ(runs.load(), 2);
  EXPECT_EQ(app.get_state(cfg("c")).values["data"].get<std::string>().size(), 6000u);
}

TEST_P(Limits, StateOverTheLimitStopsAGrowingThreadAtItsLastGoodCheckpoint) {
  // `log` grows by 100 bytes a step until `n` reaches `until`.
  sp::StateSchema schema;
  schema.field("log", sp::reducers::append).field("n", sp::reducers::add, 0).field("until");
  sp::StateGraph g(schema);
  g.add_node("grow", [](const sp::State&) { return json{{"log", json::array({std::string(100, 'l')})}, {"n", 1}}; });
  g.add_edge(sp::START, "grow");
  g.add_conditional_edges("grow", [](const sp::State& s) -> sp::Route {
    return s.get<int>("n") < s.get<int>("until") ? sp::Route("grow") : sp::Route(sp::END);
  });
  sp::Limits limits;
  limits.max_state_bytes = 2000;
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  opts.limits = limits;
  auto app = g.compile(opts);
  auto run = cfg("s");
  run.recursion_limit = 100;
  try {
    app.invoke(json{{"until", 50}}, run);
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_state_bytes");
    EXPECT_EQ(e.configured(), 2000u);
    EXPECT_GT(e.actual(), 2000u);
    EXPECT_EQ(e.field(), "log");
    EXPECT_EQ(e.thread_id(), "s");
  }
  // Every state stored is under the limit; the last one is readable and the run continues.
  auto snap = app.get_state(cfg("s"));
  const auto kept = snap.values["n"].get<int>();
  EXPECT_GT(kept, 10);
  EXPECT_LT(kept, 20);
  EXPECT_EQ(snap.values["log"].size(), static_cast<std::size_t>(kept));
  sp::Limits raised = limits;
  raised.max_state_bytes = 10000;
  run.limits = raised;
  auto out = app.invoke(nullptr, run);
  EXPECT_EQ(out["n"], 50);
  EXPECT_EQ(out["log"].size(), 50u);
}

TEST_P(Limits, MessageExactlyAtTheLimitIsAcceptedOneByteOverIsRefused) {
  sp::StateSchema schema;
  schema.field("messages", sp::reducers::add_messages).field("size");
  sp::StateGraph g(schema);
  g.add_node("model", [](const sp::State& s) {
    return json{{"messages", json::array({json{{"type", "ai"}, {"content", std::string(s.get<std::size_t>("size"), 'm')}}})}};
  });
  g.add_edge(sp::START, "model");
  sp::Limits limits;
  limits.max_message_bytes = 100;
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  opts.limits = limits;
  auto app = g.compile(opts);
  EXPECT_EQ(app.invoke(json{{"size", 100}}, cfg("m"))["messages"].size(), 1u);
  try {
    app.invoke(json{{"size", 101}}, cfg("m"));
    FAIL() << "no LimitError";
  } catch (const sp::LimitError& e) {
    EXPECT_EQ(e.limit(), "max_message_bytes");
    EXPECT_EQ(e.actual(), 101u);
    EXPECT_EQ(e.node(), "model");
    EXPECT_EQ(e.field(), "messages");
  }
  EXPECT_EQ(app.get_state(cfg("m")).values["messages"].size(), 1u);
  // The input's messages too, in any form add_messages takes.
  for (const json& input : {json{{"messages", std::string(101, 'h')}},
                            json{{"messages", json::array({json::array({"human", std::string(101, 'h')})})}}}) {
    auto c = cfg("m2");
    EXPECT_THROW(app.invoke(input, c), sp::LimitError) << input.dump().substr(0, 40);
  }
}

TEST_P(Limits, RecursionLimitKeepsEveryStepItRan) {
  // A loop that would run 100 steps, stopped by the recursion limit: the steps it ran stay
  // checkpointed and a run with a higher limit continues where it stopped.
  sp::StateSchema schema;
  schema.field("n", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  g.add_node("count", [](const sp::State&) { return json{{"n", 1}}; });
  g.add_edge(sp::START, "count");
  g.add_conditional_edges("count", [](const sp::State& s) -> sp::Route {
    return s.get<int>("n") < 100 ? sp::Route("count") : sp::Route(sp::END);
  });
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  auto app = g.compile(opts);
  auto c = cfg("r");
  c.recursion_limit = 10;
  try {
    app.invoke(json{{"n", 0}}, c);
    FAIL() << "no GraphRecursionError";
  } catch (const sp::GraphRecursionError& e) {
    EXPECT_NE(std::string(e.what()).find("Recursion limit of 10 reached"), std::string::npos) << e.what();
  }
  auto snap = app.get_state(c);
  // Steps 0 (__start__) to 10 ran and were stored: `count` ran ten times (steps 1 to 10).
  EXPECT_EQ(snap.values["n"], 10);
  EXPECT_EQ(snap.metadata["step"], 10);
  EXPECT_EQ(snap.next, std::vector<std::string>{"count"});
  c.recursion_limit = 200;
  EXPECT_EQ(app.invoke(nullptr, c)["n"], 100);
}

TEST_P(Limits, TenThousandParallelSendsComplete) {
  constexpr int kSends = 10'000;
  sp::StateSchema schema;
  schema.field("total", sp::reducers::add, 0).field("n");
  sp::StateGraph g(schema);
  g.add_node("fan", [](const sp::State&) { return json::object(); });
  g.add_node("work", [](const sp::State& s) { return json{{"total", s.get<int>("i")}}; });
  g.add_edge(sp::START, "fan");
  g.add_conditional_edges("fan", [](const sp::State& s) {
    std::vector<sp::Send> sends;
    for (int i = 1; i <= s.get<int>("n"); ++i) sends.push_back(sp::Send{"work", {{"i", i}}});
    return sends;
  });
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  auto out = g.compile(opts).invoke(json{{"n", kSends}}, cfg("f"));
  EXPECT_EQ(out["total"].get<int64_t>(), int64_t{kSends} * (kSends + 1) / 2);
}

TEST_P(Limits, ATenMegabyteValueRoundTrips) {
  constexpr std::size_t kBytes = 10u << 20;
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  auto app = big_writer().compile(opts);
  app.invoke(json{{"size", kBytes}}, cfg("v"));
  auto value = app.get_state(cfg("v")).values["data"].get<std::string>();
  EXPECT_EQ(value.size(), kBytes);
  EXPECT_EQ(value.find_first_not_of('x'), std::string::npos);
}

TEST(LimitsSqlite, ATenMegabyteValueIsReadBackByAnotherSaverOnTheFile) {
  constexpr std::size_t kBytes = 10u << 20;
  const std::string path = scratch_db("limits_10mb");
  {
    sp::CompileOptions opts;
    opts.checkpointer = std::make_shared<sp::SqliteSaver>(path);
    big_writer().compile(opts).invoke(json{{"size", kBytes}}, [] { sp::RunConfig c; c.thread_id = "v"; return c; }());
  }
  sp::CompileOptions opts;
  opts.checkpointer = std::make_shared<sp::SqliteSaver>(path);
  sp::RunConfig c;
  c.thread_id = "v";
  auto value = big_writer().compile(opts).get_state(c).values["data"].get<std::string>();
  EXPECT_EQ(value.size(), kBytes);
  EXPECT_EQ(value.find_first_not_of('x'), std::string::npos);
}

/// Counts what list() hands back, to show that a page of history reads a page.
struct CountingSaver : sp::ForwardingSaver {
  std::atomic<std::size_t> listed = 0;
  using ForwardingSaver::ForwardingSaver;
  std::vector<sp::CheckpointTuple> list(const sp::CheckpointQuery& q) override {
    auto out = ForwardingSaver::list(q);
    listed += out.size();
    return out;
  }
};

TEST_P(Limits, TenThousandCheckpointsInOneThreadAreReadInPages) {
  constexpr int kSteps = 10'000;
  auto counting = std::make_shared<CountingSaver>(saver);
  sp::StateSchema schema;
  // (No append channel: SqliteSaver reads all of an append channel's stored deltas to rebuild
  // any of its values, so a page there costs what the channel's whole value does;
  // docs/reliability.md, "Limits users can rely on".)
  schema.field("n", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  g.add_node("count", [](const sp::State&) { return json{{"n", 1}}; });
  g.add_edge(sp::START, "count");
  g.add_conditional_edges("count", [](const sp::State& s) -> sp::Route {
    return s.get<int>("n") < kSteps ? sp::Route("count") : sp::Route(sp::END);
  });
  sp::CompileOptions opts;
  opts.checkpointer = counting;
  auto app = g.compile(opts);
  auto c = cfg("h");
  c.recursion_limit = kSteps + 1;
  EXPECT_EQ(app.invoke(json{{"n", 0}}, c)["n"], kSteps);

  // Newest page, then the page at the thread's start, found by walking `before` from a page.
  constexpr std::size_t kPage = 20;
  auto timed_page = [&](std::optional<std::string> before, double* seconds, const sp::RunConfig& on) {
    std::vector<sp::StateSnapshot> page;
    *seconds = 1e9;
    for (int r = 0; r < 5; ++r) {  // the best of 5: the machine is shared
      counting->listed = 0;
      auto t0 = std::chrono::steady_clock::now();
      page = app.get_state_history(on, nullptr, before, kPage);
      *seconds = std::min(*seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      EXPECT_LE(counting->listed.load(), kPage) << "a page of history read more than a page";
    }
    return page;
  };
  double newest_s = 0, oldest_s = 0, next_s = 0;
  auto newest = timed_page(std::nullopt, &newest_s, c);
  ASSERT_EQ(newest.size(), kPage);
  EXPECT_EQ(newest[0].values["n"], kSteps);
  auto second = timed_page(newest.back().config.checkpoint_id, &next_s, c);
  ASSERT_EQ(second.size(), kPage);
  EXPECT_EQ(second[0].metadata["step"].get<int>(), newest.back().metadata["step"].get<int>() - 1);
  // The checkpoint at step 30 (ids are time-ordered: its successor's id pages before it).
  auto all_ids = app.get_state_history(c, json{{"step", 30}});
  ASSERT_EQ(all_ids.size(), 1u);
  auto oldest = timed_page(all_ids[0].config.checkpoint_id, &oldest_s, c);
  ASSERT_EQ(oldest.size(), kPage);
  EXPECT_EQ(oldest[0].metadata["step"], 29);
  EXPECT_EQ(oldest[0].values["n"], 29);
  EXPECT_EQ(oldest.back().metadata["step"], 10);
  // A page at the thread's start costs about what one at its end does (not 10^4 checkpoints'
  // worth): generous bounds, as the machine is shared.
  EXPECT_LT(oldest_s, 10 * std::max(newest_s, next_s) + 0.25) << "newest " << newest_s << " s, oldest " << oldest_s << " s";
  // ... and about what a page of a thread of 100 checkpoints costs: SqliteSaver once read the
  // whole thread's values and writes for a page, InMemorySaver picked every checkpoint before
  // `before` (a debug build: 37 ms a page at 10^4 against 2.6 ms at 100; release: 0.45 s at 10^5).
  auto small = cfg("h-small");
  small.recursion_limit = 200;
  app.invoke(json{{"n", kSteps - 100}}, small);
  double small_s = 0;
  timed_page(std::nullopt, &small_s, small);
  EXPECT_LT(std::max({newest_s, next_s, oldest_s}), 8 * small_s + 0.005) << "10^4 checkpoints: " << oldest_s << " s a page, 100: " << small_s << " s";
}

INSTANTIATE_TEST_SUITE_P(Savers, Limits, ::testing::ValuesIn(local_savers()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
