// Input and output schemas (StateGraphOptions): what an input may set, what nodes see, what
// invoke returns and streams show, reducers declared outside the state schema, conflicting
// declarations, subgraphs with their own schemas, and the JSON Schemas a server reports. The
// semantics are LangGraph.js 1.7.3's (tests/differential/js/io_*.mjs).
#include <gtest/gtest.h>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

std::string seen(const sp::State& s) {
  const json all = s.to_json();
  std::string out;
  for (auto it = all.begin(); it != all.end(); ++it) out += (out.empty() ? "" : ",") + it.key();
  return out;
}

/// State {a, b, c, seen}; input {a, x}; output {c, y}. n1 records what it sees and writes b, c
/// and y; n2 records what it sees.
sp::StateGraph basic() {
  sp::StateSchema state, in, out;
  state.field("a").field("b").field("c").field("seen", sp::reducers::append, json::array());
  in.field("a").field("x");
  out.field("c").field("y");
  sp::StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("n1", [](const sp::State& s) {
    return json{{"seen", {"n1:" + seen(s)}}, {"b", "B"}, {"c", s.value("a", std::string("-")) + "C"}, {"y", "Y"}};
  });
  g.add_node("n2", [](const sp::State& s) { return json{{"seen", {"n2:" + seen(s)}}}; });
  g.add_edge(sp::START, "n1").add_edge("n1", "n2");
  return g;
}

json last_values(sp::Stream&& stream) {
  json last;
  for (const sp::StreamPart& p : stream)
    if (p.mode == sp::StreamMode::values) last = p.data;
  return last;
}

TEST(IoSchemas, InvokeReturnsTheOutputKeysOnly) {
  auto app = basic().compile();
  EXPECT_EQ(app.invoke(json{{"a", "a0"}, {"x", "X"}}), (json{{"c", "a0C"}, {"y", "Y"}}));
}

TEST(IoSchemas, InputSetsItsKeysOnlyAndNodesSeeTheStateSchemasKeys) {
  auto app = basic().compile();
  // b is a state key outside the input schema: ignored, as LangGraph. x is the input's own key:
  // kept in the state, but no node sees it.
  json state = last_values(app.stream(json{{"a", "a0"}, {"x", "X"}, {"b", "ignored"}}, {}, {sp::StreamMode::values}));
  EXPECT_EQ(state, (json{{"a", "a0"}, {"b", "B"}, {"c", "a0C"}, {"x", "X"}, {"y", "Y"},
                         {"seen", {"n1:a,seen", "n2:a,b,c,seen"}}}));
}

TEST(IoSchemas, AKeyOfNoSchemaInTheInputIsStillAnError) {
  auto app = basic().compile();
  try {
    app.invoke(json{{"a", "a0"}, {"typo", 1}});
    FAIL() << "expected InvalidUpdateError";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("'typo'"), std::string::npos) << e.what();
  }
}

TEST(IoSchemas, NodeInputKeysMayNameTheInputsOwnKey) {
  sp::StateSchema state, in, out;
  state.field("a").field("r");
  in.field("a").field("x");
  out.field("r");
  sp::StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("p", [](const sp::State& s) { return json{{"r", seen(s) + "=" + s.get<std::string>("x")}}; },
             {.input_keys = {"x"}});
  g.add_edge(sp::START, "p");
  EXPECT_EQ(g.compile().invoke(json{{"a", "A"}, {"x", "X"}}), (json{{"r", "x=X"}}));
}

TEST(IoSchemas, InvokeReturnsNullWhenTheRunWroteNoOutputKey) {
  sp::StateSchema state, out;
  state.field("a");
  out.field("r").field("total", sp::reducers::add, 100);  // a default is not a write
  sp::StateGraph g(state, {.output_schema = out});
  g.add_node("p", [](const sp::State&) { return json{{"a", "A"}}; }).add_edge(sp::START, "p");
  auto app = g.compile();
  EXPECT_TRUE(app.invoke(json{{"a", "x"}}).is_null());
  // The stream still shows every channel, the output's default too.
  EXPECT_EQ(last_values(app.stream(json{{"a", "x"}}, {}, {sp::StreamMode::values})), (json{{"a", "A"}, {"total", 100}}));
}

TEST(IoSchemas, ReducersDeclaredOnlyInTheInputOrOutputSchemaFoldParallelWrites) {
  sp::StateSchema state, in, out;
  state.field("a");
  in.field("a").field("log", sp::reducers::concat, json::array({"in"}));
  out.field("log").field("total", sp::reducers::add, 100);
  sp::StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("p", [](const sp::State&) { return json{{"log", {"p"}}, {"total", 1}}; });
  g.add_node("q", [](const sp::State&) { return json{{"log", {"q"}}, {"total", 2}}; });
  g.add_edge(sp::START, "p").add_edge(sp::START, "q");
  for (int workers : {1, 2, 8}) {
    auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(workers)});
    EXPECT_EQ(app.invoke(json{{"a", "a"}, {"log", {"x"}}}),
              (json{{"log", {"in", "x", "p", "q"}}, {"total", 103}})) << workers << " workers";
  }
}

TEST(IoSchemas, AKeyDeclaredDifferentlyInTwoSchemasIsACompileError) {
  sp::StateSchema state, in;
  state.field("a").field("n", sp::reducers::add, 0);
  in.field("a", sp::reducers::append).field("n");  // a conflicts; n is plain: takes the state's
  sp::StateGraph g(state, {.input_schema = in});
  g.add_node("p", [](const sp::State&) { return json{{"n", 1}}; }).add_edge(sp::START, "p");
  try {
    g.compile();
    FAIL() << "expected GraphValidationError";
  } catch (const sp::GraphValidationError& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_NE(e.problems()[0].find("input schema key 'a'"), std::string::npos) << e.problems()[0];
    EXPECT_NE(e.problems()[0].find("state schema"), std::string::npos) << e.problems()[0];
  }
  // The same reducer and default in both is one channel.
  sp::StateSchema same;
  same.field("n", sp::reducers::add, 0);
  sp::StateGraph ok(state, {.input_schema = same, .output_schema = same});
  ok.add_node("p", [](const sp::State&) { return json{{"n", 1}}; }).add_edge(sp::START, "p");
  EXPECT_EQ(ok.compile().invoke(json{{"n", 2}}), (json{{"n", 3}}));
}

TEST(IoSchemas, APauseBeforeAnyOutputWriteReturnsOnlyTheInterrupt) {
  sp::StateSchema state, out;
  state.field("a");
  out.field("r").field("total", sp::reducers::add, 100);
  sp::StateGraph g(state, {.output_schema = out});
  g.add_node("p", [](const sp::State&, sp::Runtime& rt) { return json{{"a", sp::interrupt(rt, "ask")}}; });
  g.add_edge(sp::START, "p");
  auto app = g.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg{.thread_id = "t"};
  json paused = app.invoke(json{{"a", "x"}}, cfg);
  EXPECT_EQ(paused.size(), 1u);
  EXPECT_EQ(paused["__interrupt__"][0]["value"], "ask");
  // A resume shows the output even when it writes none of its keys; get_state has everything.
  EXPECT_EQ(app.invoke(sp::Command{.resume = "v"}, cfg), (json{{"total", 100}}));
  EXPECT_EQ(app.get_state(cfg).values, (json{{"a", "v"}, {"total", 100}}));
}

TEST(IoSchemas, CommandsAndUpdateStateMaySetAnyChannel) {
  auto app = basic().compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});
  sp::RunConfig cfg{.thread_id = "t"};
  app.invoke(json{{"a", "a0"}}, cfg);
  app.update_state(cfg, json{{"x", "X"}, {"y", "Y2"}, {"b", "b9"}});
  json values = app.get_state(cfg).values;
  EXPECT_EQ(values["x"], "X");
  EXPECT_EQ(values["y"], "Y2");
  EXPECT_EQ(values["b"], "b9");
  // A Command input's update is not limited to the input's keys (b is not one).
  app.invoke(sp::Command{.update = {{"b", "cmd"}, {"y", "Yc"}}}, cfg);
  EXPECT_EQ(app.get_state(cfg).values["b"], "cmd");
  EXPECT_EQ(app.invoke(json(nullptr), cfg), (json{{"c", "a0C"}, {"y", "Yc"}}));
}

TEST(IoSchemas, ASubgraphTakesItsInputKeysAndHandsBackItsOutputKeys) {
  sp::StateSchema child_state, child_in, child_out, parent;
  child_state.field("q").field("scratch").field("ans").field("secret");
  child_in.field("q");
  child_out.field("ans").field("extra");
  sp::StateGraph child(child_state, {.input_schema = child_in, .output_schema = child_out});
  child.add_node("think", [](const sp::State& s) {
    return json{{"scratch", seen(s)}, {"ans", s.get<std::string>("q") + "!"}, {"secret", "leak"}, {"extra", "E"}};
  });
  child.add_edge(sp::START, "think");
  parent.field("q").field("ans").field("secret");
  sp::StateGraph g(parent);
  g.add_node("pre", [](const sp::State&) { return json{{"secret", "top"}}; });
  g.add_node("sub", child.compile());
  g.add_edge(sp::START, "pre").add_edge("pre", "sub");
  auto app = g.compile();
  sp::RunConfig cfg;
  cfg.subgraphs = true;
  json updates = json::array();
  json sub_values = json::array();
  for (const sp::StreamPart& p : app.stream(json{{"q", "hi"}}, cfg, {sp::StreamMode::updates, sp::StreamMode::values})) {
    if (p.mode == sp::StreamMode::updates) updates.push_back(p.data);
    if (p.mode == sp::StreamMode::values && !p.ns.empty()) sub_values.push_back(p.data);
  }
  // The subgraph's parts show its output's keys; the parent gets those it has (not extra), and
  // not secret, which the subgraph wrote but does not output.
  EXPECT_EQ(updates, (json{{{"pre", {{"secret", "top"}}}}, {{"think", {{"ans", "hi!"}, {"extra", "E"}}}},
                           {{"sub", {{"ans", "hi!"}}}}}));
  EXPECT_EQ(sub_values, (json{{{"ans", "hi!"}, {"extra", "E"}}}));
  EXPECT_EQ(app.invoke(json{{"q", "hi"}}), (json{{"q", "hi"}, {"ans", "hi!"}, {"secret", "top"}}));
}

TEST(IoSchemas, JsonSchemasNameTheInputAndOutputKeys) {
  auto app = basic().compile({.name = "g"});
  json in = app.get_input_jsonschema(), out = app.get_output_jsonschema(), state = app.get_state_jsonschema();
  EXPECT_EQ(in["title"], "gInput");
  EXPECT_EQ(in["properties"], (json{{"a", json::object()}, {"x", json::object()}}));
  EXPECT_EQ(out["title"], "gOutput");
  EXPECT_EQ(out["properties"], (json{{"c", json::object()}, {"y", json::object()}}));
  // The state's schema has every channel, as get_state shows them.
  EXPECT_EQ(state["title"], "g");
  for (const char* k : {"a", "b", "c", "seen", "x", "y"}) EXPECT_TRUE(state["properties"].contains(k)) << k;
  // Without them, both are the state's.
  sp::StateSchema s;
  s.field("k", sp::reducers::add, 1);
  sp::StateGraph plain(s);
  plain.add_node("p", [](const sp::State&) { return json::object(); }).add_edge(sp::START, "p");
  auto p = plain.compile();
  EXPECT_EQ(p.get_input_jsonschema(), p.get_state_jsonschema());
  EXPECT_EQ(p.get_output_jsonschema(), p.get_state_jsonschema());
}

}  // namespace
