// A server process for the restart test (server_restart_test.cpp): serves graph `gate` on the
// database given, printing its URL. `gate`: first -> wait -> last; every node appends its name
// to <dir>/ran.log before it returns (so the test counts executions across processes), and
// `wait` waits (holding no thread) until the file <dir>/open exists.
//   superstep-server-child DB [WORKERS]
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <superstep/server/server.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

void record(const std::string& dir, const std::string& node) {
  std::ofstream(dir + "/ran.log", std::ios::app) << node << std::endl;
}

sp::CompiledStateGraph gate(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("dir").field("trace", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("first", [](const sp::State& st) {
    record(st.get<std::string>("dir"), "first");
    return json{{"trace", {"first"}}};
  });
  g.add_node("wait", [](const sp::State& st, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::string dir = st.get<std::string>("dir");
    while (!std::filesystem::exists(dir + "/open")) co_await sp::sleep_for(rt, std::chrono::milliseconds(20));
    record(dir, "wait");
    co_return json{{"trace", {"wait"}}};
  });
  g.add_node("last", [](const sp::State& st) {
    record(st.get<std::string>("dir"), "last");
    return json{{"trace", {"last"}}};
  });
  g.add_edge(sp::START, "first").add_edge("first", "wait").add_edge("wait", "last").add_edge("last", sp::END);
  sp::CompileOptions opts = o;
  opts.name = "gate";
  return g.compile(opts);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: superstep-server-child DB [WORKERS]\n";
    return 2;
  }
  sp::server::ServerOptions o;
  o.database = argv[1];
  o.port = 0;
  if (argc > 2) o.workers = static_cast<std::size_t>(std::stoul(argv[2]));
  sp::server::Server server(o);
  server.add_graph("gate", gate);
  server.start();
  std::cout << server.url() << std::endl;
  server.run();
  server.stop();
}
