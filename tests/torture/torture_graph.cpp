#include "torture/torture_graph.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

namespace torture {

namespace {

// A stable hash (std::hash may differ between builds; these decisions must not).
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A little work inside a node, so a kill also lands between a node's record and its saved
// writes (a node that ran but whose writes were not saved must run again).
void work_a_little(const std::string& task_id) {
  std::this_thread::sleep_for(std::chrono::microseconds(50 + fnv1a(task_id) % 200));
}

sp::RetryPolicy quick_retry() {
  sp::RetryPolicy p;
  p.initial_interval = 0.001;
  p.backoff_factor = 1.0;
  p.max_interval = 0.001;
  p.max_attempts = 3;
  p.jitter = false;
  return p;
}

// A node body wrapped with the recorder: `body(state, seed-free runtime)` gives the update.
sp::NodeFn recorded(const std::shared_ptr<Recorder>& rec, std::function<json(const sp::State&, sp::Runtime&)> body) {
  return [rec, body = std::move(body)](const sp::State& s, sp::Runtime& rt) -> json {
    int attempt = rec->begin(rt);
    json out = body(s, rt);
    work_a_little(rt.task_id());
    rec->done(rt, attempt);
    return out;
  };
}

}  // namespace

Recorder::Recorder(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("torture: cannot open the records file " + path);
}

Recorder::~Recorder() {
  if (fd_ >= 0) ::close(fd_);
}

int Recorder::begin(const sp::Runtime& rt) {
  int attempt = 0;
  {
    std::lock_guard lock(mutex_);
    attempt = ++attempts_[rt.config().thread_id + "|" + rt.config().checkpoint_ns + "|" + rt.task_id()];
  }
  if (planned_failure(rt.config().thread_id, rt.task_id(), attempt)) {
    write_line(false, rt, attempt);
    throw std::runtime_error("torture: planned failure of " + rt.node() + " (attempt " + std::to_string(attempt) + ")");
  }
  return attempt;
}

void Recorder::done(const sp::Runtime& rt, int attempt) { write_line(true, rt, attempt); }

void Recorder::finished(const std::string& thread) {
  std::string line = "done\t" + std::to_string(::getpid()) + "\t" + thread + "\t-\t-\t-\t0\t0\n";
  if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("torture: cannot write the records file");
}

void Recorder::write_line(bool ok, const sp::Runtime& rt, int attempt) {
  const std::string& ns = rt.config().checkpoint_ns;
  std::string line = std::string(ok ? "ok" : "fail") + "\t" + std::to_string(::getpid()) + "\t" +
                     rt.config().thread_id + "\t" + (ns.empty() ? "-" : ns) + "\t" + rt.task_id() + "\t" + rt.node() +
                     "\t" + std::to_string(rt.step()) + "\t" + std::to_string(attempt) + "\n";
  // One write(2) on an O_APPEND descriptor: lines of concurrent tasks and processes never mix,
  // and a line written is in the page cache, which a SIGKILL does not lose.
  if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("torture: cannot write the records file");
}

bool planned_failure(const std::string& thread, const std::string& task_id, int attempt) {
  return attempt == 1 && fnv1a(thread + "/" + task_id) % 4 == 0;
}

json answer_for(const json& interrupt_value) {
  return json{{"approved", interrupt_value.value("seed", 0) % 2 == 0}, {"by", "torture"}};
}

sp::CompiledStateGraph build(std::shared_ptr<sp::CheckpointSaver> saver, std::shared_ptr<Recorder> recorder,
                             std::shared_ptr<sp::ThreadPool> pool) {
  return build(sp::CompileOptions{.executor = std::move(pool), .checkpointer = std::move(saver)}, std::move(recorder));
}

sp::CompiledStateGraph build(sp::CompileOptions options, std::shared_ptr<Recorder> rec) {
  const std::shared_ptr<sp::ThreadPool>& pool = options.executor;
  sp::NodeOptions retried;
  retried.retry = quick_retry();

  // The subgraph: two steps appending to the parent's `items`.
  sp::StateSchema inner_schema;
  inner_schema.field("seed").field("items", sp::reducers::append);
  sp::StateGraph inner(inner_schema);
  inner.add_node("s1", recorded(rec, [](const sp::State&, sp::Runtime&) { return json{{"items", {"s1"}}}; }), retried);
  inner.add_node("s2", recorded(rec, [](const sp::State& s, sp::Runtime&) {
                   return json{{"items", {"s2:" + std::to_string(s.value("seed", 0))}}};
                 }),
                 retried);
  inner.add_edge(sp::START, "s1").add_edge("s1", "s2").add_edge("s2", sp::END);
  sp::CompiledStateGraph sub = inner.compile({.executor = pool, .name = "inner"});

  sp::StateSchema schema;
  schema.field("seed")
      .field("items", sp::reducers::append)
      .field("sum", sp::reducers::add, 0)
      .field("rounds", sp::reducers::add, 0)
      .field("answer");
  sp::StateGraph g(schema);
  g.add_node("plan", recorded(rec, [](const sp::State&, sp::Runtime&) { return json{{"items", {"plan"}}}; }), retried);
  g.add_conditional_edges("plan", [](const sp::State& s) {
    int seed = s.value("seed", 0);
    std::vector<sp::Destination> next{std::string("side_a"), std::string("side_b")};
    for (int i = 0; i < 2 + seed % 3; ++i) next.emplace_back(sp::Send{"work", json{{"i", i}, {"seed", seed}}});
    return sp::Route(std::move(next));
  });
  g.add_node("work", recorded(rec, [](const sp::State& s, sp::Runtime&) {
               int i = s.value("i", 0), seed = s.value("seed", 0);
               return json{{"items", {"w" + std::to_string(i)}}, {"sum", i * 10 + seed}};
             }),
             retried);
  g.add_node("side_a", recorded(rec, [](const sp::State&, sp::Runtime&) { return json{{"items", {"a"}}, {"sum", 1}}; }),
             retried);
  g.add_node("side_b", recorded(rec, [](const sp::State&, sp::Runtime&) { return json{{"items", {"b"}}, {"sum", 2}}; }),
             retried);
  g.add_node("sub", sub);
  g.add_edge("work", "sub").add_edge("side_a", "sub").add_edge("side_b", "sub");
  g.add_node("ask", [rec](const sp::State& s, sp::Runtime& rt) -> json {
    int attempt = rec->begin(rt);
    json answer = sp::interrupt(rt, json{{"question", "approve?"}, {"seed", s.value("seed", 0)}});
    rec->done(rt, attempt);
    return json{{"answer", answer}, {"items", {"ask"}}};
  }, retried);
  g.add_edge("sub", "ask");
  g.add_node("loop", recorded(rec, [](const sp::State& s, sp::Runtime&) {
               return json{{"rounds", 1}, {"items", {"r" + std::to_string(s.value("rounds", 0))}}};
             }),
             retried);
  g.add_edge("ask", "loop");
  g.add_conditional_edges("loop", [](const sp::State& s) -> sp::Route {
    return s.value("rounds", 0) < 1 + s.value("seed", 0) % 3 ? sp::Route("loop") : sp::Route(sp::END);
  });
  g.add_edge(sp::START, "plan");
  options.name = "torture";
  return g.compile(std::move(options));
}

json drive(const sp::CompiledStateGraph& app, const std::string& thread_id, int seed, sp::Durability durability) {
  sp::RunConfig cfg;
  cfg.thread_id = thread_id;
  cfg.durability = durability;
  for (int round = 0; round < 20; ++round) {
    sp::StateSnapshot snap = app.get_state(cfg);
    if (!snap.config.checkpoint_id) {
      app.invoke(json{{"seed", seed}}, cfg);
    } else if (snap.tasks.empty()) {
      // Finished. (Not `next.empty()`: as LangGraph's, `next` leaves out the tasks whose writes
      // are saved, so it is also empty when a kill came after every task of a step finished
      // but before the step's checkpoint was stored; invoking with null input then ends it.)
      return snap.values;
    } else if (!snap.interrupts.empty()) {
      app.invoke(sp::Command{.resume = answer_for(snap.interrupts.front().value)}, cfg);
    } else {
      app.invoke(nullptr, cfg);
    }
  }
  throw std::runtime_error("torture: thread " + thread_id + " did not finish in 20 runs");
}

}  // namespace torture
