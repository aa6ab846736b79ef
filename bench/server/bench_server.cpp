// The server benchmark's graphs served by superstep::server (bench/server/run.mjs drives it and
// the reference JS server, which serves the same graphs from reference/graphs.mjs):
//   seq3    one -> two -> three, each writing one key
//   stream  one node writing `n` events (default 10,000) to the custom stream
//   sleep   one coroutine node awaiting a timer of `seconds` (holds no thread)
//   superstep-bench-server --db FILE [--port P] [--workers N] [--exclusive-db 0|1] [--io-threads N] [--group-commit MS]
#include <chrono>
#include <iostream>
#include <string>

#include <superstep/server/server.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

sp::CompiledStateGraph seq3(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("a").field("b").field("c");
  sp::StateGraph g(s);
  g.add_node("one", [](const sp::State&) { return json{{"a", 1}}; });
  g.add_node("two", [](const sp::State&) { return json{{"b", 2}}; });
  g.add_node("three", [](const sp::State&) { return json{{"c", 3}}; });
  g.add_edge(sp::START, "one").add_edge("one", "two").add_edge("two", "three").add_edge("three", sp::END);
  sp::CompileOptions opts = o;
  opts.name = "seq3";
  return g.compile(opts);
}

sp::CompiledStateGraph stream(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("n").field("sent");
  sp::StateGraph g(s);
  g.add_node("emit", [](const sp::State& st, sp::Runtime& rt) {
    const json* n = st.find("n");
    int count = n && n->is_number_integer() ? n->get<int>() : 10000;
    for (int i = 0; i < count; ++i) rt.stream_writer(json{{"i", i}});
    return json{{"sent", count}};
  });
  g.add_edge(sp::START, "emit").add_edge("emit", sp::END);
  sp::CompileOptions opts = o;
  opts.name = "stream";
  return g.compile(opts);
}

sp::CompiledStateGraph sleep_graph(const sp::CompileOptions& o) {
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
  sp::CompileOptions opts = o;
  opts.name = "sleep";
  return g.compile(opts);
}

}  // namespace

int main(int argc, char** argv) {
  sp::server::ServerOptions o;
  o.port = 0;
  o.log = false;
  o.workers = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--db") o.database = argv[i + 1];
    else if (a == "--port") o.port = static_cast<unsigned short>(std::stoi(argv[i + 1]));
    else if (a == "--workers") o.workers = std::stoul(argv[i + 1]);
    else if (a == "--io-threads") o.io_threads = std::stoul(argv[i + 1]);
    else if (a == "--exclusive-db") o.exclusive_database = std::string(argv[i + 1]) == "1";
    else if (a == "--group-commit") o.group_commit = std::chrono::milliseconds(std::stoi(argv[i + 1]));
  }
  try {
    sp::server::Server server(o);
    server.add_graph("seq3", seq3);
    server.add_graph("stream", stream);
    server.add_graph("sleep", sleep_graph);
    server.start();
    std::cout << server.url() << std::endl;
    server.run();
    server.stop();
  } catch (const std::exception& e) {
    std::cerr << "superstep-bench-server: " << e.what() << std::endl;
    return 1;
  }
}
