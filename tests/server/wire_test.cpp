// The server's wire helpers (internals): reading a request's JSON, a graph's schemas.
#include <gtest/gtest.h>

#include <superstep/superstep.hpp>

#include "server/wire.hpp"

namespace superstep::server {
namespace {

TEST(RequestJson, NestingIsCountedOutsideStrings) {
  EXPECT_FALSE(nests_deeper_than("[[{}]]", 3));
  EXPECT_TRUE(nests_deeper_than("[[{}]]", 2));
  EXPECT_FALSE(nests_deeper_than(R"(["[[[[", "\"[[[["])", 1));
  EXPECT_TRUE(nests_deeper_than(R"(["\\", [[]]])", 2));  // an escaped backslash ends before the quote
  EXPECT_FALSE(nests_deeper_than("]]]][[", 2));             // not JSON: json::parse says so
  EXPECT_THROW(parse_request_body("{"), HttpError);
  EXPECT_EQ(parse_request_body(R"({"a":[1]})")["a"][0], 1);
}

TEST(GraphSchemaWire, InputAndOutputSchemasAreTheGraphsOwn) {
  // GET /assistants/{id}/schemas of a graph with input and output schemas (docs/server.md).
  StateSchema state, in, out;
  state.field("question").field("notes", reducers::append, json::array());
  in.field("question").field("user");
  out.field("answer");
  StateGraph g(state, {.input_schema = in, .output_schema = out});
  g.add_node("a", [](const State&) { return json{{"answer", "42"}}; }).add_edge(START, "a");
  json wire = graph_schema_wire("qa", g.compile({.name = "qa"}));
  EXPECT_EQ(wire["graph_id"], "qa");
  EXPECT_EQ(wire["input_schema"]["properties"], (json{{"question", json::object()}, {"user", json::object()}}));
  EXPECT_EQ(wire["output_schema"]["properties"], (json{{"answer", json::object()}}));
  EXPECT_EQ(wire["output_schema"]["title"], "qaOutput");
  json props = wire["state_schema"]["properties"];
  EXPECT_EQ(props.size(), 4u);  // question, notes, user, answer: every channel
  EXPECT_EQ(props["notes"]["default"], json::array());
}

}  // namespace
}  // namespace superstep::server
