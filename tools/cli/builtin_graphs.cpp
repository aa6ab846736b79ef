#include "builtin_graphs.hpp"

#include <chrono>

namespace sp = superstep;
using sp::json;
using namespace std::chrono_literals;

namespace cli {
namespace {

// hello: plan a trip -> research three topics in parallel (Send fan-out, coroutine nodes that
// report progress on the custom stream) -> a join writes the summary.
sp::CompiledStateGraph hello(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("topic").field("notes", sp::reducers::append, json::array()).field("summary").field("steps", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("plan", [](const sp::State& st, sp::Runtime& rt) {
    rt.stream_writer({{"plan", "splitting '" + st.get<std::string>("topic") + "' into 3 questions"}});
    return json{{"steps", 1}};
  });
  g.add_node("research", [](const sp::State& st, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::string q = st.get<std::string>("question");
    rt.stream_writer({{"research", q}, {"status", "started"}});
    co_await sp::sleep_for(rt, 50ms);  // stands in for a model or HTTP call: holds no thread
    rt.stream_writer({{"research", q}, {"status", "done"}});
    co_return json{{"notes", {"notes on " + q}}, {"steps", 1}};
  });
  g.add_node("write", [](const sp::State& st) {
    std::string summary = st.get<std::string>("topic") + ": ";
    for (const auto& n : st["notes"]) summary += n.get<std::string>() + "; ";
    return json{{"summary", summary}, {"steps", 1}};
  });
  g.add_edge(sp::START, "plan");
  g.add_conditional_edges("plan", [](const sp::State& st) {
    std::vector<sp::Send> sends;
    for (std::string aspect : {"weather", "food", "transport"})
      sends.push_back({"research", {{"question", aspect + " in " + st.get<std::string>("topic")}}});
    return sends;
  });
  g.add_edge("research", "write");
  g.add_edge("write", sp::END);
  opts.name = "hello";
  return g.compile(std::move(opts));
}

// loop: a counter that routes back to itself until it reaches `target`.
sp::CompiledStateGraph loop(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("count", sp::reducers::add, 0).field("target");
  sp::StateGraph g(s);
  g.add_node("increment", [](const sp::State&) { return json{{"count", 1}}; });
  g.add_edge(sp::START, "increment");
  g.add_conditional_edges(
      "increment",
      [](const sp::State& st) { return st.get<int>("count") >= st.get<int>("target") ? "done" : "again"; },
      {{"again", "increment"}, {"done", sp::END}});
  opts.name = "loop";
  return g.compile(std::move(opts));
}

// join: two branches of different length joined with add_edge({a, b}, c).
sp::CompiledStateGraph join(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append);
  sp::StateGraph g(s);
  auto tracer = [](std::string name) { return [name](const sp::State&) { return json{{"trace", {name}}}; }; };
  g.add_node("fetch_a", tracer("fetch_a")).add_node("fetch_b", tracer("fetch_b"));
  g.add_node("clean_b", tracer("clean_b")).add_node("merge", tracer("merge"));
  g.add_edge(sp::START, "fetch_a").add_edge(sp::START, "fetch_b").add_edge("fetch_b", "clean_b");
  g.add_edge({"fetch_a", "clean_b"}, "merge");
  g.add_edge("merge", sp::END);
  opts.name = "join";
  return g.compile(std::move(opts));
}

// approval: a draft waits for a human's yes before it is published (interrupt + resume; run it
// with --thread so the pause is stored, then `superstep resume THREAD --value '"yes"'`).
sp::CompiledStateGraph approval(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("topic").field("draft").field("approved").field("published");
  sp::StateGraph g(s);
  g.add_node("draft", [](const sp::State& st) {
    return json{{"draft", "Five things to do in " + st.get<std::string>("topic")}};
  });
  g.add_node("approve", [](const sp::State& st, sp::Runtime& rt) -> sp::NodeResult {
    json answer = sp::interrupt(rt, json{{"question", "publish this draft?"}, {"draft", st["draft"]}});
    return json{{"approved", answer == "yes"}};
  });
  g.add_node("publish", [](const sp::State& st) {
    return json{{"published", "PUBLISHED: " + st.get<std::string>("draft")}};
  });
  g.add_edge(sp::START, "draft").add_edge("draft", "approve");
  g.add_conditional_edges(
      "approve", [](const sp::State& st) { return st.get<bool>("approved") ? "publish" : sp::END; },
      std::vector<std::string>{"publish", sp::END});
  opts.name = "approval";
  return g.compile(std::move(opts));
}

// sleep: one coroutine node that waits `seconds` on a timer (holding no thread), then sets done.
sp::CompiledStateGraph sleep(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("seconds").field("done");
  sp::StateGraph g(s);
  g.add_node("sleep", [](const sp::State& st, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    const json* v = st.find("seconds");
    double seconds = v && v->is_number() ? v->get<double>() : 1.0;
    co_await sp::sleep_for(rt, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
    co_return json{{"done", true}};
  });
  g.add_edge(sp::START, "sleep").add_edge("sleep", sp::END);
  opts.name = "sleep";
  return g.compile(std::move(opts));
}

// fail: a node that throws, to show how a failed run is reported.
sp::CompiledStateGraph fail(sp::CompileOptions opts) {
  sp::StateSchema s;
  s.field("x");
  sp::StateGraph g(s);
  g.add_node("boom", [](const sp::State&) -> json { throw std::runtime_error("boom failed"); });
  g.add_edge(sp::START, "boom").add_edge("boom", sp::END);
  opts.name = "fail";
  return g.compile(std::move(opts));
}

// nested: prepare -> child (a compiled subgraph: one -> two, with a field of its own) -> finish.
// The child reads the parent's `topic` and returns it with "!" appended; its `inner` stays inside.
sp::CompiledStateGraph nested(sp::CompileOptions opts) {
  sp::StateSchema cs;
  cs.field("topic").field("inner", sp::reducers::append, json::array());
  sp::StateGraph child(cs);
  child.add_node("one", [](const sp::State&) { return json{{"inner", {"one"}}}; });
  child.add_node("two", [](const sp::State& st) {
    return json{{"inner", {"two"}}, {"topic", st.get<std::string>("topic") + "!"}};
  });
  child.add_edge(sp::START, "one").add_edge("one", "two").add_edge("two", sp::END);
  sp::StateSchema s;
  s.field("topic").field("log", sp::reducers::append, json::array());
  sp::StateGraph g(s);
  g.add_node("prepare", [](const sp::State&) { return json{{"log", {"prepare"}}}; });
  g.add_node("child", child.compile({.name = "child"}));
  g.add_node("finish", [](const sp::State&) { return json{{"log", {"finish"}}}; });
  g.add_edge(sp::START, "prepare").add_edge("prepare", "child").add_edge("child", "finish").add_edge("finish", sp::END);
  opts.name = "nested";
  return g.compile(std::move(opts));
}

}  // namespace

const std::vector<BuiltinGraph>& builtin_graphs() {
  static const std::vector<BuiltinGraph> graphs = {
      {"hello", "plan -> 3 parallel research coroutines (Send) -> write; streams progress", json{{"topic", "Lisbon"}},
       hello},
      {"loop", "a counter looping through a conditional edge until count >= target", json{{"target", 3}}, loop},
      {"join", "uneven branches joined with add_edge({a, b}, c)", json::object(), join},
      {"approval", "draft -> approve (pauses for a human: interrupt) -> publish; needs --thread",
       json{{"topic", "Lisbon"}}, approval},
      {"sleep", "one node awaiting a timer of `seconds` (holds no thread), then done", json{{"seconds", 1}}, sleep},
      {"fail", "a node that throws: the run fails with its error", json::object(), fail},
      {"nested", "prepare -> child (a subgraph: one -> two) -> finish; stream it with subgraphs", json{{"topic", "x"}},
       nested},
  };
  return graphs;
}

const BuiltinGraph* find_builtin(const std::string& name) {
  for (const auto& g : builtin_graphs())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace cli
