// A compiled graph describing itself: get_graph(xray) inlines subgraphs, get_subgraphs finds
// them (by namespace, recursively), get_state_jsonschema types typed state's fields.
#include <gtest/gtest.h>

#include <superstep/superstep.hpp>

#include "typed/typed_states.hpp"

namespace sp = superstep;
using sp::json;

namespace {

sp::NodeFn put(std::string key) {
  return [key](const sp::State&) { return json{{key, true}}; };
}

/// START -> one -> two -> END, named `name`.
sp::CompiledStateGraph leaf(const std::string& name) {
  sp::StateSchema s;
  s.field("x");
  sp::StateGraph g(s);
  g.add_node("one", put("x")).add_node("two", put("x"));
  g.add_edge(sp::START, "one").add_edge("one", "two").add_edge("two", sp::END);
  return g.compile({.name = name});
}

/// START -> prepare -> child (a subgraph) -> finish -> END
sp::CompiledStateGraph nested(const sp::CompiledStateGraph& child) {
  sp::StateSchema s;
  s.field("x");
  sp::StateGraph g(s);
  g.add_node("prepare", put("x")).add_node("child", child).add_node("finish", put("x"));
  g.add_edge(sp::START, "prepare").add_edge("prepare", "child").add_edge("child", "finish").add_edge("finish", sp::END);
  return g.compile({.name = "outer"});
}

std::vector<std::string> ids(const sp::DrawableGraph& d) {
  std::vector<std::string> out;
  for (const auto& n : d.nodes) out.push_back(n.id);
  return out;
}

std::set<std::string> edges(const sp::DrawableGraph& d) {
  std::set<std::string> out;
  for (const auto& e : d.edges) out.insert(e.source + "->" + e.target);
  return out;
}

TEST(Introspect, XrayInlinesSubgraphsToTheDepthAsked) {
  auto app = nested(leaf("inner"));
  sp::DrawableGraph plain = app.get_graph();
  EXPECT_EQ(ids(plain), (std::vector<std::string>{"__start__", "prepare", "child", "finish", "__end__"}));
  EXPECT_EQ(plain.nodes[2].subgraph, "inner");  // the node is a compiled graph
  EXPECT_EQ(plain.nodes[1].subgraph, "");
  EXPECT_EQ(ids(app.get_graph(0)), ids(plain));

  sp::DrawableGraph x = app.get_graph(1);
  EXPECT_EQ(ids(x), (std::vector<std::string>{"__start__", "prepare", "child:one", "child:two", "finish", "__end__"}));
  EXPECT_EQ(edges(x), (std::set<std::string>{"__start__->prepare", "prepare->child:one", "child:one->child:two",
                                             "child:two->finish", "finish->__end__"}));

  // Two levels: depth 1 stops at the inner subgraph, -1 goes all the way.
  auto deep = nested(nested(leaf("leaf")));
  EXPECT_EQ(ids(deep.get_graph(1)),
            (std::vector<std::string>{"__start__", "prepare", "child:prepare", "child:child", "child:finish", "finish",
                                      "__end__"}));
  EXPECT_EQ(deep.get_graph(1).nodes[3].subgraph, "leaf");
  sp::DrawableGraph all = deep.get_graph(-1);
  EXPECT_EQ(ids(all), (std::vector<std::string>{"__start__", "prepare", "child:prepare", "child:child:one",
                                                "child:child:two", "child:finish", "finish", "__end__"}));
  EXPECT_TRUE(edges(all).count("child:prepare->child:child:one"));
  EXPECT_TRUE(edges(all).count("child:child:two->child:finish"));
  EXPECT_TRUE(edges(all).count("prepare->child:prepare"));
  EXPECT_TRUE(edges(all).count("child:finish->finish"));
  EXPECT_EQ(ids(leaf("flat").get_graph(-1)), ids(leaf("flat").get_graph()));  // nothing to inline
}

TEST(Introspect, SubgraphsByNamespaceAndRecursively) {
  auto deep = nested(nested(leaf("leaf")));
  auto names = [](const std::vector<std::pair<std::string, sp::CompiledStateGraph>>& subs) {
    std::vector<std::string> out;
    for (const auto& [n, g] : subs) out.push_back(n + "=" + g.name());
    return out;
  };
  EXPECT_EQ(names(deep.get_subgraphs()), (std::vector<std::string>{"child=outer"}));
  EXPECT_EQ(names(deep.get_subgraphs("", true)), (std::vector<std::string>{"child=outer", "child|child=leaf"}));
  EXPECT_EQ(names(deep.get_subgraphs("child")), (std::vector<std::string>{"child=outer"}));
  EXPECT_EQ(names(deep.get_subgraphs("child|child")), (std::vector<std::string>{"child|child=leaf"}));
  EXPECT_TRUE(deep.get_subgraphs("nope").empty());
  EXPECT_TRUE(leaf("flat").get_subgraphs("", true).empty());
}

TEST(Introspect, StateJsonSchemaTypesTypedFieldsAndLeavesJsonFieldsOpen) {
  sp::StateSchema s;
  s.field("topic").field("count", sp::reducers::add, 0);
  sp::StateGraph g(s);
  g.add_node("a", put("topic")).add_edge(sp::START, "a").add_edge("a", sp::END);
  json schema = g.compile({.name = "plain"}).get_state_jsonschema();
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["$schema"], "http://json-schema.org/draft-07/schema#");
  EXPECT_EQ(schema["title"], "plain");
  EXPECT_EQ(schema["properties"], json::parse(R"({"topic":{},"count":{"default":0}})"));
  EXPECT_EQ(g.compile().get_input_jsonschema(), g.compile().get_output_jsonschema());

  sp::TypedStateGraph<Flow> t;
  t.add_node("a", [](const Flow&) { return sp::Update<Flow>(); });
  t.add_edge(sp::START, "a").add_edge("a", sp::END);
  json typed = t.compile().json_graph().get_state_jsonschema()["properties"];
  EXPECT_EQ(typed["n"], json::parse(R"({"type":"integer"})"));
  EXPECT_EQ(typed["trace"], json::parse(R"({"type":"array","items":{"type":"string"}})"));
  EXPECT_EQ(typed["flag"], json::parse(R"({"type":"boolean"})"));
  EXPECT_EQ(typed["text"], json::parse(R"({"type":"string"})"));
  EXPECT_EQ(sp::json_schema_of<std::optional<double>>(), json::parse(R"({"anyOf":[{"type":"number"},{"type":"null"}]})"));
  using IntLists = std::map<std::string, std::vector<int>>;
  EXPECT_EQ(sp::json_schema_of<IntLists>(),
            json::parse(R"({"type":"object","additionalProperties":{"type":"array","items":{"type":"integer"}}})"));
  EXPECT_EQ(sp::json_schema_of<TMsg>(), json::object());  // a user struct: any value
}

}  // namespace
