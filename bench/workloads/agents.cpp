// Agent workloads: react_loop on the prebuilt path (ToolNode, tools_condition) and
// concurrent_agents: N create_react_agent runs at once against an OpenAI-compatible server
// that answers after a delay, driven by ainvoke over the real HTTP client.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/prebuilt/react_agent.hpp>

#include "workloads/workloads.hpp"

namespace bench {
namespace sp = superstep;
using sp::json;

Workload make_react_loop_prebuilt(int n) {
  auto t0 = std::chrono::steady_clock::now();
  sp::Tool echo("echo", "Echoes i.", {{"type", "object"}, {"properties", {{"i", {{"type", "integer"}}}}}, {"required", {"i"}}},
                [](const json& args) -> json { return std::to_string(args["i"].get<int>()); });
  sp::StateGraph g(sp::messages_state());
  g.add_node("agent", [](const sp::State& st) { return react_loop_agent(st); });
  g.add_node("tools", sp::ToolNode({echo}));
  g.add_edge(sp::START, "agent");
  g.add_conditional_edges("agent", sp::tools_condition);
  g.add_conditional_edges("tools", [n](const sp::State& st) {
    std::size_t i = (st["messages"].size() - 1) / 2 - 1;
    return static_cast<int>(i) + 1 >= n ? sp::END : "agent";
  });
  double build = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto app = g.compile();
  Workload w{app, build, ms_since(t0)};
  w.run = [app] {
    return app.invoke(json{{"messages", json::array({json{{"type", "human"}, {"content", "go"}}})}},
                      {.recursion_limit = 1 << 30});
  };
  w.check = [n](const json& out) { check_react_loop(out, n); };
  w.nodes_run = 2L * n;
  w.supersteps = 2L * n + 1;
  return w;
}

namespace {

/// The test server in its own process (its threads are not ours to count): started with a
/// delay, its base URL read from its first line of output.
struct ServerProcess {
  pid_t pid = -1;
  std::string base_url;
  ServerProcess(const std::string& program, int delay_ms, int threads) {
    if (const char* url = std::getenv("SUPERSTEP_BENCH_LLM_URL"); url && *url) {  // a server started by hand
      base_url = url;
      return;
    }
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid = fork();
    if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      std::string d = std::to_string(delay_ms), t = std::to_string(threads);
      execl(program.c_str(), program.c_str(), "--delay-ms", d.c_str(), "--threads", t.c_str(), "--react", "--event-loop", nullptr);
      _exit(127);
    }
    close(fds[1]);
    char buf[256];
    ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    if (got <= 0) throw std::runtime_error("could not start " + program);
    base_url.assign(buf, static_cast<std::size_t>(got));
    while (!base_url.empty() && (base_url.back() == '\n' || base_url.back() == '\r')) base_url.pop_back();
  }
  ~ServerProcess() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }
};

int threads_now() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

}  // namespace

Workload make_concurrent_agents(int n, int workers) {
  constexpr int kDelayMs = 20;
  constexpr int kTurns = 2;  // the model calls the tool, then answers
  auto server = std::make_shared<ServerProcess>(SUPERSTEP_TEST_SERVER, kDelayMs, n + 64);
  auto t0 = std::chrono::steady_clock::now();
  auto llm = std::make_shared<sp::OpenAIChatModel>(sp::OpenAIOptions{.model = "bench", .base_url = server->base_url});
  sp::Tool lookup("lookup", "Looks something up.", {{"type", "object"}, {"properties", json::object()}},
                  [](const json&) -> json { return "found"; });
  auto app = sp::create_react_agent(llm, {lookup}, {.executor = std::make_shared<sp::ThreadPool>(workers)});
  double build = ms_since(t0);
  Workload w{app, build, 0};
  auto peak_threads = std::make_shared<int>(0);
  auto last_ms = std::make_shared<double>(0);
  w.run = [app, n, peak_threads, last_ms, server, llm] {
    std::vector<sp::Task<json>> runs;
    runs.reserve(n);
    for (int i = 0; i < n; ++i) runs.push_back(app.ainvoke(json{{"messages", {"agent " + std::to_string(i)}}}));
    std::atomic<bool> done{false};
    std::thread sampler([&] {
      while (!done) {
        *peak_threads = std::max(*peak_threads, threads_now() - 1);  // not counting the sampler
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    auto t = std::chrono::steady_clock::now();
    std::vector<json> results;
    try {
      results = sp::sync_wait(sp::when_all(std::move(runs)));
    } catch (...) {
      done = true;
      sampler.join();
      throw;
    }
    *last_ms = ms_since(t);
    done = true;
    sampler.join();
    json summary = {{"runs", results.size()}, {"last", results.back()}};
    for (const json& r : results)
      if (r["messages"].size() != 4 || r["messages"][3]["content"] != "done: found") summary["bad"] = r;
    return summary;
  };
  w.check = [n](const json& out) {
    expect(out["runs"] == n, "every run finished");
    expect(!out.contains("bad"), "every run: human, ai(tool call), tool, ai 'done: found'");
  };
  w.extra = [n, peak_threads, last_ms, kTurns, kDelayMs, workers] {
    double per_turn = *last_ms / kTurns;
    return json{{"concurrent_runs", n},
                {"model_turns_per_run", kTurns},
                {"server_delay_ms", kDelayMs},
                {"ms_per_model_turn", per_turn},
                {"ratio_to_delay", per_turn / kDelayMs},
                {"executor_threads", workers},
                {"peak_process_threads", *peak_threads}};
  };
  w.nodes_run = 4L * n;  // agent, tools, agent per run... plus __start__ not counted
  w.supersteps = 4;
  return w;
}

}  // namespace bench
