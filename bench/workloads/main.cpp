// superstep-bench WORKLOAD [N] [REPS] [--saver memory|sqlite|postgres] [--typed] [--durability sync|async|exit]
// Prints one JSON line per ../shared/bench/README.md. Exit 1 on a wrong result, 2 on bad usage.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/workloads.hpp"

using superstep::json;

namespace {

int usage(const std::string& why) {
  std::cerr << "superstep-bench: " << why << "\n"
            << "usage: superstep-bench WORKLOAD [N] [REPS] [--saver memory|sqlite|postgres] [--typed] "
               "[--durability sync|async|exit]\n"
            << "workloads: sequential (N=1000), fanout (1000), react_loop (200), wide_state (100), "
               "parallel_branches (50), checkpointed (200), conversation_storage (1000),\n"
               "           concurrent_agents (1000; --workers K, default 2); react_loop --prebuilt (ToolNode path);\n"
               "           tcp_floor (1000: concurrent_agents' traffic over raw loopback TCP, no HTTP, JSON or engine)\n";
  return 2;
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  std::string saver = "memory";
  bool typed = false;
  bool prebuilt = false;
  int workers = 2;
  std::string durability = "async";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--saver" && i + 1 < argc) saver = argv[++i];
    else if (a == "--durability" && i + 1 < argc) durability = argv[++i];
    else if (a.rfind("--saver=", 0) == 0) saver = a.substr(8);
    else if (a == "--typed") typed = true;
    else if (a == "--prebuilt") prebuilt = true;
    else if (a == "--workers" && i + 1 < argc) workers = std::stoi(argv[++i]);
    else if (a == "-h" || a == "--help") return usage("help"), 0;
    else positional.push_back(a);
  }
  if (positional.empty()) return usage("no workload given");
  const std::string name = positional[0];
  if (name == "tcp_floor") {
    int n = positional.size() > 1 ? std::stoi(positional[1]) : 1000;
    int reps = positional.size() > 2 ? std::stoi(positional[2]) : 5;
    if (n < 1 || reps < 1) return usage("N and REPS must be positive");
    try {
      return bench::run_tcp_floor(n, reps);
    } catch (const std::exception& e) {
      std::cerr << "superstep-bench tcp_floor: " << e.what() << "\n";
      return 1;
    }
  }
  static const std::map<std::string, int> defaults = {
      {"sequential", 1000}, {"fanout", 1000}, {"react_loop", 200}, {"wide_state", 100}, {"parallel_branches", 50},
      {"checkpointed", 200}, {"conversation_storage", 1000}, {"concurrent_agents", 1000}};
  auto it = defaults.find(name);
  if (it == defaults.end()) return usage("unknown workload '" + name + "'");
  if (saver != "memory" && saver != "sqlite" && saver != "postgres")
    return usage("--saver must be memory, sqlite or postgres (got '" + saver + "')");
  if (saver == "postgres" && !std::getenv("SUPERSTEP_PG_DSN"))
    return usage("--saver postgres needs SUPERSTEP_PG_DSN (a libpq connection string; scripts/pg-cluster starts a server)");
  if (saver != "memory" && name != "checkpointed") return usage("--saver applies to the checkpointed workload");
  if (durability != "sync" && durability != "async" && durability != "exit")
    return usage("--durability must be sync, async or exit");
  if (typed && name == "checkpointed") return usage("checkpointed has no typed form");
  if (typed && name == "parallel_branches") return usage("parallel_branches has no typed form");

  int n = positional.size() > 1 ? std::stoi(positional[1]) : it->second;
  int reps = positional.size() > 2 ? std::stoi(positional[2]) : name == "conversation_storage" ? 1 : name == "concurrent_agents" ? 3 : 10;
  if (n < 1 || reps < 1) return usage("N and REPS must be positive");

  const superstep::Durability dur = durability == "sync"   ? superstep::Durability::sync
                                    : durability == "exit" ? superstep::Durability::exit
                                                           : superstep::Durability::async;
  if (name == "conversation_storage" && typed) return usage("conversation_storage has no typed form");
  if (prebuilt && name != "react_loop") return usage("--prebuilt applies to react_loop");
  bench::Workload w = name == "checkpointed"           ? bench::make_checkpointed(n, saver, dur)
                      : name == "concurrent_agents"    ? bench::make_concurrent_agents(n, workers)
                      : prebuilt                       ? bench::make_react_loop_prebuilt(n)
                      : name == "conversation_storage" ? bench::make_conversation_storage(n)
                      : typed ? (name == "sequential"   ? bench::make_sequential_typed(n)
                               : name == "fanout"     ? bench::make_fanout_typed(n)
                               : name == "react_loop" ? bench::make_react_loop_typed(n)
                                                      : bench::make_wide_state_typed(n))
                             : (name == "sequential"   ? bench::make_sequential(n)
                               : name == "fanout"     ? bench::make_fanout(n)
                               : name == "react_loop" ? bench::make_react_loop(n)
                               : name == "wide_state" ? bench::make_wide_state(n)
                                                      : bench::make_parallel_branches(n));
  // Each repetition times the engine, then the same node bodies without the engine (w.direct),
  // interleaved so both see the same machine state.
  std::vector<double> times, direct;
  try {
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      json out = w.run();
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      w.check(out);
      if (w.direct) {
        t0 = std::chrono::steady_clock::now();
        w.direct();
        direct.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "superstep-bench " << name << ": " << e.what() << "\n";
    return 1;
  }
  auto warm_median = [](std::vector<double> v) {
    if (v.size() > 1) v.erase(v.begin());
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::optional<double> direct_us;
  if (!direct.empty()) direct_us = warm_median(direct) * 1000.0 / static_cast<double>(w.nodes_run);
  double cold = times.front();
  std::vector<double> warm(times.begin() + (times.size() > 1 ? 1 : 0), times.end());
  std::sort(warm.begin(), warm.end());
  double median = warm_median(times);
  json line = {{"name", typed ? name + " --typed" : prebuilt ? name + " --prebuilt" : name},
               {"n", n},
               {"ms", cold},
               {"warm_ms_median", median},
               {"warm_ms_min", warm.front()},
               {"nodes_run", w.nodes_run},
               {"supersteps", w.supersteps},
               {"us_per_node_warm", median * 1000.0 / static_cast<double>(w.nodes_run)},
               {"build_ms", w.build_ms},
               {"compile_ms", w.compile_ms},
               {"result_check", "ok"},
               {"peak_rss_mb", peak_rss_mb()}};
  if (w.extra) line.update(w.extra());
  if (direct_us) {
    // What the engine adds per node run on top of the node bodies' own JSON work.
    line["direct_us_per_node"] = *direct_us;
    line["engine_overhead_us_per_node"] = line["us_per_node_warm"].get<double>() - *direct_us;
  }
  std::cout << line.dump() << std::endl;
  return 0;
}
