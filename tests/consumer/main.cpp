#include <iostream>
#include <superstep/prebuilt/tool_node.hpp>
#include <superstep/server/server.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema schema;
  schema.field("count", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  g.add_node("inc", [](const sp::State&) { return json{{"count", 1}}; });
  g.add_edge(sp::START, "inc");
  json out = g.compile().invoke(json::object());
  std::cout << "consumer: " << out.dump() << "\n";
  // The installed superstep::prebuilt (and superstep::llm, libcurl) link too.
  sp::Tool echo("echo", "Echoes.", {{"type", "object"}}, [](const json& a) -> json { return a; });
  sp::ToolNode tools({echo});
  // The installed superstep::server (Boost.Beast, SQLite) links and serves on a free port.
  sp::server::Server server({.database = ":memory:", .port = 0, .log = false});
  server.add_graph("inc", [&](const sp::CompileOptions& o) { return g.compile(o); });
  server.start();
  bool served = server.port() != 0;
  server.stop();
  return out["count"] == 1 && echo.validate(json::object()).empty() && tools.tools().size() == 1 && served ? 0 : 1;
}
