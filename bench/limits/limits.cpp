// superstep-limits: the full-size runs behind docs/reliability.md, "Limits users can rely on"
// (the test suite runs them at about 10^4: tests/pregel/limits_test.cpp). One scenario per
// process, so each reports its own peak RSS (getrusage); prints one JSON line and exits 1 when
// the result is wrong, 2 on bad usage.
//
//   superstep-limits sends N [--saver none|memory|sqlite]   N parallel Sends, each adding i
//   superstep-limits value MB [--saver memory|sqlite]        an MB-megabyte channel value stored and read back
//   superstep-limits history N [--page P] [--durability D]  N checkpoints in one SQLite thread, then
//                                                            history pages of P at its end and its start
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <superstep/checkpoint/memory_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("result check failed: " + what);
}

std::string scratch_db(const std::string& tag) {
  auto path = std::filesystem::temp_directory_path() /
              ("superstep_limits_" + std::to_string(::getpid()) + "_" + tag + ".db");
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
  return path.string();
}

void remove_db(const std::string& path) {
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
}

std::shared_ptr<sp::CheckpointSaver> make_saver(const std::string& kind, const std::string& path) {
  if (kind == "memory") return std::make_shared<sp::InMemorySaver>();
  if (kind == "sqlite") return std::make_shared<sp::SqliteSaver>(path);
  return nullptr;
}

json sends(long n, const std::string& saver_kind) {
  sp::StateSchema schema;
  schema.field("total", sp::reducers::add, 0).field("n");
  sp::StateGraph g(schema);
  g.add_node("fan", [](const sp::State&) { return json::object(); });
  g.add_node("work", [](const sp::State& s) { return json{{"total", s.get<int64_t>("i")}}; });
  g.add_edge(sp::START, "fan");
  g.add_conditional_edges("fan", [](const sp::State& s) {
    std::vector<sp::Send> out;
    const auto n = s.get<int64_t>("n");
    out.reserve(static_cast<std::size_t>(n));
    for (int64_t i = 1; i <= n; ++i) out.push_back(sp::Send{"work", {{"i", i}}});
    return out;
  });
  const std::string path = scratch_db("sends");
  sp::CompileOptions opts;
  opts.checkpointer = make_saver(saver_kind, path);
  auto app = g.compile(opts);
  sp::RunConfig cfg;
  cfg.thread_id = "sends";
  auto t0 = std::chrono::steady_clock::now();
  json out = app.invoke(json{{"n", n}}, cfg);
  const double run_s = seconds_since(t0);
  expect(out["total"].get<int64_t>() == n * (n + 1) / 2, "total");
  remove_db(path);
  return {{"scenario", "sends"}, {"n", n}, {"saver", saver_kind}, {"run_s", run_s}, {"peak_rss_mb", peak_rss_mb()}};
}

json value(long mb, const std::string& saver_kind) {
  const std::size_t bytes = static_cast<std::size_t>(mb) << 20;
  sp::StateSchema schema;
  schema.field("size").field("data");
  sp::StateGraph g(schema);
  g.add_node("big", [](const sp::State& s) { return json{{"data", std::string(s.get<std::size_t>("size"), 'x')}}; });
  g.add_edge(sp::START, "big");
  const std::string path = scratch_db("value");
  auto saver = make_saver(saver_kind, path);
  sp::CompileOptions opts;
  opts.checkpointer = saver;
  auto app = g.compile(opts);
  sp::RunConfig cfg;
  cfg.thread_id = "value";
  auto t0 = std::chrono::steady_clock::now();
  app.invoke(json{{"size", bytes}}, cfg);
  const double write_s = seconds_since(t0);
  const double rss_after_write = peak_rss_mb();
  // Read back: on SQLite through a second saver on the file (nothing cached).
  if (saver_kind == "sqlite") {
    saver.reset();
    opts.checkpointer = std::make_shared<sp::SqliteSaver>(path);
    app = g.compile(opts);
  }
  t0 = std::chrono::steady_clock::now();
  auto snap = app.get_state(cfg);
  const double read_s = seconds_since(t0);
  const auto& data = snap.values["data"].get_ref<const std::string&>();
  expect(data.size() == bytes && data.find_first_not_of('x') == std::string::npos, "value read back");
  remove_db(path);
  return {{"scenario", "value"}, {"mb", mb}, {"saver", saver_kind}, {"write_s", write_s}, {"read_s", read_s},
          {"peak_rss_after_write_mb", rss_after_write}, {"peak_rss_mb", peak_rss_mb()}};
}

json history(long n, std::size_t page, sp::Durability durability) {
  sp::StateSchema full;
  full.field("n", sp::reducers::add, 0).field("until");
  sp::StateGraph h(full);
  h.add_node("count", [](const sp::State&) { return json{{"n", 1}}; });
  h.add_edge(sp::START, "count");
  h.add_conditional_edges("count", [](const sp::State& s) -> sp::Route {
    return s.get<int64_t>("n") < s.get<int64_t>("until") ? sp::Route("count") : sp::Route(sp::END);
  });
  const std::string path = scratch_db("history");
  sp::CompileOptions opts;
  opts.checkpointer = std::make_shared<sp::SqliteSaver>(path);
  auto app = h.compile(opts);
  sp::RunConfig cfg;
  cfg.thread_id = "history";
  cfg.recursion_limit = static_cast<int>(n) + 1;
  cfg.durability = durability;
  auto t0 = std::chrono::steady_clock::now();
  json out = app.invoke(json{{"n", 0}, {"until", n}}, cfg);
  const double write_s = seconds_since(t0);
  expect(out["n"].get<int64_t>() == n, "steps run");
  const double rss_after_write = peak_rss_mb();

  auto timed_page = [&](std::optional<std::string> before, double* seconds) {
    // The best of 5: a page is milliseconds, the machine is shared.
    std::vector<sp::StateSnapshot> p;
    *seconds = 1e9;
    for (int r = 0; r < 5; ++r) {
      auto t = std::chrono::steady_clock::now();
      p = app.get_state_history(cfg, nullptr, before, page);
      *seconds = std::min(*seconds, seconds_since(t));
    }
    expect(p.size() == page, "a full page");
    return p;
  };
  double newest_s = 0, second_s = 0, oldest_s = 0;
  auto newest = timed_page(std::nullopt, &newest_s);
  expect(newest[0].values["n"].get<int64_t>() == n, "newest page");
  timed_page(newest.back().config.checkpoint_id, &second_s);
  // A checkpoint near the thread's start (found by a metadata filter, which scans: not timed).
  const auto start_step = static_cast<int64_t>(2 * page);
  auto t_find = std::chrono::steady_clock::now();
  auto at = app.get_state_history(cfg, json{{"step", start_step}}, std::nullopt, 1);
  const double find_s = seconds_since(t_find);
  expect(at.size() == 1, "checkpoint at step " + std::to_string(start_step));
  auto oldest = timed_page(at[0].config.checkpoint_id, &oldest_s);
  expect(oldest[0].metadata["step"].get<int64_t>() == start_step - 1, "oldest page");
  const auto file_mb = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  remove_db(path);
  return {{"scenario", "history"},
          {"n", n},
          {"page", page},
          {"durability", durability == sp::Durability::sync ? "sync" : durability == sp::Durability::async ? "async" : "exit"},
          {"write_s", write_s},
          {"us_per_checkpoint", write_s * 1e6 / static_cast<double>(n)},
          {"page_newest_ms", newest_s * 1e3},
          {"page_second_ms", second_s * 1e3},
          {"page_at_start_ms", oldest_s * 1e3},
          {"filter_scan_s", find_s},
          {"db_mb", file_mb},
          {"peak_rss_after_write_mb", rss_after_write},
          {"peak_rss_mb", peak_rss_mb()}};
}

int usage(const std::string& why) {
  std::cerr << why << "\nusage: superstep-limits sends N [--saver none|memory|sqlite]\n"
            << "       superstep-limits value MB [--saver memory|sqlite]\n"
            << "       superstep-limits history N [--page P] [--durability sync|async|exit]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage("no scenario or size given");
  const std::string scenario = argv[1];
  long n = 0;
  try {
    n = std::stol(argv[2]);
  } catch (const std::exception&) {
    return usage(std::string("not a number: ") + argv[2]);
  }
  if (n < 1) return usage("the size must be positive");
  std::string saver = scenario == "sends" ? "none" : "sqlite";
  std::size_t page = 20;
  std::string durability = "async";
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--saver" && i + 1 < argc) saver = argv[++i];
    else if (a == "--page" && i + 1 < argc) page = std::stoul(argv[++i]);
    else if (a == "--durability" && i + 1 < argc) durability = argv[++i];
    else return usage("unknown argument '" + a + "'");
  }
  if (saver != "none" && saver != "memory" && saver != "sqlite") return usage("--saver must be none, memory or sqlite");
  try {
    json line;
    if (scenario == "sends") line = sends(n, saver);
    else if (scenario == "value" && saver != "none") line = value(n, saver);
    else if (scenario == "history")
      line = history(n, page, durability == "sync" ? sp::Durability::sync : durability == "exit" ? sp::Durability::exit
                                                                                                  : sp::Durability::async);
    else return usage("unknown scenario '" + scenario + "'");
    std::cout << line.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "superstep-limits " << scenario << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
