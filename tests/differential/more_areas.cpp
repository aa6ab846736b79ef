// Scenarios of areas the suite did not cover (js/ma_*.mjs are their LangGraph.js twins): graph
// construction errors, channel kinds other than LastValue and reducers (EphemeralValue, Topic,
// AnyValue, UntrackedValue), `messages` metadata and returned messages, the store in nodes,
// config passthrough (configurable, context, metadata), non-object inputs and node results,
// and get_graph's edges.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include <superstep/store/memory_store.hpp>

#include "transcript.hpp"

namespace {
using namespace diff;

/// Builds (and compiles) with `build`, printing {"case", "build": "ok"|"error"} (the class and
/// message to stderr), then invokes the graph with {"n": 1} when it compiled.
void attempt(const std::string& label, const std::function<sp::CompiledStateGraph()>& build,
             const json& input = json{{"n", 1}}) {
  std::optional<sp::CompiledStateGraph> app;
  try {
    app.emplace(build());
  } catch (const std::exception& e) {
    std::cerr << label << ": " << e.what() << "\n";
    emit(json{{"case", label}, {"build", "error"}});
    return;
  }
  emit(json{{"case", label}, {"build", "ok"}});
  invoke(*app, input);
}

/// Runs `body`, and when it has not returned after `seconds`, prints a note and ends the
/// process (a deadlock must fail the scenario, not hang the suite).
void with_deadline(int seconds, std::function<void()> body) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  std::thread([body = std::move(body), done] {
    body();
    done->set_value();
  }).detach();
  if (f.wait_for(std::chrono::seconds(seconds)) == std::future_status::timeout) {
    note("no progress after " + std::to_string(seconds) + " s (deadlock)");
    std::cout.flush();
    std::_Exit(0);
  }
}

sp::StateGraph base() {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  g.add_edge(sp::START, "a");
  return g;
}

sp::Route to_x(const sp::State&) { return "x"; }

Register ma_build_rejects{{"ma_build_rejects", false, [](Ctx& c) {
  attempt("edge_to_unknown", [&] { auto g = base(); g.add_edge("a", "ghost"); return g.compile(c.plain()); });
  attempt("edge_from_unknown", [&] { auto g = base(); g.add_edge("ghost", "a"); return g.compile(c.plain()); });
  attempt("duplicate_node", [&] { auto g = base(); g.add_node("a", tracer("a2")); return g.compile(c.plain()); });
  attempt("node_start", [&] { auto g = base(); g.add_node("__start__", tracer("s")); return g.compile(c.plain()); });
  attempt("node_end", [&] { auto g = base(); g.add_node("__end__", tracer("e")); return g.compile(c.plain()); });
  attempt("node_pipe", [&] { auto g = base(); g.add_node("b|c", tracer("b")).add_edge("a", "b|c"); return g.compile(c.plain()); });
  attempt("node_colon", [&] { auto g = base(); g.add_node("b:c", tracer("b")).add_edge("a", "b:c"); return g.compile(c.plain()); });
  attempt("path_map_unknown", [&] { auto g = base(); g.add_conditional_edges("a", to_x, {{"x", "ghost"}}); return g.compile(c.plain()); });
  attempt("destinations_unknown", [&] {
    auto g = base(); g.add_conditional_edges("a", to_x, std::vector<std::string>{"ghost"}); return g.compile(c.plain()); });
  attempt("interrupt_before_unknown", [&] { sp::CompileOptions o; o.interrupt_before = {"ghost"}; return base().compile(c.plain(o)); });
  attempt("interrupt_after_unknown", [&] { sp::CompileOptions o; o.interrupt_after = {"ghost"}; return base().compile(c.plain(o)); });
  attempt("join_unknown_source", [&] {
    auto g = base(); g.add_node("b", tracer("b")).add_edge({"a", "ghost"}, "b"); return g.compile(c.plain()); });
  attempt("join_into_end", [&] { auto g = base(); g.add_edge(std::vector<std::string>{"a"}, sp::END); return g.compile(c.plain()); });
  attempt("edge_from_end", [&] { auto g = base(); g.add_edge(sp::END, "a"); return g.compile(c.plain()); });
  attempt("edge_to_start", [&] { auto g = base(); g.add_edge("a", sp::START); return g.compile(c.plain()); });
  attempt("ends_unknown", [&] {
    sp::StateGraph g(trace_schema());
    sp::NodeOptions o; o.ends = {"ghost"};
    g.add_node("a", tracer("a"), o).add_edge(sp::START, "a");
    return g.compile(c.plain()); });
  attempt("sequence_empty", [&] { auto g = base(); g.add_sequence({}); return g.compile(c.plain()); });
}}};

Register ma_build_accepts{{"ma_build_accepts", false, [](Ctx& c) {
  attempt("no_start_edge", [&] {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b"));
    g.add_conditional_edges("a", [](const sp::State&) { return sp::Route("b"); });
    g.add_conditional_edges("b", [](const sp::State&) { return sp::Route(sp::END); });
    return g.compile(c.plain()); });
  attempt("empty_graph", [&] { sp::StateGraph g(trace_schema()); return g.compile(c.plain()); });
  attempt("start_to_end_only", [&] { sp::StateGraph g(trace_schema()); g.add_edge(sp::START, sp::END); return g.compile(c.plain()); });
  attempt("start_to_end_beside_node", [&] { auto g = base(); g.add_edge(sp::START, sp::END); return g.compile(c.plain()); });
  attempt("node_named_as_key", [&] {
    sp::StateGraph g(trace_schema()); g.add_node("n", tracer("n")).add_edge(sp::START, "n"); return g.compile(c.plain()); });
  attempt("two_conditional_edges", [&] {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c")).add_edge(sp::START, "a");
    g.add_conditional_edges("a", [](const sp::State&) { return sp::Route("b"); }, std::vector<std::string>{"b"});
    g.add_conditional_edges("a", [](const sp::State&) { return sp::Route("c"); }, std::vector<std::string>{"c"});
    return g.compile(c.plain()); });
  attempt("unreachable_node", [&] { auto g = base(); g.add_node("b", tracer("b")); return g.compile(c.plain()); });
  attempt("node_interrupt_name", [&] {
    sp::StateGraph g(trace_schema()); g.add_node("__interrupt__", tracer("i")).add_edge(sp::START, "__interrupt__");
    return g.compile(c.plain()); });
  attempt("node_empty_name", [&] {
    sp::StateGraph g(trace_schema()); g.add_node("", tracer("empty")).add_edge(sp::START, ""); return g.compile(c.plain()); });
  attempt("edge_twice", [&] {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_edge(sp::START, "a").add_edge("a", "b").add_edge("a", "b");
    return g.compile(c.plain()); });
  attempt("join_and_edge_same_target", [&] {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
    g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "c").add_edge("a", "c");
    return g.compile(c.plain()); });
  for (std::string name : {"__input__", "__copy__"})
    attempt(name == "__input__" ? "node_input_name" : "node_copy_name", [&] {
      sp::StateGraph g(trace_schema()); g.add_node(name, tracer(name == "__input__" ? "in" : "cp")).add_edge(sp::START, name);
      return g.compile(c.plain()); });
  attempt("join_two_into_end", [&] {
    sp::StateGraph g(trace_schema());
    g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, sp::END);
    return g.compile(c.plain()); });
}}};

// --- channels ---

sp::StateSchema with_kind(const std::string& key, sp::ChannelKind kind) {
  sp::StateSchema s;
  s.field("trace", sp::reducers::append, json::array());
  s.field(sp::FieldSpec{key, std::nullopt, std::nullopt, kind});
  return s;
}

std::string shown(const sp::State& s, const std::string& key) {
  const json* v = s.find(key);
  if (!v) return "none";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

/// A node tracing `name:key=<value or none>` (JSON text for non-strings, "null" when absent
/// with `null_absent`), plus `extra`.
sp::NodeFn seen(const std::string& name, const std::string& key, json extra = json::object(), bool null_absent = false) {
  return [=](const sp::State& s) {
    std::string v = s.find(key) ? (s.find(key)->is_string() ? s.find(key)->get<std::string>() : s.find(key)->dump())
                                : (null_absent ? "null" : "none");
    json out = extra;
    out["trace"] = json::array({name + ":" + key + "=" + v});
    return out;
  };
}

Register ma_ch_ephemeral{{"ma_ch_ephemeral", true, [](Ctx& c) {
  sp::StateGraph g(with_kind("tmp", sp::ChannelKind::ephemeral));
  g.add_node("a", [](const sp::State& s) { return json{{"trace", {"a:tmp=" + shown(s, "tmp")}}, {"tmp", "from-a"}}; });
  g.add_node("b", seen("b", "tmp")).add_node("c", seen("c", "tmp"));
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
  auto app = g.compile(c.opts());
  stream(app, json{{"tmp", "in"}}, thread("t1"), {Mode::values, Mode::updates});
  state(app, thread("t1"));
  history(app, thread("t1"));
  invoke(app, json{{"trace", {"again"}}}, thread("t1"));
}}};

Register ma_ch_ephemeral_two{{"ma_ch_ephemeral_two", false, [](Ctx& c) {
  sp::StateGraph g(with_kind("tmp", sp::ChannelKind::ephemeral));
  g.add_node("a", [](const sp::State&) { return json{{"tmp", "a"}}; });
  g.add_node("b", [](const sp::State&) { return json{{"tmp", "b"}}; });
  g.add_edge(sp::START, "a").add_edge(sp::START, "b");
  stream(g.compile(c.plain()), json{{"trace", json::array()}}, {}, {Mode::values, Mode::updates});
}}};

void topic_scenario(Ctx& c, sp::ChannelKind kind) {
  sp::StateGraph g(with_kind("ev", kind));
  g.add_node("a", seen("a", "ev", {{"ev", "a1"}}, true));
  g.add_node("b", seen("b", "ev", {{"ev", json::array({"b1", json::array({"b2"})})}}, true));
  g.add_node("c", seen("c", "ev", {{"ev", "c1"}}, true));
  g.add_node("d", seen("d", "ev", json::object(), true)).add_node("e", seen("e", "ev", json::object(), true));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "c").add_edge("c", "d").add_edge("d", "e");
  auto app = g.compile(c.opts());
  stream(app, json{{"ev", "in"}}, thread("t1"), {Mode::values, Mode::updates});
  state(app, thread("t1"));
  history(app, thread("t1"));
}

Register ma_ch_topic{{"ma_ch_topic", true, [](Ctx& c) { topic_scenario(c, sp::ChannelKind::topic); }}};
Register ma_ch_topic_acc{{"ma_ch_topic_acc", true, [](Ctx& c) { topic_scenario(c, sp::ChannelKind::topic_accumulate); }}};

Register ma_ch_anyvalue{{"ma_ch_anyvalue", true, [](Ctx& c) {
  sp::StateSchema s = with_kind("any", sp::ChannelKind::any_value);
  s.field(sp::FieldSpec{"u", std::nullopt, std::nullopt, sp::ChannelKind::untracked});
  auto node = [](const std::string& name, json extra) -> sp::NodeFn {
    return [=](const sp::State& st) {
      json out = extra;
      out["trace"] = json::array({name + ":any=" + shown(st, "any") + ":u=" + shown(st, "u")});
      return out;
    };
  };
  sp::StateGraph g(s);
  g.add_node("a", node("a", {{"any", "xa"}, {"u", "ua"}})).add_node("b", node("b", {{"any", "xb"}}));
  g.add_node("c", node("c", json::object())).add_node("d", node("d", json::object()));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "c").add_edge("c", "d");
  auto app = g.compile(c.opts());
  stream(app, json::object(), thread("t1"), {Mode::values, Mode::updates});
  state(app, thread("t1"));
  history(app, thread("t1"));
  invoke(app, json{{"trace", {"again"}}}, thread("t1"));
}}};

}  // namespace

// --- messages mode ---

namespace {
json msg(const std::string& type, const std::string& content, const std::string& id = "") {
  json m = {{"type", type}, {"content", content}};
  if (!id.empty()) m["id"] = id;
  return m;
}
sp::StateSchema msgs_schema() {
  sp::StateSchema s;
  s.field("messages", sp::reducers::add_messages, json::array());
  return s;
}
sp::NodeFn say(const std::string& id) {
  return [id](const sp::State&) { return json{{"messages", json::array({msg("ai", "from " + id, id)})}}; };
}
const json kHello = json{{"messages", json::array({msg("human", "hello", "h-1")})}};

Register ma_msg_input_seen{{"ma_msg_input_seen", false, [](Ctx& c) {
  sp::StateGraph g(msgs_schema());
  g.add_node("bot", [](const sp::State&) {
    return json{{"messages", json::array({msg("human", "hello (edited)", "h-1"), msg("ai", "hi", "ai-1")})}};
  });
  g.add_node("echo", [](const sp::State& s) { return json{{"messages", json::array({s["messages"].back()})}}; });
  g.add_edge(sp::START, "bot").add_edge("bot", "echo");
  stream(g.compile(c.plain()), kHello, {}, {Mode::messages, Mode::updates});
}}};

Register ma_msg_meta_join{{"ma_msg_meta_join", true, [](Ctx& c) {
  sp::StateGraph g(msgs_schema());
  g.add_node("a", say("a")).add_node("b", say("b")).add_node("j", say("j"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "j");
  stream(g.compile(c.opts()), json{{"messages", json::array({msg("human", "go", "h-1")})}}, thread("t1"), {Mode::messages});
}}};

Register ma_msg_types{{"ma_msg_types", false, [](Ctx& c) {
  sp::StateSchema s = msgs_schema();
  s.field("reply");
  sp::StateGraph g(s);
  g.add_node("kinds", [](const sp::State&) {
    json ai = msg("ai", "", "ai-1");
    ai["tool_calls"] = json::array({{{"id", "call-1"}, {"name", "calc"}, {"args", {{"x", 1}}}}});
    json tool = msg("tool", "42", "t-1");
    tool["tool_call_id"] = "call-1";
    return json{{"messages", json::array({msg("system", "sys", "s-1"), msg("human", "hum", "h-2"), ai, tool})}};
  });
  g.add_node("plain", [](const sp::State&) { return json{{"reply", msg("ai", "held", "r-1")}}; });
  sp::NodeOptions o;
  o.ends = {"last"};
  g.add_node("cmd", [](const sp::State&) {
    return sp::Command{.update = json{{"messages", json::array({msg("ai", "via command", "c-1")})}}, .go_to = "last"};
  }, o);
  g.add_node("last", [](const sp::State&) { return json::object(); });
  g.add_edge(sp::START, "kinds").add_edge("kinds", "plain").add_edge("plain", "cmd");
  stream(g.compile(c.plain()), json{{"messages", json::array()}}, {}, {Mode::messages});
}}};

Register ma_msg_no_id{{"ma_msg_no_id", false, [](Ctx& c) {
  sp::StateGraph g(msgs_schema());
  g.add_node("bot", [](const sp::State&) { return json{{"messages", json::array({msg("ai", "one"), msg("ai", "two")})}}; });
  g.add_edge(sp::START, "bot");
  stream(g.compile(c.plain()), kHello, {}, {Mode::messages, Mode::values});
}}};

/// sub (inner returns s-1) -> after (returns p-2), the subgraph compiled with `sub_options`,
/// streamed with and without `subgraphs` in messages and updates modes.
void stream_msg_subgraph(Ctx& c, sp::CompileOptions sub_options) {
  sp::StateGraph sg(msgs_schema());
  sg.add_node("inner", [](const sp::State&) { return json{{"messages", json::array({msg("ai", "from inner", "s-1")})}}; });
  sg.add_edge(sp::START, "inner");
  sp::StateGraph g(msgs_schema());
  g.add_node("sub", sg.compile(std::move(sub_options)));
  g.add_node("after", [](const sp::State&) { return json{{"messages", json::array({msg("ai", "after", "p-2")})}}; });
  g.add_edge(sp::START, "sub").add_edge("sub", "after");
  auto app = g.compile(c.plain());
  stream(app, kHello, with_subgraphs({}), {Mode::messages, Mode::updates});
  stream(app, kHello, {}, {Mode::messages, Mode::updates});
}

Register ma_msg_subgraph{{"ma_msg_subgraph", false, [](Ctx& c) { stream_msg_subgraph(c, {}); }}};  // the shared pool

// The same on the parent's one-worker pool (it hung before the subgraph's task ran its tasks).
Register ma_msg_subgraph_pool{{"ma_msg_subgraph_pool", false, [](Ctx& c) {
  with_deadline(20, [&] { stream_msg_subgraph(c, c.plain()); });
}}};

Register ma_sub_same_pool{{"ma_sub_same_pool", false, [](Ctx& c) {
  sp::StateGraph sg(trace_schema());
  sg.add_node("x", tracer("x")).add_node("y", tracer("y"));
  sg.add_edge(sp::START, "x").add_edge(sp::START, "y");
  sp::StateGraph g(trace_schema());
  g.add_node("sub", sg.compile(c.plain())).add_node("z", tracer("z"));
  g.add_edge(sp::START, "sub").add_edge("sub", "z");
  auto app = g.compile(c.plain());
  invoke(app, json{{"n", 1}});
  stream(app, json{{"n", 2}}, {}, {Mode::updates});
  sp::RunConfig sub_parts;
  sub_parts.subgraphs = true;
  stream(app, json{{"n", 3}}, sub_parts, {Mode::updates});
}}};
}  // namespace

namespace {
/// Two subgraph nodes in one step, streamed in `custom` mode with subgraphs, everything on the default
/// (shared) executor.
Register ma_sub_parallel_custom{{"ma_sub_parallel_custom", false, [](Ctx&) {
  sp::StateGraph sg(msgs_schema());
  sg.add_node("inner", [](const sp::State&) { return json{{"messages", json::array({msg("ai", "from inner")})}}; });
  sg.add_edge(sp::START, "inner");
  auto sub = sg.compile();
  sp::StateGraph g(msgs_schema());
  for (std::string n : {"s1", "s2"}) g.add_node(n, sub).add_edge(sp::START, n);
  auto app = g.compile();
  sp::RunConfig sub_parts;
  sub_parts.subgraphs = true;
  with_deadline(20, [&] { stream(app, kHello, sub_parts, {Mode::custom}); });
  note("done");
}}};
}  // namespace

// --- the store, config, inputs, drawing ---

namespace {
std::vector<std::string> item_lines(const std::vector<sp::Item>& xs) {
  std::vector<std::string> out;
  for (const auto& i : xs) {
    std::string ns;
    for (const auto& l : i.namespace_) ns += (ns.empty() ? "" : "/") + l;
    out.push_back(ns + ":" + i.key + "=" + i.value.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Register ma_store_node{{"ma_store_node", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("w", [](const sp::State&, sp::Runtime& rt) {
    auto* store = rt.store();
    store->put({"users", "u1"}, "k1", {{"v", 1}, {"kind", "fact"}});
    store->put({"users", "u1"}, "k2", {{"v", 2}, {"kind", "pref"}});
    store->put({"users", "u2"}, "k3", {{"v", 3}, {"kind", "fact"}});
    store->put({"other"}, "k4", {{"v", 4}});
    return json{{"trace", {"w"}}};
  });
  g.add_node("r", [](const sp::State&, sp::Runtime& rt) {
    auto* store = rt.store();
    auto got = store->get({"users", "u1"}, "k1");
    auto missing = store->get({"users", "u1"}, "nope");
    json got_j = got ? json{{"ns", got->namespace_}, {"key", got->key}, {"value", got->value}} : json(nullptr);
    return json{{"trace", {
        "get=" + got_j.dump(),
        "missing=" + (missing ? json(missing->to_json()) : json(nullptr)).dump(),
        "fact=" + json(item_lines(store->search({"users"}, {.filter = {{"kind", "fact"}}}))).dump(),
        "gt1=" + json(item_lines(store->search({"users"}, {.filter = {{"v", {{"$gt", 1}}}}}))).dump(),
        "all=" + json(item_lines(store->search({"users"}))).dump(),
    }}};
  });
  g.add_node("d", [](const sp::State&, sp::Runtime& rt) {
    rt.store()->delete_({"users", "u1"}, "k1");
    auto after = rt.store()->get({"users", "u1"}, "k1");
    return json{{"trace", {"after_delete=" + (after ? json(after->to_json()) : json(nullptr)).dump()}}};
  });
  g.add_edge(sp::START, "w").add_edge("w", "r").add_edge("r", "d");
  sp::CompileOptions o;
  o.store = std::make_shared<sp::InMemoryStore>();
  invoke(g.compile(c.plain(o)), json{{"n", 1}});
}}};

Register ma_cfg_passthrough{{"ma_cfg_passthrough", false, [](Ctx& c) {
  auto reader = [](const std::string& name) -> sp::NodeFn {
    return [name](const sp::State&, sp::Runtime& rt) {
      const json& cf = rt.config().configurable;
      const json& cx = rt.context();
      std::string user = cf.contains("user") ? cf["user"].get<std::string>() : "none";
      std::string tenant = cx.contains("tenant") ? cx["tenant"].get<std::string>() : "none";
      return json{{"trace", {name + ":user=" + user + ":tenant=" + tenant}}};
    };
  };
  sp::StateGraph sg(trace_schema());
  sg.add_node("inner", reader("inner")).add_edge(sp::START, "inner");
  sp::StateGraph g(trace_schema());
  g.add_node("a", reader("a")).add_node("sub", sg.compile()).add_edge(sp::START, "a").add_edge("a", "sub");
  auto app = g.compile(c.plain());
  sp::RunConfig cfg;
  cfg.configurable = {{"user", "u1"}};
  cfg.context = {{"tenant", "acme"}};
  invoke(app, json{{"n", 1}}, cfg);
  invoke(app, json{{"n", 2}});
}}};

Register ma_cfg_metadata{{"ma_cfg_metadata", true, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_edge(sp::START, "a").add_edge("a", "b");
  auto app = g.compile(c.opts());
  sp::RunConfig first = thread("t1");
  first.configurable = {{"tenant", "acme"}};
  first.metadata = {{"user", "u1"}};
  app.invoke(json{{"n", 1}}, first);
  sp::RunConfig second = thread("t1");
  second.metadata = {{"user", "u2"}};
  app.invoke(json{{"n", 2}}, second);
  for (json filter : {json{{"user", "u1"}}, json{{"user", "u2"}}, json{{"tenant", "acme"}}, json{{"source", "input"}}}) {
    json steps = json::array();
    for (const auto& s : app.get_state_history(thread("t1"), filter)) steps.push_back(s.metadata["step"]);
    emit(json{{"filter", filter}, {"steps", steps}});
  }
}}};

Register ma_input_nonobject{{"ma_input_nonobject", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_edge(sp::START, "a");
  auto app = g.compile(c.plain());
  for (json input : {json("hello"), json(42), json::array({1, 2})}) {
    emit(json{{"input", input}});
    invoke(app, input);
  }
  for (json out : {json("str"), json(5), json::array({"x"})}) {
    sp::StateGraph bad(trace_schema());
    bad.add_node("a", [out](const sp::State&) { return out; }).add_edge(sp::START, "a");
    emit(json{{"returns", out}});
    invoke(bad.compile(c.plain()), json{{"n", 1}});
  }
}}};

Register ma_draw_edges{{"ma_draw_edges", false, [](Ctx& c) {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"a", "b", "c", "d"}) g.add_node(n, tracer(n));
  g.add_edge(sp::START, "a");
  g.add_conditional_edges("a", to_x, {{"x", "b"}, {"y", sp::END}});
  g.add_conditional_edges("b", [](const sp::State&) { return sp::Route("c"); });
  g.add_edge({"b", "c"}, "d").add_edge("d", sp::END);
  sp::DrawableGraph d = g.compile(c.plain()).get_graph();
  std::vector<std::string> nodes, edges;
  for (const auto& n : d.nodes) nodes.push_back(n.id);
  for (const auto& e : d.edges) edges.push_back(e.source + "->" + e.target + (e.conditional ? " (cond)" : ""));
  std::sort(nodes.begin(), nodes.end());
  std::sort(edges.begin(), edges.end());
  emit(json{{"nodes", nodes}});
  emit(json{{"edges", edges}});
}}};
}  // namespace
