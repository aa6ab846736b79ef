// compile() validation: every problem is reported at once, each naming the node or edge.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace testing_util;

namespace {
std::vector<std::string> problems_of(const sp::StateGraph& g, sp::CompileOptions opts = {}) {
  try {
    g.compile(std::move(opts));
  } catch (const sp::GraphValidationError& e) {
    return e.problems();
  }
  return {};
}
bool has(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(Compile, NoEntryPoint) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a"));
  auto p = problems_of(g);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_TRUE(has(p, "graph 'LangGraph': graph has no entry point")) << p[0];
}

TEST(Compile, EveryProblemReportedAtOnce) {
  sp::StateSchema s;
  s.field("x").field("x").field("__start__").field("branch:to:y");
  sp::StateGraph g(s);
  g.add_node("a", tracer("a"));
  g.add_node("a", tracer("a"));
  g.add_node(sp::START, tracer("s"));
  g.add_node("bad:name", tracer("b"));
  g.add_node("pipe|name", tracer("b"));
  g.add_node("", tracer("e"));
  g.add_node("nofn", sp::NodeFn{});
  g.add_node("__interrupt__", tracer("i"));
  g.add_node("k", tracer("k"), {.input_keys = {"ghost"}, .output_keys = {"phantom"}, .ends = {"nowhere"}});
  g.add_edge(sp::START, "missing");
  g.add_edge("unknown_src", "a");
  g.add_edge(sp::END, "a");
  g.add_edge("a", sp::START);
  g.add_edge({"a", "zz"}, "a");
  g.add_edge({"a", "a"}, sp::END);
  g.add_edge(std::vector<std::string>{"k"}, sp::END);
  g.add_conditional_edges("nope", [](const sp::State&) { return sp::END; });
  g.add_conditional_edges("a", [](const sp::State&) { return sp::END; }, {{"go", "nonexistent"}});
  g.add_conditional_edges("a", [](const sp::State&) { return sp::END; }, std::vector<std::string>{"ghost_dest"});
  auto p = problems_of(g, {.interrupt_before = {"nobody"}, .interrupt_after = {"noone"}, .name = "demo"});
  std::vector<std::string> expected = {
      "state key 'x' is declared twice",
      "state key '__start__' is a reserved name",
      "state key 'branch:to:y' is a reserved name",
      "node 'a' is added twice",
      "node '__start__': name is reserved",
      "node 'bad:name': name is reserved",
      "node 'pipe|name': name is reserved",
      "node with an empty name",
      "node 'nofn' has no function",
      "node '__interrupt__': name is reserved",
      "node 'k': input key 'ghost' is not a state key",
      "node 'k': output key 'phantom' is not a state key",
      "node 'k': destination 'nowhere' in ends is not a node",
      "edge '__start__' -> 'missing': target 'missing' is not a node",
      "edge 'unknown_src' -> 'a': source 'unknown_src' is not a node",
      "edge '__end__' -> 'a': END cannot be the source of an edge",
      "edge 'a' -> '__start__': START cannot be the target of an edge",
      "join edge [a, zz] -> 'a': source 'zz' is not a node",
      "join edge [a, a] -> '__end__': source 'a' is listed twice",
      "join edge [a, a] -> '__end__': a join cannot target END",
      "join edge [k] -> '__end__': a join cannot target END",
      "conditional edge from 'nope': source 'nope' is not a node",
      "conditional edge from 'a': path map entry 'go' -> 'nonexistent' targets an unknown node",
      "conditional edge from 'a': destination 'ghost_dest' is not a node",
      "interrupt_before: 'nobody' is not a node",
      "interrupt_after: 'noone' is not a node",
  };
  for (const auto& e : expected) EXPECT_TRUE(has(p, e)) << "missing: " << e;
  EXPECT_EQ(p.size(), expected.size());
  for (const auto& problem : p) EXPECT_EQ(problem.rfind("graph 'demo': ", 0), 0u) << problem;
}

TEST(Compile, ErrorMessageListsProblems) {
  sp::StateGraph g(trace_schema());
  g.add_edge("x", "y");
  try {
    g.compile();
    FAIL();
  } catch (const sp::GraphValidationError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("invalid graph (3 problems):"), std::string::npos) << what;
    EXPECT_NE(what.find("\n  - graph 'LangGraph': edge 'x' -> 'y': source 'x' is not a node"), std::string::npos) << what;
  }
}

TEST(Compile, EmptySequence) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_edge(sp::START, "a").add_sequence({});
  EXPECT_TRUE(has(problems_of(g), "add_sequence was given no nodes"));
}

TEST(Compile, ReducerWithExplicitChannelKind) {
  sp::StateSchema s;
  s.field(sp::FieldSpec{"k", sp::reducers::add, std::nullopt, sp::ChannelKind::topic});
  sp::StateGraph g(s);
  g.add_node("a", tracer("a")).add_edge(sp::START, "a");
  EXPECT_TRUE(has(problems_of(g), "state key 'k' has both a reducer and an explicit channel kind"));
}

TEST(Compile, UnreachableNodeIsAWarningNotAnError) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("island", tracer("island"));
  g.add_edge(sp::START, "a");
  auto app = g.compile();
  ASSERT_EQ(app.warnings().size(), 1u);
  EXPECT_NE(app.warnings()[0].find("node 'island' is not reachable from START"), std::string::npos);
  // A router without a path map may go anywhere: no warning.
  sp::StateGraph g2(trace_schema());
  g2.add_node("a", tracer("a")).add_node("b", tracer("b"));
  g2.add_edge(sp::START, "a").add_conditional_edges("a", [](const sp::State&) { return "b"; });
  EXPECT_TRUE(g2.compile().warnings().empty());
}

TEST(Compile, InterruptsNeedACheckpointer) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_edge(sp::START, "a");
  auto app = g.compile({.interrupt_before = {"a"}});
  try {
    app.invoke(json::object());
    FAIL();
  } catch (const sp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("need a checkpointer"), std::string::npos);
  }
}

TEST(Draw, MermaidShowsNodesEdgesAndConditionalLabels) {
  sp::StateGraph g(trace_schema());
  g.add_node("plan", tracer("plan")).add_node("act", tracer("act"));
  g.add_edge(sp::START, "plan").add_edge("act", "plan");
  g.add_conditional_edges("plan", [](const sp::State&) { return "go"; }, {{"go", "act"}, {"stop", sp::END}});
  std::string m = g.compile().get_graph().draw_mermaid();
  EXPECT_EQ(m,
            "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n"
            "\t__start__([<p>__start__</p>]):::first\n"
            "\tplan(plan)\n"
            "\tact(act)\n"
            "\t__end__([<p>__end__</p>]):::last\n"
            "\t__start__ --> plan;\n"
            "\tact --> plan;\n"
            "\tplan -. &nbsp;go&nbsp; .-> act;\n"
            "\tplan -. &nbsp;stop&nbsp; .-> __end__;\n"
            "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
            "\tclassDef first fill-opacity:0\n"
            "\tclassDef last fill:#bfb6fc\n");
}

TEST(Draw, DotAndRouterWithoutPathMapAndJoins) {
  sp::StateGraph g(trace_schema());
  g.add_node("a", tracer("a")).add_node("b", tracer("b")).add_node("c", tracer("c"));
  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge({"a", "b"}, "c");
  g.add_conditional_edges("c", [](const sp::State&) { return sp::END; });
  auto d = g.compile().get_graph();
  std::string dot = d.draw_dot();
  EXPECT_NE(dot.find("\"a\" -> \"c\";"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"b\" -> \"c\";"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"c\" -> \"__end__\" [style=dashed];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("\"c\" -> \"a\" [style=dashed];"), std::string::npos) << dot;
  EXPECT_EQ(d.nodes.back().id, sp::END);
}
