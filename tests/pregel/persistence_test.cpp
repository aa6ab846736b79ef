// The engine with a checkpointer (docs/persistence.md): checkpoints per step, interrupts and resume,
// interrupt_before/after, get_state/history/update_state, replay and fork, failure and resume,
// durability modes. Every case runs on every saver (memory, SQLite, PostgreSQL: saver_cases.hpp).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>

#include "saver_cases.hpp"
#include "test_util.hpp"
#include "typed/typed_states.hpp"

using namespace testing_util;

namespace {

class Persistence : public ::testing::TestWithParam<SaverCase> {
 protected:
  void SetUp() override {
    if (GetParam().needs_postgres) SUPERSTEP_REQUIRE_POSTGRES();
    saver = GetParam().make();
  }
  std::shared_ptr<sp::CheckpointSaver> saver;
  sp::RunConfig cfg(const std::string& thread) {
    sp::RunConfig c;
    c.thread_id = thread;
    return c;
  }
};

/// trace (append) and n (plain): a -> b -> c.
sp::CompiledStateGraph chain(std::shared_ptr<sp::CheckpointSaver> saver, sp::CompileOptions opts = {}) {
  sp::StateGraph g(trace_schema());
  g.add_sequence({{"a", tracer("a")}, {"b", tracer("b")}, {"c", tracer("c")}});
  g.add_edge(sp::START, "a");
  opts.checkpointer = std::move(saver);
  return g.compile(opts);
}

std::vector<std::string> sources(const std::vector<sp::StateSnapshot>& history) {
  std::vector<std::string> out;
  for (const auto& s : history) out.push_back(s.metadata["source"].get<std::string>() + ":" + s.metadata["step"].dump());
  return out;
}

/// A saver that hands every call to `inner`; with `deltas` false it says it stores no deltas, so
/// the engine hands it whole values and whole version maps (what LangGraph's savers get).
struct Forwarding : sp::ForwardingSaver {
  bool deltas = true;
  explicit Forwarding(std::shared_ptr<sp::CheckpointSaver> s, bool d = true) : ForwardingSaver(std::move(s)), deltas(d) {}
  sp::CheckpointConfig put(const sp::CheckpointConfig& c, const sp::Checkpoint& cp, const json& m, const json& nv) override {
    return put_with_deltas(c, cp, m, nv, {});
  }
  bool stores_deltas() const override { return deltas && inner()->stores_deltas(); }
};


/// get_state_history reads a thread incrementally (each checkpoint's changes applied to the one
/// before it); every snapshot must equal that checkpoint read alone, and a history cut by
/// `before`, `limit` or a filter must equal the same part of the whole one.
void expect_history_reads_like_each_checkpoint(const sp::CompiledStateGraph& app, const sp::RunConfig& config) {
  auto history = app.get_state_history(config);
  ASSERT_FALSE(history.empty());
  std::vector<json> whole;
  for (const auto& snap : history) {
    sp::RunConfig at = config;
    at.checkpoint_id = snap.config.checkpoint_id;
    whole.push_back(app.get_state(at).to_json());
    EXPECT_EQ(snap.to_json(), whole.back()) << "checkpoint " << whole.size() - 1 << " of " << history.size();
  }
  auto part = [&](const std::vector<sp::StateSnapshot>& got, std::size_t from) {
    ASSERT_LE(from + got.size(), whole.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].to_json(), whole[from + i]) << "checkpoint " << from + i;
  };
  const std::size_t mid = history.size() / 2;
  part(app.get_state_history(config, nullptr, history[mid].config.checkpoint_id), mid + 1);
  part(app.get_state_history(config, nullptr, std::nullopt, mid), 0);
  auto loops = app.get_state_history(config, json{{"source", "loop"}});
  std::size_t j = 0;
  for (const auto& snap : loops) {
    while (j < history.size() && history[j].config.checkpoint_id != snap.config.checkpoint_id) ++j;
    ASSERT_LT(j, history.size());
    EXPECT_EQ(snap.to_json(), whole[j]) << "loop checkpoint " << j;
  }
}

}  // namespace

// As LangGraph: what a node writes to an UntrackedValue key is never stored, not as the
// task's pending write and not inside the argument of a Send it makes.
// As LangGraph (checked on LangGraph.js 1.7.3): a history read with a config naming a
// checkpoint lists that checkpoint only, the same snapshot get_state gives.
TEST_P(Persistence, AHistoryOfAConfigNamingACheckpointListsThatOneOnly) {
  auto app = chain(saver);
  app.invoke(json{{"n", 1}}, cfg("one"));
  auto all = app.get_state_history(cfg("one"));
  ASSERT_EQ(all.size(), 5u);
  for (std::size_t i : {std::size_t{0}, std::size_t{2}, all.size() - 1}) {
    sp::RunConfig at = cfg("one");
    at.checkpoint_id = all[i].config.checkpoint_id;
    auto one = app.get_state_history(at);
    ASSERT_EQ(one.size(), 1u) << i;
    EXPECT_EQ(one[0].to_json(), all[i].to_json()) << i;
  }
}

TEST_P(Persistence, WritesToAnUntrackedKeyAreNeverStored) {
  sp::StateSchema s = trace_schema();
  s.field(sp::FieldSpec{"u", std::nullopt, std::nullopt, sp::ChannelKind::untracked});
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State&) -> sp::NodeResult {
    return sp::Command{.update = {{"u", "secret"}, {"trace", {"a"}}},
                       .go_to = sp::Route({sp::Destination(sp::Send{"b", json{{"u", "in send"}, {"trace", {"sent"}}}})})};
  });
  g.add_node("b", [](const sp::State& st) { return json{{"trace", {"b:" + st["u"].get<std::string>()}}}; });
  g.add_edge(sp::START, "a");
  auto app = g.compile({.checkpointer = saver});
  json out = app.invoke(json::object(), cfg("untracked"));
  EXPECT_EQ(out["trace"], json({"a", "b:in send"}));  // the run itself sees the values
  std::size_t seen = 0, sends = 0;
  for (const sp::CheckpointTuple& t : saver->list(sp::CheckpointQuery{.thread_id = "untracked"}))
    for (const sp::PendingWrite& w : t.pending_writes) {
      ++seen;
      EXPECT_NE(w.channel, "u") << w.value.dump();
      EXPECT_EQ(w.value.dump().find("secret"), std::string::npos) << w.channel;
      if (w.channel == sp::kTasksChannel) {
        ++sends;
        EXPECT_EQ(w.value["arg"], (json{{"trace", {"sent"}}})) << "the Send's argument keeps its tracked keys only";
      }
    }
  EXPECT_GT(seen, 0u);
  EXPECT_EQ(sends, 1u);
}

TEST_P(Persistence, CheckpointPerSuperstepWithSourcesStepsAndParents) {
  auto app = chain(saver);
  json out = app.invoke(json{{"n", 1}}, cfg("t1"));
  EXPECT_EQ(out, (json{{"trace", {"a", "b", "c"}}, {"n", 1}}));
  auto history = app.get_state_history(cfg("t1"));
  EXPECT_EQ(sources(history), (std::vector<std::string>{"loop:3", "loop:2", "loop:1", "loop:0", "input:-1"}));
  // Each checkpoint's parent is the one before it; the first has none.
  for (std::size_t i = 0; i + 1 < history.size(); ++i)
    EXPECT_EQ(history[i].parent_config->checkpoint_id, history[i + 1].config.checkpoint_id);
  EXPECT_FALSE(history.back().parent_config);
  EXPECT_EQ(history[0].values, out);
  EXPECT_TRUE(history[0].next.empty());
  EXPECT_EQ(history[1].next, std::vector<std::string>{"c"});
  EXPECT_EQ(history[4].next, std::vector<std::string>{"__start__"});
  EXPECT_EQ(history[0].metadata["thread_id"], "t1");

  // A second input continues the thread: its steps follow on.
  out = app.invoke(json{{"n", 2}}, cfg("t1"));
  EXPECT_EQ(out["trace"], json({"a", "b", "c", "a", "b", "c"}));
  EXPECT_EQ(app.get_state(cfg("t1")).metadata["step"], 8);  // input 4, __start__ 5, a 6, b 7, c 8
  EXPECT_EQ(app.get_state_history(cfg("t1"), nullptr, std::nullopt, 2).size(), 2u);
  EXPECT_EQ(app.get_state_history(cfg("t1"), json{{"source", "input"}}).size(), 2u);
  auto older = app.get_state_history(cfg("t1"), nullptr, history[2].config.checkpoint_id);
  EXPECT_EQ(sources(older), (std::vector<std::string>{"loop:0", "input:-1"}));
  expect_history_reads_like_each_checkpoint(app, cfg("t1"));
}

TEST_P(Persistence, InterruptInNodeThenResumeWithCommand) {
  std::atomic<int> runs{0};
  sp::StateSchema s;
  s.field("answer").field("trace", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("ask", [&](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    ++runs;
    json a = sp::interrupt(rt, json{{"question", "ship it?"}});
    return json{{"answer", a}, {"trace", {"ask"}}};
  });
  g.add_node("after", tracer("after"));
  g.add_edge(sp::START, "ask").add_edge("ask", "after");
  auto app = g.compile({.checkpointer = saver});

  json out = app.invoke(json::object(), cfg("t"));
  ASSERT_TRUE(out.contains("__interrupt__"));
  ASSERT_EQ(out["__interrupt__"].size(), 1u);
  EXPECT_EQ(out["__interrupt__"][0]["value"], (json{{"question", "ship it?"}}));
  std::string id = out["__interrupt__"][0]["id"];
  EXPECT_EQ(id.size(), 32u);

  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"ask"});
  ASSERT_EQ(st.tasks.size(), 1u);
  ASSERT_EQ(st.tasks[0].interrupts.size(), 1u);
  EXPECT_EQ(st.tasks[0].interrupts[0].id, id);
  EXPECT_EQ(st.interrupts.size(), 1u);

  json parts = collect(app.stream(sp::Command{.resume = "yes"}, cfg("t"), {sp::StreamMode::updates, sp::StreamMode::values}));
  // The resume's first `values` part is the state it resumes from: nothing written yet ("trace"
  // has no default), as LangGraph.
  json expected = json::parse(R"([
    ["values", {}],
    ["updates", {"ask": {"answer": "yes", "trace": ["ask"]}}],
    ["values", {"answer": "yes", "trace": ["ask"]}],
    ["updates", {"after": {"trace": ["after"]}}],
    ["values", {"answer": "yes", "trace": ["ask", "after"]}]
  ])");
  EXPECT_EQ(parts, expected);
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(app.get_state(cfg("t")).next.empty());

  // Nothing is pending and nothing is left to run: the thread has finished. As LangGraph, a
  // resume (a client retrying one, say; by value or by id) returns the final state, streams it
  // as one `values` part, runs nothing and stores nothing.
  auto before = app.get_state_history(cfg("t")).size();
  auto writes_before = saver->get_tuple({"t", "", std::nullopt})->pending_writes.size();
  const json final_state = {{"answer", "yes"}, {"trace", {"ask", "after"}}};
  EXPECT_EQ(app.invoke(sp::Command{.resume = "again"}, cfg("t")), final_state);
  EXPECT_EQ(app.invoke(sp::Command{.resume = json{{id, "again"}}}, cfg("t")), final_state);
  EXPECT_EQ(collect(app.stream(sp::Command{.resume = "again"}, cfg("t"), {sp::StreamMode::updates, sp::StreamMode::values})),
            json::array({json::array({"values", final_state})}));
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(app.get_state_history(cfg("t")).size(), before);
  EXPECT_EQ(saver->get_tuple({"t", "", std::nullopt})->pending_writes.size(), writes_before);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

// As LangGraph: a resume on a thread with no interrupt pending but tasks to run answers the
// first interrupt() the run reaches. The "edit, then approve" pattern: a node pauses, the state
// is changed with update_state (a new checkpoint, whose tasks have asked nothing yet), then the
// answer comes; and a pause before a node continues (the value is not asked for).
TEST_P(Persistence, AResumeWithNoInterruptPendingAnswersTheFirstInterruptTheRunReaches) {
  std::atomic<int> asked{0};
  sp::StateGraph g(trace_schema());
  g.add_node("pre", tracer("pre"));
  g.add_node("ask", [&](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    ++asked;
    json a = sp::interrupt(rt, "approve " + s.at("n").dump() + "?");
    return json{{"trace", {"ask:" + a.get<std::string>() + ":" + s.at("n").dump()}}};
  });
  g.add_node("post", tracer("post"));
  g.add_edge(sp::START, "pre").add_edge("pre", "ask").add_edge("ask", "post");
  auto app = g.compile({.checkpointer = saver});
  app.invoke(json{{"n", 1}}, cfg("edit"));
  app.update_state(cfg("edit"), json{{"n", 42}});
  auto st = app.get_state(cfg("edit"));
  EXPECT_EQ(st.next, std::vector<std::string>{"ask"});
  EXPECT_TRUE(st.interrupts.empty());
  json out = app.invoke(sp::Command{.resume = "yes"}, cfg("edit"));
  EXPECT_EQ(out["trace"], json({"pre", "ask:yes:42", "post"}));
  EXPECT_EQ(asked, 2);
  expect_history_reads_like_each_checkpoint(app, cfg("edit"));

  auto before = chain(saver, {.interrupt_before = {"b"}});
  before.invoke(json{{"n", 1}}, cfg("before"));
  EXPECT_EQ(before.invoke(sp::Command{.resume = "unused"}, cfg("before"))["trace"], json({"a", "b", "c"}));
}

TEST_P(Persistence, SeveralInterruptsInOneNodeAreAnsweredInOrder) {
  std::atomic<int> runs{0};
  sp::StateSchema s;
  s.field("out");
  sp::StateGraph g(s);
  g.add_node("form", [&](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    ++runs;
    json name = sp::interrupt(rt, "name?");
    json age = sp::interrupt(rt, "age?");
    return json{{"out", name.get<std::string>() + ":" + age.dump()}};
  });
  g.add_edge(sp::START, "form");
  auto app = g.compile({.checkpointer = saver});
  json r1 = app.invoke(json::object(), cfg("t"));
  EXPECT_EQ(r1["__interrupt__"][0]["value"], "name?");
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"form"});
  json r2 = app.invoke(sp::Command{.resume = "ada"}, cfg("t"));
  EXPECT_EQ(r2["__interrupt__"][0]["value"], "age?");
  EXPECT_NE(r2["__interrupt__"][0]["id"], r1["__interrupt__"][0]["id"]);
  // As LangGraph (Python and JS): the task holds an answer, so it is no longer in `next`, while
  // its task shows the interrupt now pending.
  st = app.get_state(cfg("t"));
  EXPECT_TRUE(st.next.empty());
  ASSERT_EQ(st.tasks.size(), 1u);
  ASSERT_EQ(st.tasks[0].interrupts.size(), 1u);
  EXPECT_EQ(st.tasks[0].interrupts[0].value, "age?");
  ASSERT_EQ(st.interrupts.size(), 1u);
  EXPECT_EQ(st.interrupts[0].id, r2["__interrupt__"][0]["id"]);
  json r3 = app.invoke(sp::Command{.resume = 36}, cfg("t"));
  EXPECT_EQ(r3, (json{{"out", "ada:36"}}));
  EXPECT_EQ(runs, 3);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, AnInterruptAmongParallelTasksStreamsItsValuesPartRightAfterItsUpdates) {
  // As LangGraph: the task that paused streams {"__interrupt__": [...]} as `updates` and at once
  // as `values`, whichever sibling finishes after it; then, as the step ends, the state with the
  // finished siblings' writes. A step that writes nothing streams no `values` part.
  sp::StateGraph g(trace_schema());
  g.add_node("fan", [](const sp::State&) {});
  g.add_conditional_edges("fan", [](const sp::State&) {
    std::vector<sp::Send> out;
    for (int i = 0; i < 4; ++i) out.push_back(sp::Send{"work", json{{"n", i}}});
    return sp::Route{std::move(out)};
  });
  g.add_node("work", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    int n = s.get<int>("n");
    if (n == 1) sp::interrupt(rt, "approve 1");
    return json{{"trace", {"w" + std::to_string(n)}}};
  });
  g.add_edge(sp::START, "fan");
  for (std::size_t workers : {1u, 2u}) {
    auto app = g.compile({.executor = pool(workers), .checkpointer = saver});
    const std::string thread = "t" + std::to_string(workers);
    json parts = collect(app.stream(json::object(), cfg(thread), {sp::StreamMode::updates, sp::StreamMode::values}));
    std::size_t at = parts.size();
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (parts[i][0] == "updates" && parts[i][1].contains("__interrupt__")) at = i;
    ASSERT_LT(at + 1, parts.size()) << parts;
    EXPECT_EQ(parts[at + 1][0], "values") << parts;
    EXPECT_EQ(parts[at + 1][1], parts[at][1]) << parts;
    EXPECT_EQ(parts[0], json::parse(R"(["updates", {"fan": null}])")) << "no values part before: nothing was written";
    EXPECT_EQ(parts.back(), json::parse(R"(["values", {"trace": ["w0", "w2", "w3"]}])")) << parts;
    int updates = 0;
    for (const json& p : parts) updates += p[0] == "updates";
    EXPECT_EQ(updates, 5) << parts;  // fan, three workers, the interrupt
    json done = app.invoke(sp::Command{.resume = "yes"}, cfg(thread));
    EXPECT_EQ(done["trace"], json({"w0", "w1", "w2", "w3"}));  // the step applied whole, in Send order
  }
}

TEST_P(Persistence, ParallelInterruptsResumedByIdAndFinishedSiblingNotRerun) {
  std::map<std::string, int> runs;
  std::mutex m;
  auto count = [&](const std::string& n) {
    std::lock_guard lock(m);
    ++runs[n];
  };
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) {
    count("a");
    return json{{"trace", {"a"}}};
  });
  for (std::string n : {"b", "c"})
    g.add_node(n, [&, n](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
      count(n);
      json v = sp::interrupt(rt, "approve " + n);
      return json{{"trace", {n + "=" + v.get<std::string>()}}};
    });
  g.add_node("join", tracer("join"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
  g.add_edge({"a", "b", "c"}, "join");
  auto app = g.compile({.executor = pool(2), .checkpointer = saver});

  json out = app.invoke(json::object(), cfg("t"));
  ASSERT_EQ(out["__interrupt__"].size(), 2u);
  // The final values show what the finished sibling wrote.
  EXPECT_EQ(out["trace"], json({"a"}));
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.values["trace"], json({"a"}));
  EXPECT_EQ(st.next, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(st.tasks[0].result, (json{{"trace", {"a"}}}));

  std::map<std::string, std::string> id_of;
  for (const auto& i : out["__interrupt__"]) id_of[i["value"].get<std::string>()] = i["id"].get<std::string>();
  // One value for two pending interrupts is ambiguous.
  EXPECT_THROW(app.invoke(sp::Command{.resume = "x"}, cfg("t")), sp::InvalidUpdateError);

  // Resume only c: b is still pending.
  json r = app.invoke(sp::Command{.resume = json{{id_of["approve c"], "ok-c"}}}, cfg("t"));
  ASSERT_EQ(r["__interrupt__"].size(), 1u);
  EXPECT_EQ(r["__interrupt__"][0]["value"], "approve b");
  // As LangGraph: the finished task c still shows the interrupt it was resumed from, so the
  // snapshot lists both; answering every listed id (LangGraph's pattern) answers b and skips c.
  st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"b"});
  ASSERT_EQ(st.interrupts.size(), 2u);
  ASSERT_EQ(st.tasks.size(), 3u);
  EXPECT_EQ(st.tasks[2].name, "c");
  ASSERT_EQ(st.tasks[2].interrupts.size(), 1u);
  EXPECT_EQ(st.tasks[2].result, (json{{"trace", {"c=ok-c"}}}));
  // An id no interrupt of the thread has (a typo), or only answered ones: errors naming the pending id.
  for (const json& bad : {json{{"0123456789abcdef0123456789abcdef", "?"}}, json{{id_of["approve c"], "again"}}}) {
    try {
      app.invoke(sp::Command{.resume = bad}, cfg("t"));
      FAIL() << bad.dump();
    } catch (const sp::InvalidUpdateError& e) {
      EXPECT_NE(std::string(e.what()).find(id_of["approve b"]), std::string::npos) << e.what();
    }
  }
  json every = json::object();
  for (const sp::Interrupt& i : st.interrupts) every[i.id] = "ok-" + i.value.get<std::string>().substr(8);
  r = app.invoke(sp::Command{.resume = every}, cfg("t"));
  EXPECT_EQ(r["trace"], json({"a", "b=ok-b", "c=ok-c", "join"}));
  EXPECT_EQ(runs["a"], 1);  // finished before the pause: never run again
  EXPECT_EQ(runs["c"], 2);  // paused, then answered
  EXPECT_EQ(runs["b"], 3);  // paused, asked again (c's resume), then answered
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, InterruptBeforeAndAfterAtCompileTimeAndPerCall) {
  auto app = chain(saver, {.interrupt_before = {"b"}, .interrupt_after = {"b"}});
  json parts = collect(app.stream(json{{"n", 1}}, cfg("t"), {sp::StreamMode::updates}));
  EXPECT_EQ(parts.back(), json::parse(R"(["updates", {"__interrupt__": []}])"));
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"b"});
  EXPECT_EQ(st.values["trace"], json({"a"}));

  json out = app.invoke(nullptr, cfg("t"));  // runs b, then pauses after it
  EXPECT_EQ(out["trace"], json({"a", "b"}));
  EXPECT_EQ(out["__interrupt__"], json::array());
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"c"});
  out = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(out, (json{{"trace", {"a", "b", "c"}}, {"n", 1}}));
  out = app.invoke(nullptr, cfg("t"));  // nothing left to run
  EXPECT_EQ(out, (json{{"trace", {"a", "b", "c"}}, {"n", 1}}));

  // Per call, replacing the compiled lists; "*" is every node.
  auto plain = chain(saver);
  sp::RunConfig c = cfg("t2");
  c.interrupt_before = std::vector<std::string>{"*"};
  out = plain.invoke(json{{"n", 1}}, c);
  EXPECT_EQ(out, (json{{"n", 1}, {"__interrupt__", json::array()}}));  // paused before "a": "trace" (no default) unwritten
  EXPECT_EQ(plain.get_state(cfg("t2")).next, std::vector<std::string>{"a"});
  c.interrupt_before = std::vector<std::string>{"zzz"};
  EXPECT_THROW(plain.invoke(nullptr, c), sp::Error);
}

TEST_P(Persistence, FailedStepResumesAndRerunsOnlyTheFailedTask) {
  std::atomic<int> a_runs{0}, b_runs{0};
  std::atomic<bool> fail{true};
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) {
    ++a_runs;
    return json{{"trace", {"a"}}};
  });
  g.add_node("b", [&](const sp::State&) -> sp::NodeResult {
    ++b_runs;
    if (fail) throw std::runtime_error("service down");
    return json{{"trace", {"b"}}};
  }, {.retry = sp::RetryPolicy{.max_attempts = 1}});
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  auto app = g.compile({.executor = pool(2), .checkpointer = saver});
  EXPECT_THROW(app.invoke(json::object(), cfg("t")), sp::NodeError);
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"b"});
  ASSERT_EQ(st.tasks.size(), 2u);
  EXPECT_EQ(st.tasks[1].name, "b");
  ASSERT_TRUE(st.tasks[1].error);
  EXPECT_NE(st.tasks[1].error->find("service down"), std::string::npos);
  fail = false;
  json out = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(out["trace"], json({"a", "b"}));
  EXPECT_EQ(a_runs, 1);
  EXPECT_EQ(b_runs, 2);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

// A failure does not skip the step's other tasks, whatever order they run in: one at a time
// (max_concurrency 1) the failing task runs first, and every sibling still runs, has its writes
// saved and shown by get_state, and is not run again on resume (LangGraph.js starts them all).
TEST_P(Persistence, AFailedTaskDoesNotSkipItsSiblingsWhateverTheOrder) {
  std::atomic<int> sibling_runs{0}, told_cancelled{0};
  std::atomic<bool> fail{true};
  sp::StateGraph g(trace_schema());
  g.add_node("a_fails", [&](const sp::State&) -> sp::NodeResult {
    if (fail) throw std::runtime_error("service down");
    return json{{"trace", {"a_fails"}}};
  }, {.retry = sp::RetryPolicy{.max_attempts = 1}});
  for (std::string name : {"b", "c", "d"}) {
    g.add_node(name, [&, name](const sp::State&, sp::Runtime& rt) {
      ++sibling_runs;
      if (rt.cancelled()) ++told_cancelled;
      return json{{"trace", {name}}};
    });
    g.add_edge(sp::START, name);
  }
  g.add_edge(sp::START, "a_fails");
  auto app = g.compile({.executor = pool(2), .checkpointer = saver});
  sp::RunConfig one_at_a_time = cfg("t");
  one_at_a_time.max_concurrency = 1;
  EXPECT_THROW(app.invoke(json::object(), one_at_a_time), sp::NodeError);
  EXPECT_EQ(sibling_runs, 3);
  EXPECT_EQ(told_cancelled, 3);  // each ran after a_fails failed, and could have stopped early
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"a_fails"});
  EXPECT_EQ(st.values["trace"], json({"b", "c", "d"}));
  ASSERT_EQ(st.tasks.size(), 4u);
  ASSERT_TRUE(st.tasks[0].error);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(st.tasks[i].result["trace"], json({st.tasks[i].name})) << i;
  fail = false;
  EXPECT_EQ(app.invoke(nullptr, cfg("t"))["trace"], json({"a_fails", "b", "c", "d"}));
  EXPECT_EQ(sibling_runs, 3);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, UpdateStateAsNodeRunsItsEdgesAndRejectsBadInput) {
  auto app = chain(saver, {.interrupt_before = {"b"}});
  app.invoke(json{{"n", 1}}, cfg("t"));
  // No as_node: the node that ran last (a), so next is b.
  sp::RunConfig saved = app.update_state(cfg("t"), json{{"trace", {"manual"}}});
  ASSERT_TRUE(saved.checkpoint_id);
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.values["trace"], json({"a", "manual"}));
  EXPECT_EQ(st.next, std::vector<std::string>{"b"});
  EXPECT_EQ(st.metadata["source"], "update");
  EXPECT_EQ(st.metadata["step"], 2);
  EXPECT_EQ(st.config.checkpoint_id, saved.checkpoint_id);
  // As b: c runs next, b does not.
  app.update_state(cfg("t"), json{{"trace", {"as-b"}}}, "b");
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"c"});
  json out = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(out["trace"], json({"a", "manual", "as-b", "c"}));

  try {
    app.update_state(cfg("t"), json{{"trace", {"x"}}}, "zzz");
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("'zzz'"), std::string::npos) << e.what();
  }
  try {
    app.update_state(cfg("t"), json{{"totl", 1}}, "a");
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("'totl'"), std::string::npos) << e.what();
  }
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, UpdateStateAsEndClearsTasksAndCopyForks) {
  auto app = chain(saver, {.interrupt_before = {"b"}});
  app.invoke(json{{"n", 1}}, cfg("t"));
  app.update_state(cfg("t"), nullptr, sp::END);
  auto st = app.get_state(cfg("t"));
  EXPECT_TRUE(st.next.empty());
  EXPECT_EQ(st.values["trace"], json({"a"}));
  sp::RunConfig fork = app.update_state(cfg("t"), nullptr, "__copy__");
  auto copy = app.get_state(fork);
  EXPECT_EQ(copy.metadata["source"], "fork");
  EXPECT_EQ(copy.metadata["step"], st.metadata["step"].get<int>() + 1);  // as LangGraph: the step after
  EXPECT_EQ(copy.values, st.values);
  EXPECT_EQ(copy.parent_config->checkpoint_id, st.config.checkpoint_id);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

// Checked against LangGraph.js 1.7.3: the node update_state picks without as_node, START as a
// node, and the step of an __input__ update.
TEST_P(Persistence, UpdateStateOnANewThreadIsItsInputAndStartIsANode) {
  // No as_node on a thread no node has run on: START, so the values are the input and START's
  // edges are taken (a single-node graph too: START, not the node).
  auto app = chain(saver);
  app.update_state(cfg("fresh"), json{{"trace", {"u"}}, {"n", 1}});
  auto st = app.get_state(cfg("fresh"));
  EXPECT_EQ(st.values, json({{"trace", {"u"}}, {"n", 1}}));
  EXPECT_EQ(st.next, std::vector<std::string>{"a"});
  EXPECT_EQ(st.metadata["source"], "update");
  EXPECT_EQ(st.metadata["step"], 0);
  EXPECT_EQ(app.invoke(nullptr, cfg("fresh"))["trace"], json({"u", "a", "b", "c"}));

  sp::StateGraph one(trace_schema());
  one.add_node("a", tracer("a"));
  one.add_edge(sp::START, "a");
  auto single = one.compile({.checkpointer = saver});
  single.update_state(cfg("single"), json{{"trace", {"u"}}});
  EXPECT_EQ(single.get_state(cfg("single")).next, std::vector<std::string>{"a"});
  EXPECT_EQ(single.invoke(nullptr, cfg("single"))["trace"], json({"u", "a"}));
  // Paused before a after START's step: START saw the newest version, so the update is START's
  // again and a is still next.
  auto paused = one.compile({.checkpointer = saver, .interrupt_before = {"a"}});
  paused.invoke(json{{"trace", {"x"}}}, cfg("paused"));
  paused.update_state(cfg("paused"), json{{"trace", {"u"}}});
  st = paused.get_state(cfg("paused"));
  EXPECT_EQ(st.next, std::vector<std::string>{"a"});
  EXPECT_EQ(st.metadata["step"], 1);
  EXPECT_EQ(paused.invoke(nullptr, cfg("paused"))["trace"], json({"x", "u", "a"}));

  // as_node START by name: its conditional edge routes on the updated state.
  sp::StateGraph routed(trace_schema());
  routed.add_node("low", tracer("low"));
  routed.add_node("high", tracer("high"));
  routed.add_conditional_edges(sp::START, [](const sp::State& s) { return sp::Route(s["n"].get<int>() > 5 ? "high" : "low"); },
                               std::vector<std::string>{"low", "high"});
  auto router = routed.compile({.checkpointer = saver});
  router.update_state(cfg("routed"), json{{"n", 9}, {"trace", {"u"}}}, sp::START);
  EXPECT_EQ(router.get_state(cfg("routed")).next, std::vector<std::string>{"high"});
  EXPECT_EQ(router.invoke(nullptr, cfg("routed"))["trace"], json({"u", "high"}));

  // __input__ on a new thread is its first checkpoint, step -1 (as an invoke's input); on a
  // thread with checkpoints, the step after the latest.
  app.update_state(cfg("input"), json{{"trace", {"u"}}}, "__input__");
  st = app.get_state(cfg("input"));
  EXPECT_EQ(st.metadata["source"], "input");
  EXPECT_EQ(st.metadata["step"], -1);
  EXPECT_EQ(st.next, std::vector<std::string>{"__start__"});
  EXPECT_EQ(app.invoke(nullptr, cfg("input"))["trace"], json({"u", "a", "b", "c"}));
  app.update_state(cfg("input"), json{{"trace", {"again"}}}, "__input__");
  EXPECT_EQ(app.get_state(cfg("input")).metadata["step"], 4);
  app.invoke(nullptr, cfg("input"));
  EXPECT_EQ(sources(app.get_state_history(cfg("input"))),
            (std::vector<std::string>{"loop:8", "loop:7", "loop:6", "loop:5", "input:4", "loop:3", "loop:2",
                                      "loop:1", "loop:0", "input:-1"}));

  // Two nodes ran last together: ambiguous.
  sp::StateGraph par(trace_schema());
  par.add_node("a", tracer("a"));
  par.add_node("b", tracer("b"));
  par.add_node("c", tracer("c"));
  par.add_edge(sp::START, "a");
  par.add_edge(sp::START, "b");
  par.add_edge("a", "c");
  par.add_edge("b", "c");
  auto both = par.compile({.checkpointer = saver, .interrupt_before = {"c"}});
  both.invoke(json{{"n", 1}}, cfg("both"));
  try {
    both.update_state(cfg("both"), json{{"trace", {"u"}}});
    FAIL() << "an update after two parallel nodes needs as_node";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("pass as_node"), std::string::npos) << e.what();
  }
  both.update_state(cfg("both"), json{{"trace", {"u"}}}, "b");
  EXPECT_EQ(both.invoke(nullptr, cfg("both"))["trace"], json({"a", "b", "u", "c"}));
  expect_history_reads_like_each_checkpoint(app, cfg("input"));
}

TEST_P(Persistence, BulkUpdateStateMakesOneCheckpointPerSuperstepWithItsUpdatesAppliedTogether) {
  // START -> fetch_a, fetch_b -> merge: the second superstep writes as both fetchers at once, as
  // if they had run in parallel, so merge is next (its join needs both).
  sp::StateGraph g(trace_schema());
  g.add_node("fetch_a", tracer("fetch_a")).add_node("fetch_b", tracer("fetch_b")).add_node("merge", tracer("merge"));
  g.add_edge(sp::START, "fetch_a").add_edge(sp::START, "fetch_b");
  g.add_edge(std::vector<std::string>{"fetch_a", "fetch_b"}, "merge");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig out = app.bulk_update_state(cfg("bulk"), {{{json{{"trace", {"in"}}}, sp::START}},
                                                         {{json{{"trace", {"a"}}}, "fetch_a"}, {json{{"trace", {"b"}}}, "fetch_b"}}});
  auto st = app.get_state(cfg("bulk"));
  EXPECT_EQ(out.checkpoint_id, st.config.checkpoint_id);
  EXPECT_EQ(st.values["trace"], json({"in", "a", "b"}));
  EXPECT_EQ(st.next, std::vector<std::string>{"merge"});
  EXPECT_EQ(sources(app.get_state_history(cfg("bulk"))), (std::vector<std::string>{"update:1", "update:0"}));
  EXPECT_EQ(app.invoke(nullptr, cfg("bulk"))["trace"], json({"in", "a", "b", "merge"}));

  // Special updates stand alone; an unknown node or an empty superstep is named.
  auto refused = [&](std::vector<std::vector<sp::StateUpdate>> steps, const std::string& expect) {
    try {
      app.bulk_update_state(cfg("bulk"), steps);
      ADD_FAILURE() << "accepted; expected: " << expect;
    } catch (const sp::InvalidUpdateError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  refused({{{nullptr, "__copy__"}, {json{{"trace", {"x"}}}, "fetch_a"}}}, "'__copy__' must be alone in its superstep");
  refused({{{json{{"trace", {"x"}}}, "nope"}}}, "as_node 'nope' is not a node");
  refused({{}}, "needs at least one update");
  refused({}, "needs a superstep");
  EXPECT_EQ(app.get_state(cfg("bulk")).values["trace"], json({"in", "a", "b", "merge"}));  // nothing applied
}

TEST_P(Persistence, ReplayFromPastCheckpointForksAndRerunsLaterSteps) {
  std::atomic<int> c_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_sequence({{"a", tracer("a")}, {"b", tracer("b")}});
  g.add_node("c", [&](const sp::State&) {
    ++c_runs;
    return json{{"trace", {"c"}}};
  });
  g.add_edge(sp::START, "a").add_edge("b", "c");
  auto app = g.compile({.checkpointer = saver});
  app.invoke(json{{"n", 1}}, cfg("t"));
  auto history = app.get_state_history(cfg("t"));
  const sp::StateSnapshot& before_c = history[1];  // next = c
  ASSERT_EQ(before_c.next, std::vector<std::string>{"c"});
  sp::RunConfig at = cfg("t");
  at.checkpoint_id = before_c.config.checkpoint_id;
  json out = app.invoke(nullptr, at);
  EXPECT_EQ(out["trace"], json({"a", "b", "c"}));
  EXPECT_EQ(c_runs, 2);
  auto latest = app.get_state(cfg("t"));
  // The new branch hangs off a fork of the replayed checkpoint.
  auto fork = app.get_state(sp::RunConfig{.thread_id = "t", .checkpoint_id = latest.parent_config->checkpoint_id});
  EXPECT_EQ(fork.metadata["source"], "fork");
  EXPECT_EQ(fork.parent_config->checkpoint_id, before_c.config.checkpoint_id);
  // As LangGraph (Python and JS 1.7.3): the fork is the step after the replayed checkpoint's, and
  // the replayed step follows it.
  EXPECT_EQ(fork.next, std::vector<std::string>{"c"});
  EXPECT_EQ(fork.metadata["step"], before_c.metadata["step"].get<int>() + 1);
  EXPECT_EQ(latest.metadata["step"], before_c.metadata["step"].get<int>() + 2);

  // A new input at a past checkpoint forks too: the state starts from that checkpoint.
  at.checkpoint_id = history[2].config.checkpoint_id;  // after a, next b
  out = app.invoke(json{{"n", 9}}, at);
  EXPECT_EQ(out["trace"], json({"a", "a", "b", "c"}));
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

// Values are stored under (channel, version): a branch started from a past checkpoint must not
// reuse the versions a later checkpoint of the first branch holds, or it overwrites them.
TEST_P(Persistence, ForksFromPastCheckpointsLeaveTheOtherBranchesIntact) {
  sp::StateGraph g(trace_schema());
  for (std::string name : {"a", "b", "c"})
    g.add_node(name, [name](const sp::State& s) {
      return json{{"trace", json::array({name})}, {"n", s["n"].get<int>() + 1}};
    });
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile({.checkpointer = saver});
  app.invoke(json{{"n", 0}}, cfg("t"));
  // Every checkpoint as it reads now; each branch below must leave all of them as they are.
  std::map<std::string, json> seen;
  auto record = [&] {
    for (const auto& snap : app.get_state_history(cfg("t")))
      seen.emplace(*snap.config.checkpoint_id, snap.to_json());
  };
  auto expect_unchanged = [&](const char* after) {
    for (const auto& [id, state] : seen) {
      sp::RunConfig at = cfg("t");
      at.checkpoint_id = id;
      EXPECT_EQ(app.get_state(at).to_json(), state) << "checkpoint " << id << " after " << after;
    }
  };
  record();
  auto history = app.get_state_history(cfg("t"));
  ASSERT_EQ(history.size(), 5u);  // input, a, b, c, and the end
  auto at_step = [&](int step) {
    sp::RunConfig at = cfg("t");
    for (const auto& snap : history)
      if (snap.metadata["step"] == step) at.checkpoint_id = snap.config.checkpoint_id;
    return at;
  };
  EXPECT_EQ(app.get_state(cfg("t")).values, json({{"trace", {"a", "b", "c"}}, {"n", 3}}));

  // update_state at the checkpoint after a, then run the new branch to its end.
  sp::RunConfig fork = app.update_state(at_step(1), json{{"n", 100}, {"trace", {"x"}}}, "a");
  EXPECT_EQ(app.invoke(nullptr, fork), json({{"trace", {"a", "x", "b", "c"}}, {"n", 102}}));
  expect_unchanged("update_state and a run from the fork");
  record();

  // Replay from the checkpoint after b: c runs again, on a branch of its own.
  EXPECT_EQ(app.invoke(nullptr, at_step(2)), json({{"trace", {"a", "b", "c"}}, {"n", 3}}));
  expect_unchanged("a replay");
  record();

  // A new input at the first checkpoint, and a __copy__ fork of the checkpoint after a.
  EXPECT_EQ(app.invoke(json{{"n", 50}}, at_step(-1)), json({{"trace", {"a", "b", "c"}}, {"n", 53}}));
  sp::RunConfig copy = app.update_state(at_step(1), nullptr, "__copy__");
  EXPECT_EQ(app.invoke(nullptr, copy), json({{"trace", {"a", "b", "c"}}, {"n", 3}}));
  expect_unchanged("a new input and a __copy__ fork");
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, DurabilityModesGiveTheSameStateAndExitStoresOnlyTheEnd) {
  for (sp::Durability d : {sp::Durability::sync, sp::Durability::async, sp::Durability::exit}) {
    auto app = chain(saver);
    std::string thread = "d" + std::to_string(static_cast<int>(d));
    sp::RunConfig c = cfg(thread);
    c.durability = d;
    EXPECT_EQ(app.invoke(json{{"n", 1}}, c), (json{{"trace", {"a", "b", "c"}}, {"n", 1}}));
    auto history = app.get_state_history(cfg(thread));
    EXPECT_EQ(history.size(), d == sp::Durability::exit ? 1u : 5u);
    EXPECT_EQ(history[0].values["trace"], json({"a", "b", "c"}));
    EXPECT_EQ(history[0].metadata["step"], 3);
  }
  // Exit durability with an interrupt: the paused step is stored and resumes.
  sp::StateSchema s;
  s.field("v");
  sp::StateGraph g(s);
  g.add_node("a", [](const sp::State&) { return json{{"v", 1}}; });
  g.add_node("ask", [](const sp::State& st, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"v", st.get<int>("v") + sp::interrupt(rt, "n?").get<int>()}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "ask");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig c = cfg("exit-int");
  c.durability = sp::Durability::exit;
  EXPECT_TRUE(app.invoke(json::object(), c).contains("__interrupt__"));
  EXPECT_EQ(app.get_state(c).next, std::vector<std::string>{"ask"});
  EXPECT_EQ(app.invoke(sp::Command{.resume = 41}, c), (json{{"v", 42}}));
}

// With durability exit only the run's last checkpoint is stored: a `checkpoints` part names the
// newest stored one (the one the run started from; none on a new thread) and no parent, as
// LangGraph.js 1.7.3 does, so every id a client reads from the stream can be read back
// (before, each part named a new id that was never stored: differential md_exit_checkpoints).
TEST_P(Persistence, ExitDurabilityCheckpointPartsNameOnlyStoredCheckpoints) {
  auto app = chain(saver, {.interrupt_before = {"b"}});
  sp::RunConfig c = cfg("exit-parts");
  c.durability = sp::Durability::exit;
  auto named = [&](const json& input) {
    std::vector<json> ids;
    for (const auto& p : app.stream(input, c, {sp::StreamMode::checkpoints})) {
      ids.push_back(p.data["config"]["configurable"].value("checkpoint_id", json(nullptr)));
      EXPECT_TRUE(p.data["parent_config"].is_null()) << p.data.dump();
    }
    return ids;
  };
  std::vector<json> first = named(json{{"n", 1}});  // a new thread, paused before b
  ASSERT_EQ(first.size(), 3u);                       // steps -1, 0 (start) and 1 (a)
  for (const json& id : first) EXPECT_TRUE(id.is_null()) << id;
  const std::string paused = *app.get_state(c).config.checkpoint_id;
  std::vector<json> resumed = named(nullptr);  // the paused checkpoint again, then b and c
  ASSERT_EQ(resumed.size(), 3u);
  for (const json& id : resumed) {
    EXPECT_EQ(id, paused);
    sp::RunConfig at = c;
    at.checkpoint_id = id.get<std::string>();
    EXPECT_EQ(app.get_state(at).config.checkpoint_id, paused);  // readable: it is stored
  }
}

TEST_P(Persistence, CheckpointsStreamMode) {
  auto app = chain(saver);
  int n = 0;
  json last;
  for (const auto& p : app.stream(json{{"n", 1}}, cfg("t"), {sp::StreamMode::checkpoints})) {
    EXPECT_EQ(p.mode, sp::StreamMode::checkpoints);
    last = p.data;
    ++n;
  }
  EXPECT_EQ(n, 5);
  EXPECT_EQ(last["metadata"]["step"], 3);
  EXPECT_EQ(last["values"]["trace"], json({"a", "b", "c"}));
  EXPECT_EQ(last["next"], json::array());
  EXPECT_EQ(last["config"]["configurable"]["thread_id"], "t");
}

TEST_P(Persistence, CommandUpdateAndGoToAsInput) {
  auto app = chain(saver, {.interrupt_before = {"b"}});
  app.invoke(json{{"n", 1}}, cfg("t"));
  json out = app.invoke(sp::Command{.update = json{{"n", 7}}, .go_to = "c"}, cfg("t"));
  // b was pending; go_to adds c; both run (b first by name), then c after b.
  EXPECT_EQ(out["n"], 7);
  EXPECT_EQ(out["trace"], json({"a", "b", "c", "c"}));
  EXPECT_THROW(app.invoke(sp::Command{.update = json{{"zz", 1}}}, cfg("t")), sp::InvalidUpdateError);
  EXPECT_THROW(app.invoke(sp::Command{}, cfg("t")), sp::EmptyInputError);
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, NewInputOnAPausedThreadDiscardsThePendingTasks) {
  auto app = chain(saver, {.interrupt_before = {"b"}});
  app.invoke(json{{"n", 1}}, cfg("t"));
  json out = app.invoke(json{{"n", 5}}, cfg("t"));
  EXPECT_EQ(out["trace"], json({"a", "a"}));
  EXPECT_EQ(out["n"], 5);
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"b"});
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, BadAddressesAndMissingThreadIdAreClearErrors) {
  auto app = chain(saver);
  EXPECT_THROW(app.invoke(json::object(), sp::RunConfig{}), sp::Error);
  EXPECT_THROW(app.invoke(nullptr, cfg("nobody")), sp::EmptyInputError);
  sp::RunConfig bad = cfg("nobody");
  bad.checkpoint_id = "1f000000-0000-6000-8000-000000000000";
  EXPECT_THROW(app.invoke(nullptr, bad), sp::CheckpointError);
  EXPECT_THROW(app.get_state(bad), sp::CheckpointError);
  // An unknown thread has an empty state (as in LangGraph).
  auto st = app.get_state(cfg("nobody"));
  EXPECT_EQ(st.values, json::object());
  EXPECT_TRUE(st.next.empty());
  // Thread ids are data, whatever they hold.
  std::string odd = std::string("it's \"t\"; DROP TABLE checkpoints;--") + '\0' + "x";
  EXPECT_EQ(app.invoke(json{{"n", 3}}, cfg(odd))["n"], 3);
  EXPECT_EQ(app.get_state(cfg(odd)).values["n"], 3);
  EXPECT_EQ(app.get_state(cfg("it's \"t\"; DROP TABLE checkpoints;--")).values, json::object());
}

TEST_P(Persistence, SecondConcurrentRunOnOneThreadIsRefused) {
  std::atomic<bool> release{false}, started{false};
  sp::StateGraph g(trace_schema());
  g.add_node("slow", [&](const sp::State&) {
    started = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return json{{"trace", {"slow"}}};
  });
  g.add_edge(sp::START, "slow");
  auto app = g.compile({.executor = pool(2), .checkpointer = saver});
  std::thread first([&] { app.invoke(json::object(), cfg("busy")); });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  try {
    app.invoke(json::object(), cfg("busy"));
    ADD_FAILURE() << "a second run on a busy thread must fail";
  } catch (const sp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("already has a run in progress"), std::string::npos) << e.what();
  }
  release = true;
  first.join();
  EXPECT_EQ(app.get_state(cfg("busy")).values["trace"], json({"slow"}));
  EXPECT_EQ(app.invoke(json::object(), cfg("busy"))["trace"], json({"slow", "slow"}));
}

TEST_P(Persistence, SendFanOutSurvivesAPause) {
  sp::StateSchema s;
  s.field("results", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("plan", [](const sp::State&) { return json::object(); });
  g.add_node("work", [](const sp::State& in) { return json{{"results", {in.get<int>("i") * 2}}}; });
  g.add_edge(sp::START, "plan");
  g.add_conditional_edges("plan", [](const sp::State&) {
    std::vector<sp::Send> out;
    for (int i = 0; i < 3; ++i) out.push_back(sp::Send{"work", json{{"i", i}}});
    return sp::Route(out);
  });
  auto app = g.compile({.checkpointer = saver, .interrupt_after = {"plan"}});
  json out = app.invoke(json::object(), cfg("t"));
  EXPECT_EQ(out["__interrupt__"], json::array());
  EXPECT_EQ(app.get_state(cfg("t")).next, (std::vector<std::string>{"work", "work", "work"}));
  out = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(out["results"], json({0, 2, 4}));
  expect_history_reads_like_each_checkpoint(app, cfg("t"));
}

TEST_P(Persistence, VersionMapsStoredAsChangesReadBackLikeWholeMapsOverLongRuns) {
  // 150 nodes (two chains of whole maps and changes), a Send fan-out in the middle (its
  // __pregel_tasks version comes and goes) and a pause; every durability mode. The same graph on
  // a saver given whole maps is the reference.
  sp::StateSchema s;
  s.field("count").field("trace", sp::reducers::append);
  sp::StateGraph g(s);
  const int n = 150;
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    g.add_node(name, [name](const sp::State& st) { return json{{"count", st.get<int>("count") + 1}, {"trace", {name}}}; });
    if (i > 0 && i != 76) g.add_edge("n" + std::to_string(i - 1), name);
  }
  g.add_node("w", [](const sp::State& in) { return json{{"trace", {"w" + std::to_string(in.get<int>("i"))}}}; });
  g.add_conditional_edges("n75", [](const sp::State&) {
    return sp::Route{sp::Send{"w", {{"i", 1}}}, sp::Send{"w", {{"i", 2}}}};
  });
  g.add_edge("w", "n76");
  g.add_edge(sp::START, "n0");
  g.add_edge("n" + std::to_string(n - 1), sp::END);
  auto reference = std::make_shared<Forwarding>(std::make_shared<sp::InMemorySaver>(), /*deltas=*/false);
  for (sp::Durability d : {sp::Durability::sync, sp::Durability::async}) {
    const std::string thread = d == sp::Durability::sync ? "long-sync" : "long-async";
    auto run = [&](std::shared_ptr<sp::CheckpointSaver> to) {
      auto app = g.compile({.checkpointer = to, .interrupt_before = {"n100"}});
      sp::RunConfig c = cfg(thread);
      c.durability = d;
      c.recursion_limit = 1000;
      app.invoke(json{{"count", 0}}, c);
      return app.invoke(nullptr, c);
    };
    json want = run(reference);
    ASSERT_EQ(want["count"], n);
    EXPECT_EQ(run(saver), want);
    sp::CheckpointQuery q;
    q.thread_id = thread;
    auto got = saver->list(q), ref = reference->list(q);
    ASSERT_EQ(got.size(), ref.size());
    ASSERT_GT(got.size(), 140u);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].checkpoint.channel_versions, ref[i].checkpoint.channel_versions) << "checkpoint " << i;
      EXPECT_EQ(got[i].checkpoint.versions_seen, ref[i].checkpoint.versions_seen) << "checkpoint " << i;
      EXPECT_EQ(got[i].checkpoint.channel_values, ref[i].checkpoint.channel_values) << "checkpoint " << i;
      EXPECT_EQ(got[i].checkpoint.updated_channels, ref[i].checkpoint.updated_channels) << "checkpoint " << i;
    }
    // The paused checkpoint reads back whole by id too (a chain resolved on its own).
    auto app = g.compile({.checkpointer = saver});
    sp::RunConfig at = cfg(thread);
    at.checkpoint_id = got[got.size() / 2].config.checkpoint_id;
    auto snap = app.get_state(at);
    sp::RunConfig ref_at = cfg(thread);
    ref_at.checkpoint_id = ref[ref.size() / 2].config.checkpoint_id;
    auto ref_snap = g.compile({.checkpointer = reference}).get_state(ref_at);
    EXPECT_EQ(snap.values, ref_snap.values);
    EXPECT_EQ(snap.next, ref_snap.next);
    expect_history_reads_like_each_checkpoint(app, cfg(thread));
  }
}

TEST_P(Persistence, HistoryReadIncrementallyEqualsEachCheckpointThroughForksPausesAndUpdates) {
  // A loop of 90 steps (longer than one chain of version-map changes), a Send fan-out, a pause
  // answered with a Command that also updates (writes of no task pending on a checkpoint),
  // update_state as a node and as __copy__, and a replay from a past checkpoint (a second branch
  // whose checkpoints interleave with the first in the listing).
  sp::StateSchema s;
  s.field("count").field("trace", sp::reducers::append).field("note");
  sp::StateGraph g(s);
  g.add_node("step", [](const sp::State& st) {
    return json{{"count", st.get<int>("count") + 1}, {"trace", {"s" + std::to_string(st.get<int>("count"))}}};
  });
  g.add_node("w", [](const sp::State& in) { return json{{"trace", {"w" + std::to_string(in.get<int>("i"))}}}; });
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"note", sp::interrupt(rt, "note?")}, {"trace", {"ask"}}};
  });
  g.add_edge(sp::START, "step");
  g.add_conditional_edges("step", [](const sp::State& st) -> sp::Route {
    int c = st.get<int>("count");
    if (c == 30) return std::vector<sp::Send>{sp::Send{"w", {{"i", 1}}}, sp::Send{"w", {{"i", 2}}}};
    if (c == 70) return "ask";
    if (c >= 90) return sp::END;
    return "step";
  });
  g.add_edge("w", "step").add_edge("ask", "step");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig c = cfg("t");
  c.recursion_limit = 1000;
  json out = app.invoke(json{{"count", 0}}, c);
  ASSERT_TRUE(out.contains("__interrupt__"));
  out = app.invoke(sp::Command{.update = json{{"note", "updated"}}, .resume = "answered"}, c);
  EXPECT_EQ(out["count"], 90);
  EXPECT_EQ(out["note"], "answered");
  expect_history_reads_like_each_checkpoint(app, c);

  auto history = app.get_state_history(c);
  // update_state on a past checkpoint, a __copy__ fork, and a replay from the middle.
  sp::RunConfig at = c;
  at.checkpoint_id = history[history.size() / 3].config.checkpoint_id;
  sp::RunConfig updated = app.update_state(at, json{{"trace", {"manual"}}, {"note", "m"}}, "step");
  app.update_state(updated, nullptr, "__copy__");
  at.checkpoint_id = history[history.size() / 2].config.checkpoint_id;
  out = app.invoke(nullptr, at);
  EXPECT_TRUE(out.contains("__interrupt__"));  // the replay reaches `ask` again
  out = app.invoke(nullptr, updated);
  EXPECT_TRUE(out.contains("__interrupt__"));
  out = app.invoke(sp::Command{.resume = "again"}, c);  // the thread's latest: the second fork
  EXPECT_EQ(out["count"], 90);
  EXPECT_EQ(out["note"], "again");
  expect_history_reads_like_each_checkpoint(app, c);
}

TEST_P(Persistence, InterruptWithoutCheckpointerIsAClearError) {
  // As LangGraph: GraphValueError, raised as it is (not wrapped in the node's error) and not
  // retried, even under a policy that retries every error.
  std::atomic<int> runs{0};
  sp::StateSchema s;
  s.field("v");
  sp::StateGraph g(s);
  sp::RetryPolicy always{.initial_interval = 0, .jitter = false};
  always.retry_on = [](std::exception_ptr) { return true; };
  g.add_node("ask", [&](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    ++runs;
    return json{{"v", sp::interrupt(rt, 1)}};
  }, {.retry = always});
  g.add_edge(sp::START, "ask");
  try {
    g.compile().invoke(json::object());
    FAIL();
  } catch (const sp::NodeError& e) {
    FAIL() << "wrapped: " << e.what();
  } catch (const sp::GraphValueError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'ask' called interrupt(), which needs a checkpointer"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(runs, 1);
}

TEST_P(Persistence, AConversationStoredAsAppendsReadsBackWholeThroughReplacesAndOverwrites) {
  // Each turn is one invoke adding a human message; the `ai` node answers. Turn 5 replaces the
  // first answer by id and turn 8 overwrites the history: those steps are stored whole, the
  // others as appends, and every checkpoint reads back as the run saw it.
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages).field("turn");
  sp::StateGraph g(s);
  g.add_node("ai", [](const sp::State& st) -> sp::NodeResult {
    int turn = st.get<int>("turn");
    if (turn == 5) return json{{"messages", {{{"id", "ai-1"}, {"type", "ai"}, {"content", "edited"}}}}};
    if (turn == 8) return json{{"messages", sp::Overwrite{json::array({{{"id", "sum"}, {"type", "ai"}, {"content", "summary"}}})}}};
    return json{{"messages", {{{"id", "ai-" + std::to_string(turn)}, {"type", "ai"}, {"content", "answer " + std::to_string(turn)}}}}};
  });
  g.add_edge(sp::START, "ai");
  // Counts how `messages` reaches the saver: as an append, or whole.
  struct Counting : Forwarding {
    std::atomic<int> appends{0}, whole{0};
    using Forwarding::Forwarding;
    sp::CheckpointConfig put_with_deltas(const sp::CheckpointConfig& c, const sp::Checkpoint& cp, const json& m,
                                         const json& nv, const sp::PutDeltas& d) override {
      for (const auto& delta : d.appends) appends += delta.channel == "messages";
      whole += cp.channel_values.contains("messages");
      return Forwarding::put_with_deltas(c, cp, m, nv, d);
    }
  };
  auto counting = std::make_shared<Counting>(saver);
  auto app = g.compile({.checkpointer = counting});
  std::vector<json> seen;  // the messages after each turn, as the run returned them
  for (int turn = 1; turn <= 10; ++turn) {
    json human = {{"id", "h-" + std::to_string(turn)}, {"type", "human"}, {"content", "q"}};
    json out = app.invoke(json{{"turn", turn}, {"messages", json::array({human})}}, cfg("conv"));
    seen.push_back(out["messages"]);
  }
  ASSERT_EQ(seen[3].size(), 8u);
  EXPECT_EQ(seen[4].size(), 9u) << "turn 5 replaced ai-1 instead of adding";
  EXPECT_EQ(seen[4][1]["content"], "edited");
  EXPECT_EQ(seen[7].size(), 1u);
  EXPECT_EQ(seen[9].size(), 5u);
  // The history, newest first: the `loop` checkpoint after each turn's `ai` step holds `seen`.
  std::vector<json> stored;
  for (const auto& snap : app.get_state_history(cfg("conv")))
    if (snap.metadata["source"] == "loop" && snap.next.empty()) stored.push_back(snap.values["messages"]);
  std::reverse(stored.begin(), stored.end());
  EXPECT_EQ(stored, seen);
  EXPECT_EQ(app.get_state(cfg("conv")).values["messages"], seen.back());
  // `messages` (no default: no value until written) reaches the saver 20 times, twice per turn
  // (the human message, the answer). Stored whole: the first message, the replace at turn 5 and
  // the overwrite at turn 8; the other 17 as appends.
  EXPECT_EQ(counting->whole.load(), 3);
  EXPECT_EQ(counting->appends.load(), 17);
  expect_history_reads_like_each_checkpoint(app, cfg("conv"));
}

TEST_P(Persistence, TypedSendsPendingAtAPauseAreRestoredAsStructs) {
  using U = sp::Update<Flow>;
  sp::TypedStateGraph<Flow> g;
  g.add_node("worker", [](const Flow& s) { return U().set<&Flow::trace>(std::vector<std::string>{s.text + std::to_string(s.n)}); });
  g.set_conditional_entry_point([](const Flow&) {
    std::vector<sp::Send> sends;
    for (int i = 1; i <= 3; ++i) {
      Flow arg;
      arg.n = i;
      arg.text = "w";
      sends.push_back(sp::send("worker", arg));
    }
    return sends;
  });
  auto app = g.compile({.checkpointer = saver, .interrupt_before = {"worker"}});
  Flow paused = app.invoke(U(), cfg("t"));
  EXPECT_TRUE(paused.trace.empty());
  EXPECT_EQ(app.get_state(cfg("t")).next, (std::vector<std::string>{"worker", "worker", "worker"}));
  // A new graph object (as in a new process) resumes the stored Sends with their structs.
  Flow done = g.compile({.checkpointer = saver, .interrupt_before = {"worker"}}).invoke(nullptr, cfg("t"));
  EXPECT_EQ(done.trace, (std::vector<std::string>{"w1", "w2", "w3"}));
  expect_history_reads_like_each_checkpoint(app.json_graph(), cfg("t"));
}

TEST_P(Persistence, TypedStatePausesResumesAndUpdatesFieldByField) {
  using U = sp::Update<Flow>;
  sp::TypedStateGraph<Flow> g;
  g.add_node("a", [](const Flow&) { return U().set<&Flow::trace>(std::vector<std::string>{"a"}).set<&Flow::n>(1); });
  g.add_node("ask", [](const Flow& s, sp::Runtime& rt) {
    json answer = sp::interrupt(rt, "go?");
    return U().set<&Flow::text>(answer.get<std::string>()).set<&Flow::total>(s.n);
  });
  g.add_node("b", [](const Flow&) { return U().set<&Flow::trace>(std::vector<std::string>{"b"}); });
  g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "b");
  auto app = g.compile({.checkpointer = saver, .interrupt_before = {"b"}});

  Flow paused = app.invoke(U().set<&Flow::n>(5), cfg("t"));
  EXPECT_EQ(paused.n, 1);
  EXPECT_EQ(paused.text, "start");
  auto st = app.get_state(cfg("t"));
  EXPECT_EQ(st.next, std::vector<std::string>{"ask"});
  EXPECT_EQ(st.values["trace"], json({"a"}));
  EXPECT_EQ(st.values["total"], 10);

  Flow at_b = app.invoke(sp::Command{.resume = "yes"}, cfg("t"));  // then pauses before b
  EXPECT_EQ(at_b.text, "yes");
  EXPECT_EQ(at_b.total, 11);  // add reducer: 10 + n
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"b"});

  app.update_state(cfg("t"), json{{"trace", {"manual"}}}, "ask");
  Flow done = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(done.trace, (std::vector<std::string>{"a", "manual", "b"}));
  EXPECT_EQ(done.total, 11);
  EXPECT_EQ(app.get_state_history(cfg("t")).front().values["trace"], json({"a", "manual", "b"}));
  // The thread has finished: a resume returns its state, runs and stores nothing (as LangGraph).
  const std::size_t stored = app.get_state_history(cfg("t")).size();
  Flow again = app.invoke(sp::Command{.resume = "again"}, cfg("t"));
  EXPECT_EQ(again.trace, done.trace);
  EXPECT_EQ(again.text, "yes");
  EXPECT_EQ(app.get_state_history(cfg("t")).size(), stored);
  expect_history_reads_like_each_checkpoint(app.json_graph(), cfg("t"));
}

TEST_P(Persistence, AStoppedRunKeepsItsCheckpointsAndContinuesFromThemWithNullInput) {
  // RunConfig::stop: the step running finishes and is checkpointed; the run ends before the next.
  std::stop_source stop;
  std::atomic<int> a_ran{0}, c_ran{0};
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) {
    ++a_ran;
    return json{{"trace", {"a"}}};
  });
  g.add_node("b", [&](const sp::State&) {
    stop.request_stop();
    return json{{"trace", {"b"}}};
  });
  g.add_node("c", [&](const sp::State&) {
    ++c_ran;
    return json{{"trace", {"c"}}};
  });
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile({.checkpointer = saver});
  for (sp::Durability d : {sp::Durability::sync, sp::Durability::async, sp::Durability::exit}) {
    SCOPED_TRACE(static_cast<int>(d));
    const std::string thread = "stop-" + std::to_string(static_cast<int>(d));
    a_ran = c_ran = 0;
    sp::RunConfig config = cfg(thread);
    config.durability = d;
    config.stop = stop.get_token();
    EXPECT_THROW(app.invoke(json::object(), config), sp::RunCancelledError);
    sp::StateSnapshot s = app.get_state(cfg(thread));
    EXPECT_EQ(s.values["trace"], json({"a", "b"}));
    EXPECT_EQ(s.next, std::vector<std::string>{"c"});
    EXPECT_EQ(c_ran, 0);
    stop = std::stop_source();  // a fresh source for the next runs (the old one stays stopped)
    EXPECT_EQ(app.invoke(nullptr, cfg(thread))["trace"], json({"a", "b", "c"}));
    EXPECT_EQ(a_ran, 1);  // nothing that finished runs again
    EXPECT_EQ(c_ran, 1);
  }
}

// Durability sync: a step whose only task ran on the consumer's thread stores that task's
// writes and the step's checkpoint in one batch() (one transaction in SqliteSaver), writes
// first; a parallel step stores each task's writes as it finishes. Held writes are never lost
// when the run goes no further: a stream dropped right after the task's `updates` part still
// stores them, so a resume does not run the task again.
TEST_P(Persistence, AOneTaskStepStoresItsWritesWithItsCheckpointInOneBatchAndKeepsThemWhenDropped) {
  struct Recording : Forwarding {
    using Forwarding::Forwarding;
    std::mutex m;
    std::vector<std::string> log;
    void note(std::string s) {
      std::lock_guard l(m);
      log.push_back(std::move(s));
    }
    void batch(const std::function<void()>& w) override {
      note("{");
      Forwarding::batch(w);
      note("}");
    }
    sp::CheckpointConfig put_with_deltas(const sp::CheckpointConfig& c, const sp::Checkpoint& cp, const json& meta,
                                         const json& nv, const sp::PutDeltas& d) override {
      note("put " + meta["step"].dump());
      return Forwarding::put_with_deltas(c, cp, meta, nv, d);
    }
    void put_writes(const sp::CheckpointConfig& c, const std::vector<std::pair<std::string, json>>& w,
                    const std::string& t, const std::string& p) override {
      note("writes");
      Forwarding::put_writes(c, w, t, p);
    }
  };
  auto rec = std::make_shared<Recording>(saver);
  std::atomic<int> a_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("a", [&](const sp::State&) {
    ++a_runs;
    return json{{"trace", {"a"}}};
  });
  g.add_node("b", tracer("b"));
  g.add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("a", "c");
  auto app = g.compile({.executor = pool(2), .checkpointer = rec});
  sp::RunConfig config = cfg("t");
  config.durability = sp::Durability::sync;
  EXPECT_EQ(app.invoke(json::object(), config)["trace"], json({"a", "b", "c"}));
  // Step -1, the input checkpoint, with step 0 (__start__) and its writes: one batch; step 1 (a):
  // one batch; step 2 (b and c in parallel): their writes as each finishes, then the checkpoint.
  EXPECT_EQ(rec->log, (std::vector<std::string>{"{", "put -1", "writes", "put 0", "}", "{", "writes", "put 1", "}",
                                                "writes", "writes", "put 2"}));

  // A run dropped right after its input checkpoint (held for step 0's batch) stores it all the
  // same: the input is not lost, and null input goes on from it.
  {
    sp::RunConfig d = cfg("dropped-at-input");
    d.durability = sp::Durability::sync;
    auto stream = app.stream(json::object(), d, {sp::StreamMode::checkpoints});
    auto it = stream.begin();
    ASSERT_NE(it, stream.end());
    EXPECT_EQ((*it).data["metadata"]["source"], "input");
  }
  auto history = app.get_state_history(cfg("dropped-at-input"));
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history.back().metadata["source"], "input");
  EXPECT_EQ(history.back().metadata["step"], -1);
  EXPECT_EQ(app.invoke(nullptr, cfg("dropped-at-input"))["trace"], json({"a", "b", "c"}));

  a_runs = 0;
  {
    sp::RunConfig d = cfg("dropped");
    d.durability = sp::Durability::sync;
    auto stream = app.stream(json::object(), d, {sp::StreamMode::updates});
    auto it = stream.begin();
    ASSERT_NE(it, stream.end());
    EXPECT_EQ((*it).data, json({{"a", {{"trace", {"a"}}}}}));
  }  // dropped between a's end and its step's checkpoint
  sp::StateSnapshot st = app.get_state(cfg("dropped"));
  ASSERT_EQ(st.tasks.size(), 1u);
  EXPECT_EQ(st.tasks[0].name, "a");
  EXPECT_TRUE(st.next.empty());  // as LangGraph: a task whose writes are stored is not "next"
  EXPECT_EQ(app.invoke(nullptr, cfg("dropped"))["trace"], json({"a", "b", "c"}));
  EXPECT_EQ(a_runs, 1);  // its writes were stored: it did not run again
}

TEST_P(Persistence, AStopInsideASubgraphStopsTheParentAndNullInputContinuesTheSubgraph) {
  std::stop_source stop;
  std::atomic<int> inner1_ran{0};
  sp::StateGraph child(trace_schema());
  child.add_node("inner1", [&](const sp::State&) {
    ++inner1_ran;
    stop.request_stop();
    return json{{"trace", {"inner1"}}};
  });
  child.add_node("inner2", tracer("inner2"));
  child.add_edge(sp::START, "inner1").add_edge("inner1", "inner2");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", child.compile()).add_node("after", tracer("after"));
  g.add_edge(sp::START, "sub").add_edge("sub", "after");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig config = cfg("t");
  config.stop = stop.get_token();
  EXPECT_THROW(app.invoke(json::object(), config), sp::RunCancelledError);
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"sub"});
  EXPECT_EQ(app.invoke(nullptr, cfg("t"))["trace"], json({"inner1", "inner2", "after"}));
  EXPECT_EQ(inner1_ran, 1);  // the subgraph continued from its own checkpoint
}

TEST_P(Persistence, AStopWakesANodeAwaitingATimerOrACallbackAndTheResumeRunsItAgain) {
  // sleep_for and await_callback end at once when the run is stopped: the node throws
  // RunCancelledError there, the run ends with it, its sibling's writes are kept, and null input
  // runs the stopped node again.
  std::stop_source stop;
  std::atomic<int> slept{0}, called{0}, sibling_ran{0}, waiting{0};
  double seconds = 30;
  sp::StateGraph g(trace_schema());
  g.add_node("sleeper", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    ++waiting;
    co_await sp::sleep_for(rt, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
    ++slept;
    co_return json{{"trace", {"sleeper"}}};
  });
  g.add_node("caller", [&](const sp::State&, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    // an operation that never completes by itself unless the run goes on
    ++waiting;
    json v = co_await sp::await_callback<json>(rt, [&](sp::Completion<json> done) {
      if (seconds < 1) done.complete("answered");
    });
    ++called;
    co_return json{{"trace", {"caller:" + v.get<std::string>()}}};
  });
  g.add_node("sibling", [&](const sp::State&) {
    ++sibling_ran;
    return json{{"trace", {"sibling"}}};
  });
  g.add_edge(sp::START, "sleeper").add_edge(sp::START, "caller").add_edge(sp::START, "sibling");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig config = cfg("stop-wakes");
  config.durability = sp::Durability::sync;
  config.stop = stop.get_token();
  std::thread stopper([&] {  // once the sibling ran and the other two wait (a stop before would end the run sooner)
    for (int i = 0; i < 1000 && (sibling_ran < 1 || waiting < 2); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop.request_stop();
  });
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(app.invoke(json::object(), config), sp::RunCancelledError);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));  // not the 30 s sleep
  EXPECT_EQ(slept, 0);
  EXPECT_EQ(called, 0);
  EXPECT_EQ(sibling_ran, 1);
  sp::StateSnapshot s = app.get_state(cfg("stop-wakes"));
  // The step is not applied; the sibling's writes are saved, so only the stopped nodes are next.
  EXPECT_EQ(s.next, (std::vector<std::string>{"caller", "sleeper"}));
  seconds = 0.01;
  json out = app.invoke(nullptr, cfg("stop-wakes"));
  EXPECT_EQ(slept, 1);
  EXPECT_EQ(called, 1);
  EXPECT_EQ(sibling_ran, 1);  // its writes were kept: it does not run again
  EXPECT_EQ(out["trace"].size(), 3u) << out;
}

TEST_P(Persistence, RollingBackAResumeRunLeavesTheThreadPausedAsBeforeIt) {
  // What the server's cancel with action=rollback does: delete the run's checkpoints; the thread
  // is back at the interrupt, and a new resume runs from there.
  std::atomic<int> after_ran{0};
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
    json answer = sp::interrupt(rt, "ship it?");
    return json{{"trace", {"ask:" + answer.get<std::string>()}}};
  });
  g.add_node("after", [&](const sp::State&) {
    ++after_ran;
    return json{{"trace", {"after"}}};
  });
  g.add_edge(sp::START, "ask").add_edge("ask", "after");
  auto app = g.compile({.checkpointer = saver});
  sp::RunConfig first = cfg("t");
  first.run_id = "run-1";
  app.invoke(json::object(), first);
  const std::size_t before = app.get_state_history(cfg("t")).size();
  sp::RunConfig second = cfg("t");
  second.run_id = "run-2";
  EXPECT_EQ(app.invoke(sp::Command{.resume = "no"}, second)["trace"], json({"ask:no", "after"}));
  EXPECT_GT(saver->delete_run_checkpoints("t", "run-2"), 0u);
  EXPECT_EQ(app.get_state_history(cfg("t")).size(), before);
  sp::StateSnapshot s = app.get_state(cfg("t"));
  EXPECT_EQ(s.next, std::vector<std::string>{"ask"});
  ASSERT_EQ(s.interrupts.size(), 1u);
  EXPECT_EQ(s.interrupts[0].value, "ship it?");
  EXPECT_EQ(app.invoke(sp::Command{.resume = "yes"}, cfg("t"))["trace"], json({"ask:yes", "after"}));
  EXPECT_EQ(after_ran, 2);
}

INSTANTIATE_TEST_SUITE_P(Savers, Persistence, ::testing::ValuesIn(saver_cases()),
                         [](const auto& info) { return info.param.name; });

// --- one run per thread across processes: two savers on one store stand for two processes ---

/// A graph whose node waits until `release` is set; `entered` tells that a run is inside it.
struct Gate {
  std::atomic<bool> entered{false}, release{false};
  sp::CompiledStateGraph graph(std::shared_ptr<sp::CheckpointSaver> saver) {
    sp::StateGraph g(trace_schema());
    g.add_node("wait", [this](const sp::State&) {
      entered = true;
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return json{{"trace", {"waited"}}};
    });
    g.add_edge(sp::START, "wait");
    return g.compile({.checkpointer = std::move(saver)});
  }
};

void expect_second_run_refused_across_savers(std::shared_ptr<sp::CheckpointSaver> a,
                                             std::shared_ptr<sp::CheckpointSaver> b) {
  Gate gate;
  auto first = gate.graph(a);
  auto second = gate.graph(b);
  sp::RunConfig cfg;
  cfg.thread_id = "shared";
  std::thread holder([&] { first.invoke(json::object(), cfg); });
  while (!gate.entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  try {
    second.invoke(json::object(), cfg);
    ADD_FAILURE() << "a second run on a thread held through another saver must be refused";
  } catch (const sp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("thread 'shared' already has a run in progress in another process"),
              std::string::npos)
        << e.what();
  }
  sp::RunConfig other = cfg;
  other.thread_id = "other";
  gate.release = true;  // (the other thread is free all along)
  EXPECT_EQ(second.invoke(json::object(), other)["trace"], json({"waited"}));
  holder.join();
  // Released: the second saver may run the thread now, and nothing was lost.
  EXPECT_EQ(second.invoke(json::object(), cfg)["trace"], json({"waited", "waited"}));
}

TEST(ThreadClaims, SqliteRefusesASecondRunFromAnotherSaverAndTakesOverAfterADeadProcess) {
  std::string path = scratch_db("claims");
  auto a = std::make_shared<sp::SqliteSaver>(path);
  auto b = std::make_shared<sp::SqliteSaver>(path);
  expect_second_run_refused_across_savers(a, b);

  // A claim left by a process that died (a reaped child's pid) is taken over; one held by
  // another host is honoured.
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  auto stale = [&](const std::string& thread, const std::string& on_host) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql = "INSERT INTO thread_claims VALUES ('" + thread + "', '', 'gone', '" + on_host + "', " +
                      std::to_string(child) + ")";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  stale("crashed", host);
  stale("elsewhere", "another-host");
  Gate gate;
  gate.release = true;
  auto app = gate.graph(a);
  sp::RunConfig cfg;
  cfg.thread_id = "crashed";
  EXPECT_EQ(app.invoke(json::object(), cfg)["trace"], json({"waited"}));
  cfg.thread_id = "elsewhere";
  EXPECT_THROW(app.invoke(json::object(), cfg), sp::Error);
}

TEST(ThreadClaims, PostgresRefusesASecondRunFromAnotherSaverAndFreesTheThreadWhenItsConnectionDies) {
  SUPERSTEP_REQUIRE_POSTGRES();
  PgSchema schema("claims");
  auto a = std::make_shared<sp::PostgresSaver>(schema.dsn + " application_name=claim_a_" + std::to_string(::getpid()));
  auto b = std::make_shared<sp::PostgresSaver>(schema.dsn);
  expect_second_run_refused_across_savers(a, b);

  // A holder whose connection dies (its process crashed) frees the thread.
  auto held = a->claim_thread("t", "");
  ASSERT_TRUE(held);
  EXPECT_FALSE(b->claim_thread("t", ""));
  pg_exec(schema.dsn, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'claim_a_" +
                          std::to_string(::getpid()) + "'");
  std::unique_ptr<sp::ThreadClaim> taken;
  for (int i = 0; i < 1000 && !taken; ++i) {
    taken = b->claim_thread("t", "");
    if (!taken) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(taken);
  held.reset();  // releasing on a dead connection is harmless
}

// A task that finished writing nothing at all (no key, no edge) beside one that paused: the
// resume does not run it again, and it is not in `next` (LangGraph stores its NO_WRITES
// marker; superstep used to store nothing for it and ran it again, side effects and all).
TEST_P(Persistence, AFinishedTaskThatWroteNothingIsNotRunAgainOnResume) {
  std::atomic<int> quiet_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"trace", {"ask=" + sp::interrupt(rt, "ok?").get<std::string>()}}};
  });
  g.add_node("quiet", [&](const sp::State&) {
    ++quiet_runs;
    return json::object();
  });
  g.add_edge(sp::START, "ask").add_edge(sp::START, "quiet");
  auto app = g.compile({.executor = pool(2), .checkpointer = saver});
  json out = app.invoke(json::object(), cfg("t"));
  ASSERT_EQ(out["__interrupt__"].size(), 1u);
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"ask"});
  // The checkpoint the resume streams first shows the finished task with no result (it wrote no
  // state key), as get_state does and LangGraph does in both.
  json first;
  for (const auto& p : app.stream(sp::Command{.resume = "yes"}, cfg("t"), {sp::StreamMode::checkpoints, sp::StreamMode::values})) {
    if (p.mode == sp::StreamMode::checkpoints && first.is_null()) first = p.data;
    if (p.mode == sp::StreamMode::values) out = p.data;
  }
  ASSERT_TRUE(first.is_object());
  bool saw_quiet = false;
  for (const json& task : first["tasks"])
    if (task["name"] == "quiet") {
      saw_quiet = true;
      EXPECT_FALSE(task.contains("result")) << task.dump();
    }
  EXPECT_TRUE(saw_quiet) << first.dump();
  EXPECT_EQ(out["trace"], json({"ask=yes"}));
  EXPECT_EQ(quiet_runs.load(), 1);
}

// As LangGraph.js 1.7.3 (tests/differential er_interrupt_retry): a node answered on resume that
// then fails once and is retried gets the same answer on its retry, not a new interrupt.
TEST_P(Persistence, ARetriedNodeGetsTheAnswerItsInterruptWasGiven) {
  std::atomic<int> calls{0};
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [&](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    std::string a = sp::interrupt(rt, "q").get<std::string>();
    if (++calls == 1) throw std::runtime_error("down once after the answer");
    return json{{"trace", {"ask:" + a}}};
  }, sp::NodeOptions{.retry = sp::RetryPolicy{.initial_interval = 0.001, .max_attempts = 3, .jitter = false}});
  g.add_edge(sp::START, "ask");
  auto app = g.compile({.checkpointer = saver});
  app.invoke(json::object(), cfg("t"));
  json out = app.invoke(sp::Command{.resume = "yes"}, cfg("t"));
  EXPECT_FALSE(out.contains("__interrupt__")) << out.dump();
  EXPECT_EQ(out["trace"], json({"ask:yes"}));
  EXPECT_EQ(calls.load(), 2);
  EXPECT_TRUE(app.get_state(cfg("t")).next.empty());
}

// As LangGraph (checked against LangGraph.js 1.7.3): update_state as a join's target runs no
// node, so the join's barrier stays full and unseen: the target is still due, and runs next.
TEST_P(Persistence, UpdateStateAsAJoinsTargetLeavesItDue) {
  std::atomic<int> d_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_node("d", [&](const sp::State&) {
    ++d_runs;
    return json{{"trace", {"d"}}};
  });
  g.add_edge(sp::START, "b").add_edge(sp::START, "c").add_edge({"b", "c"}, "d");
  auto app = g.compile({.checkpointer = saver, .interrupt_before = {"d"}});
  app.invoke(json{{"n", 1}}, cfg("t"));
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"d"});
  app.update_state(cfg("t"), json{{"n", 9}}, "d");
  EXPECT_EQ(app.get_state(cfg("t")).next, std::vector<std::string>{"d"});
  json out = app.invoke(nullptr, cfg("t"));
  EXPECT_EQ(d_runs.load(), 1);
  EXPECT_EQ(out["n"], 9);
  EXPECT_EQ(out["trace"], json({"b", "c", "d"}));
}

// As LangGraph (LangGraph.js' checkpointSuperseded): resuming a paused checkpoint the thread has
// moved past runs its finished tasks again; the answer stored for the interrupt still counts.
TEST_P(Persistence, ResumingASupersededCheckpointRunsItsFinishedTasksAgain) {
  std::atomic<int> w_runs{0};
  sp::StateGraph g(trace_schema());
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"trace", {"ask=" + sp::interrupt(rt, "ok?").get<std::string>()}}};
  });
  g.add_node("w", [&](const sp::State&) {
    ++w_runs;
    return json{{"trace", {"w"}}};
  });
  g.add_edge(sp::START, "ask").add_edge(sp::START, "w");
  auto app = g.compile({.checkpointer = saver});
  app.invoke(json::object(), cfg("t"));
  sp::RunConfig paused = cfg("t");
  paused.checkpoint_id = app.get_state(cfg("t")).config.checkpoint_id;
  EXPECT_EQ(app.invoke(sp::Command{.resume = "first"}, cfg("t"))["trace"], json({"ask=first", "w"}));
  EXPECT_EQ(w_runs.load(), 1);  // the latest checkpoint: w's stored writes are reused
  json out = app.invoke(sp::Command{.resume = "second"}, paused);
  EXPECT_EQ(w_runs.load(), 2);
  EXPECT_EQ(out["trace"], json({"ask=first", "w"}));
}

// The recursion limit counts as LangGraph's: from the step after the thread's last checkpoint
// plus one, whatever the input, so a resume (which has no input step) may run one step more
// than a new input. a -> b -> c -> d, paused before b; the figures are LangGraph.js 1.7.3's for
// the same graph: a resume with limit 2 runs b, c and d, with limit 1 it fails; a first input
// needs 2 (__start__, then a), and so does a new input on the paused thread.
TEST_P(Persistence, TheRecursionLimitOfAResumeCountsAsLangGraphs) {
  sp::StateGraph g(trace_schema());
  g.add_sequence({{"a", tracer("a")}, {"b", tracer("b")}, {"c", tracer("c")}, {"d", tracer("d")}});
  g.add_edge(sp::START, "a");
  auto app = g.compile({.checkpointer = saver, .interrupt_before = {"b"}});
  for (int limit : {1, 2}) {
    sp::RunConfig c = cfg("resume-" + std::to_string(limit));
    app.invoke(json::object(), c);
    c.recursion_limit = limit;
    if (limit == 1) EXPECT_THROW(app.invoke(nullptr, c), sp::GraphRecursionError);
    else EXPECT_EQ(app.invoke(nullptr, c)["trace"], json({"a", "b", "c", "d"}));
  }
  for (int limit : {1, 2}) {
    sp::RunConfig fresh = cfg("fresh-" + std::to_string(limit)), again = cfg("again-" + std::to_string(limit));
    fresh.recursion_limit = limit;
    app.invoke(json::object(), again);  // paused before b
    again.recursion_limit = limit;
    if (limit == 1) {
      EXPECT_THROW(app.invoke(json::object(), fresh), sp::GraphRecursionError);
      EXPECT_THROW(app.invoke(json::object(), again), sp::GraphRecursionError);
    } else {
      EXPECT_EQ(app.invoke(json::object(), fresh)["trace"], json({"a"}));
      EXPECT_EQ(app.invoke(json::object(), again)["trace"], json({"a", "a"}));
    }
  }
}
