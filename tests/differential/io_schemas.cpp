// Input and output schemas (StateGraphOptions; js/io_*.mjs are the LangGraph.js twins, their
// shared graphs in js/helpers_io.mjs): what an input may set, what nodes see, what invoke
// returns and `values`/`updates` parts show (root runs and subgraphs), reducers declared only
// in the input or the output, interrupts, Commands, update_state, node input keys naming the
// input's own key, subgraphs and graphs invoked inside nodes with their own schemas.
#include <algorithm>

#include "transcript.hpp"

namespace {
using namespace diff;

/// The keys a node was given, sorted, joined by ",".
std::string seen(const sp::State& s) {
  const json all = s.to_json();
  std::string out;
  for (auto it = all.begin(); it != all.end(); ++it) out += (out.empty() ? "" : ",") + it.key();
  return out;
}

/// invoke, printing its result (null when the run wrote no output key).
void invoke_out(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg = {}) {
  invoke(app, input, cfg);
}

sp::StateSchema add_schema(std::initializer_list<std::string> plain, const std::string& key, json dflt) {
  sp::StateSchema s;
  for (const auto& k : plain) s.field(k);
  s.field(key, sp::reducers::add, std::move(dflt));
  return s;
}

/// State {trace, a, b, c}; input {a, x}; output {c, y, trace (plain: the state's)}.
sp::StateGraph basic() {
  sp::StateSchema state;
  state.field("trace", sp::reducers::append, json::array()).field("a").field("b").field("c");
  sp::StateSchema in, out;
  in.field("a").field("x");
  out.field("c").field("y").field("trace");
  sp::StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("n1", [](const sp::State& s) {
    return json{{"trace", {"n1 sees " + seen(s)}}, {"b", "B"}, {"c", s.value("a", std::string("-")) + "C"}, {"y", "Y"}};
  });
  g.add_node("n2", [](const sp::State& s) { return json{{"trace", {"n2 sees " + seen(s)}}, {"a", "A2"}}; });
  g.add_edge(sp::START, "n1").add_edge("n1", "n2");
  return g;
}

/// State {a, n (add, 0)}; output {r, total (add, 100)}.
sp::StateSchema an_state() { return add_schema({"a"}, "n", 0); }
sp::StateSchema r_total_output() { return add_schema({"r"}, "total", 100); }

/// Parent {q, ans, secret, trace}; child {q, scratch, ans, secret, trace}, input {q}, output {ans, extra}.
sp::StateSchema parent_state() {
  sp::StateSchema s;
  s.field("q").field("ans").field("secret").field("trace", sp::reducers::append, json::array());
  return s;
}
sp::StateSchema child_state() {
  sp::StateSchema s;
  s.field("q").field("scratch").field("ans").field("secret").field("trace", sp::reducers::append, json::array());
  return s;
}
sp::StateGraphOptions child_io() {
  sp::StateSchema in, out;
  in.field("q");
  out.field("ans").field("extra");
  return {.input_schema = in, .output_schema = out};
}

Register io_invoke{{"io_invoke", false, [](Ctx& c) {
  auto app = basic().compile(c.plain());
  invoke_out(app, json{{"a", "a0"}, {"x", "X"}, {"b", "ignored"}});
  invoke_out(app, json{{"b", "ignored"}});
  invoke_out(app, json::object());
  stream(app, json{{"a", "a1"}, {"x", "X"}}, {}, {Mode::values, Mode::updates});
  stream(app, json{{"a", "a1"}}, {}, {});
}}};

Register io_checkpointed{{"io_checkpointed", true, [](Ctx& c) {
  auto app = basic().compile(c.opts());
  invoke_out(app, json{{"a", "a0"}, {"x", "X"}, {"b", "ignored"}}, thread());
  state(app, thread());
  history(app, thread());
  invoke_out(app, json(nullptr), thread());
  invoke_out(app, json{{"x", "X2"}}, thread());
  state(app, thread());
  stream(app, json{{"a", "a1"}}, thread("t2"), {Mode::checkpoints, Mode::tasks, Mode::debug, Mode::values});
}}};

Register io_no_output{{"io_no_output", false, [](Ctx& c) {
  sp::StateGraph never(an_state(), {.output_schema = r_total_output()});
  never.add_node("p", [](const sp::State&) { return json{{"a", "A"}, {"n", 1}}; }).add_edge(sp::START, "p");
  invoke_out(never.compile(c.plain()), json{{"a", "x"}});
  sp::StateGraph early(an_state(), {.output_schema = r_total_output()});
  early.add_node("p", [](const sp::State&) { return json{{"r", "R"}}; });
  early.add_node("q", [](const sp::State&) { return json{{"a", "Q"}, {"n", 2}}; });
  early.add_edge(sp::START, "p").add_edge("p", "q");
  invoke_out(early.compile(c.plain()), json{{"a", "x"}});
  sp::StateSchema a_only;
  a_only.field("a");
  sp::StateGraph from_input(an_state(), {.output_schema = a_only});
  from_input.add_node("p", [](const sp::State&) { return json{{"n", 1}}; }).add_edge(sp::START, "p");
  auto app = from_input.compile(c.plain());
  invoke_out(app, json{{"a", "x"}});
  invoke_out(app, json{{"n", 5}});
}}};

Register io_reducers{{"io_reducers", true, [](Ctx& c) {
  sp::StateSchema in, out;
  in.field("a").field("log", sp::reducers::concat, json::array({"in"}));
  out.field("n").field("log").field("total", sp::reducers::add, 100);
  sp::StateGraph g(an_state(), {.input_schema = in, .output_schema = out});
  g.add_node("p", [](const sp::State&) { return json{{"log", {"p"}}, {"total", 1}, {"n", 1}}; });
  g.add_node("q", [](const sp::State&) { return json{{"log", {"q"}}, {"total", 2}, {"n", 2}}; });
  g.add_edge(sp::START, "p").add_edge(sp::START, "q");
  auto app = g.compile(c.opts());
  invoke_out(app, json{{"a", "a0"}, {"log", {"x"}}}, thread());
  state(app, thread());
  stream(app, json{{"a", "a1"}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register io_interrupt{{"io_interrupt", true, [](Ctx& c) {
  auto ask = [](const sp::State& s, sp::Runtime& rt) {
    return json{{"a", s.get<std::string>("a") + ":" + sp::interrupt(rt, "ask").get<std::string>()}};
  };
  sp::StateGraph two(an_state(), {.output_schema = r_total_output()});
  two.add_node("p", ask).add_node("q", [](const sp::State& s) {
    return json{{"r", "R" + s.get<std::string>("a")}, {"total", 5}};
  });
  two.add_edge(sp::START, "p").add_edge("p", "q");
  auto app = two.compile(c.opts());
  invoke_out(app, json{{"a", "a"}}, thread("t1"));
  invoke(app, sp::Command{.resume = "v"}, thread("t1"));
  invoke_out(app, json{{"a", "b"}}, thread("t2"));
  stream(app, sp::Command{.resume = "w"}, thread("t2"), {Mode::values, Mode::updates});
  state(app, thread("t2"));
  sp::StateGraph one(an_state(), {.output_schema = r_total_output()});
  one.add_node("p", ask).add_edge(sp::START, "p");
  auto app1 = one.compile(c.opts());
  invoke_out(app1, json{{"a", "c"}}, thread("t3"));
  invoke(app1, sp::Command{.resume = "u"}, thread("t3"));
  invoke_out(app1, json(nullptr), thread("t3"));
}}};

Register io_command{{"io_command", true, [](Ctx& c) {
  auto build = [] {
    sp::StateSchema in;
    in.field("a");
    sp::StateGraph g(an_state(), {.input_schema = in, .output_schema = r_total_output()});
    g.add_node("p", [](const sp::State&) -> sp::NodeResult {
      return sp::Command{.update = {{"total", 3}, {"r", "L"}}, .go_to = "q"};
    }, {.ends = {"q"}});
    g.add_node("q", [](const sp::State& s) { return json{{"a", "q sees " + seen(s)}, {"n", 4}}; });
    g.add_edge(sp::START, "p");
    return g;
  };
  auto plain = build().compile(c.plain());
  stream(plain, json{{"a", "a"}}, {}, {Mode::updates, Mode::values});
  invoke(plain, sp::Command{.update = {{"n", 10}, {"a", "ca"}, {"total", 1}}, .go_to = "q"}, {});
  auto saved = build().compile(c.opts());
  invoke(saved, sp::Command{.update = {{"n", 10}, {"a", "ca"}, {"r", "cr"}}, .go_to = "q"}, thread());
  state(saved, thread());
}}};

Register io_update_state{{"io_update_state", true, [](Ctx& c) {
  auto app = basic().compile(c.opts());
  invoke_out(app, json{{"a", "a0"}, {"x", "X"}}, thread());
  update(app, thread(), json{{"x", "X2"}, {"y", "Y2"}, {"b", "b9"}});
  state(app, thread());
  update(app, thread(), json{{"a", "fresh"}, {"c", "C0"}}, "n1");
  state(app, thread());
  invoke_out(app, json(nullptr), thread());
  history(app, thread());
}}};

Register io_node_input{{"io_node_input", false, [](Ctx& c) {
  sp::StateSchema state, in, out;
  state.field("trace", sp::reducers::append, json::array()).field("a").field("b").field("c");
  in.field("a").field("x");
  out.field("c").field("y").field("trace");
  sp::StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("p", [](const sp::State& s) {
    return json{{"c", "p sees " + seen(s) + " x=" + s.get<std::string>("x")}};
  }, {.input_keys = {"x", "trace"}});
  g.add_node("q", [](const sp::State& s) { return json{{"trace", {"q sees " + seen(s)}}}; });
  g.add_edge(sp::START, "p").add_edge("p", "q");
  auto app = g.compile(c.plain());
  invoke_out(app, json{{"a", "a"}, {"x", "X"}});
  stream(app, json{{"a", "a"}, {"x", "X"}}, {}, {Mode::tasks});
}}};

Register io_subgraph{{"io_subgraph", true, [](Ctx& c) {
  sp::StateGraph child(child_state(), child_io());
  child.add_node("think", [](const sp::State& s) {
    return json{{"scratch", "S"}, {"ans", s.get<std::string>("q") + "!"}, {"secret", "leak"},
                {"trace", {"think sees " + seen(s)}}, {"extra", "E"}};
  });
  child.add_edge(sp::START, "think");
  sp::StateGraph g(parent_state());
  g.add_node("pre", [](const sp::State&) { return json{{"secret", "top"}, {"trace", {"pre"}}}; });
  g.add_node("sub", child.compile(c.plain()));
  g.add_node("post", [](const sp::State& s) { return json{{"trace", {"post sees " + seen(s)}}}; });
  g.add_edge(sp::START, "pre").add_edge("pre", "sub").add_edge("sub", "post");
  auto app = g.compile(c.opts());
  stream(app, json{{"q", "hi"}}, with_subgraphs(thread()), {Mode::updates, Mode::values});
  state(app, thread(), true);
  history(app, thread());
}}};

Register io_subgraph_interrupt{{"io_subgraph_interrupt", true, [](Ctx& c) {
  sp::StateGraph child(child_state(), child_io());
  child.add_node("ask", [](const sp::State& s, sp::Runtime& rt) {
    return json{{"ans", s.get<std::string>("q") + ":" + sp::interrupt(rt, "q?").get<std::string>()}, {"scratch", "z"}};
  });
  child.add_edge(sp::START, "ask");
  sp::StateGraph g(parent_state());
  g.add_node("sub", child.compile(c.plain())).add_edge(sp::START, "sub");
  auto app = g.compile(c.opts());
  invoke_out(app, json{{"q", "x"}}, thread());
  state(app, thread(), true);
  stream(app, sp::Command{.resume = "R"}, with_subgraphs(thread()), {Mode::updates, Mode::values});
  state(app, thread());
}}};

Register io_subgraph_no_output{{"io_subgraph_no_output", false, [](Ctx& c) {
  sp::StateSchema extra;
  extra.field("extra");
  sp::StateGraph child(child_state(), {.output_schema = extra});
  child.add_node("think", [](const sp::State&) { return json{{"scratch", "S"}, {"ans", "unseen"}}; });
  child.add_edge(sp::START, "think");
  auto sub = child.compile(c.plain());
  sp::StateGraph g(parent_state());
  g.add_node("sub", sub).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.plain());
  stream(app, json{{"q", "hi"}}, with_subgraphs({}), {Mode::updates, Mode::values});
  invoke_out(app, json{{"q", "hi"}});
  invoke_out(sub, json{{"q", "direct"}});
}}};

Register io_inner_invoke{{"io_inner_invoke", false, [](Ctx& c) {
  sp::StateGraph child(child_state(), child_io());
  child.add_node("think", [](const sp::State& s) {
    return json{{"ans", s.get<std::string>("q") + "!"}, {"trace", {"think sees " + seen(s)}}, {"extra", "E"}};
  });
  child.add_edge(sp::START, "think");
  auto inner = child.compile(c.plain());
  sp::StateGraph g(parent_state());
  g.add_node("call", [inner](const sp::State& s, sp::Runtime& rt) {
    json out = inner.invoke(json{{"q", s["q"]}, {"secret", "ignored"}, {"ans", "ignored"}}, rt);
    return json{{"ans", out.dump()}, {"trace", {"call"}}};
  });
  g.add_edge(sp::START, "call");
  auto app = g.compile(c.plain());
  invoke_out(app, json{{"q", "hi"}});
  stream(app, json{{"q", "hi"}}, with_subgraphs({}), {Mode::updates, Mode::values});
}}};

}  // namespace
