// superstep-torture: random SIGKILLs of processes running checkpointed graphs, then checks that
// nothing was lost and nothing ran twice (tests/torture/README.md).
//
//   superstep-torture [--kills N] [--saver sqlite|postgres|all] [--durability sync|async|all]
//   superstep-torture worker ...        (started by the driver)
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>
#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/server/server.hpp>

#include "torture/torture_check.hpp"
#include "torture/torture_graph.hpp"
#include "torture/watched_saver.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace sp = superstep;
using sp::json;
using Clock = std::chrono::steady_clock;

struct Store {
  std::string kind;  // sqlite | postgres
  std::string db;    // SQLite file
  std::string dsn;   // PostgreSQL
};

std::shared_ptr<sp::CheckpointSaver> open_saver(const Store& s) {
  if (s.kind == "postgres") return std::make_shared<sp::PostgresSaver>(s.dsn);
  return std::make_shared<sp::SqliteSaver>(s.db);
}

sp::Durability durability_of(const std::string& name) {
  return name == "async" ? sp::Durability::async : sp::Durability::sync;
}

std::string thread_name(const std::string& prefix, int t) { return prefix + std::to_string(t); }

// The counter WatchedSaver raises while a write is under way, in a file both processes map.
std::atomic<int>* map_flag(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::ftruncate(fd, 4096) != 0) throw std::runtime_error("torture: cannot create " + path);
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw std::runtime_error("torture: cannot map " + path);
  return static_cast<std::atomic<int>*>(p);  // the file starts zeroed: a counter at 0
}

// --- the worker ---

struct WorkerArgs {
  Store store;
  std::string durability = "sync", prefix, records, flag;
  int from = 0, to = 0;
};

int run_worker(const WorkerArgs& a) {
  auto pool = std::make_shared<sp::ThreadPool>(4);
  auto recorder = std::make_shared<torture::Recorder>(a.records);
  auto saver = std::make_shared<torture::WatchedSaver>(open_saver(a.store), map_flag(a.flag));
  auto app = torture::build(saver, recorder, pool);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<std::size_t>(a.to - a.from));
  for (int t = a.from; t < a.to; ++t)
    threads.emplace_back([&, t] {
      try {
        torture::drive(app, thread_name(a.prefix, t), t, durability_of(a.durability));
        recorder->finished(thread_name(a.prefix, t));  // the run returned: all of it is stored
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t - a.from)] = thread_name(a.prefix, t) + ": " + e.what();
      }
    });
  for (auto& th : threads) th.join();
  int rc = 0;
  for (const auto& e : errors)
    if (!e.empty()) {
      std::cerr << "superstep-torture worker: " << e << "\n";
      rc = 3;
    }
  return rc;
}

// --- the driver ---

struct Figures {
  std::string name;
  int kills = 0, kills_in_write = 0, batches = 0, threads = 0, workers = 0;
  long executions = 0, failed_attempts = 0, lost = 0, duplicates = 0, holes = 0, after_return = 0;
  int max_lost_steps = 0, sync_violations = 0, chain_problems = 0, state_mismatches = 0, other_problems = 0;
  int torn_records = 0;  ///< records a kill cut short (torture::read_records)
  double seconds = 0, calibration_ms = 0;
  /// Copies what analyse() found.
  void take(const torture::Findings& found) {
    executions = found.executions;
    failed_attempts = found.failed_attempts;
    lost = found.lost;
    duplicates = found.duplicates;
    holes = found.holes;
    max_lost_steps = found.max_lost_steps;
    sync_violations = found.sync_violations;
    after_return = found.after_return;
    other_problems = static_cast<int>(found.problems.size()) -
                     static_cast<int>(found.duplicates + found.holes + found.sync_violations + found.after_return);
  }
  bool ok() const {
    return duplicates == 0 && holes == 0 && sync_violations == 0 && after_return == 0 && chain_problems == 0 &&
           state_mismatches == 0 && other_problems == 0;
  }
};

struct Worker {
  pid_t pid = 0;
  int batch = 0;
  bool killed = false;
  torture::Snapshot before, after;  // the store when it started, and after it was killed
};

class Driver {
 public:
  Driver(std::string self, fs::path dir, Store store, std::string durability, int batch_size, uint64_t seed)
      : self_(std::move(self)), dir_(std::move(dir)), store_(std::move(store)), durability_(std::move(durability)),
        batch_size_(batch_size), rng_(seed) {
    fs::create_directories(dir_);
    records_ = (dir_ / "records").string();
    flag_path_ = (dir_ / "writing").string();
    log_ = (dir_ / "workers.log").string();
    flag_ = map_flag(flag_path_);
    prefix_ = "torture-" + std::to_string(::getpid()) + "-" + store_.kind + "-" + durability_ + "-";
  }

  Figures run(int kills_wanted) {
    Figures f;
    f.name = store_.kind + "/" + durability_;
    auto started = Clock::now();
    saver_ = open_saver(store_);
    // Calibration: batch 0 uninterrupted; its time is the range kills are drawn from.
    auto t0 = Clock::now();
    finish_batch(0);
    double range_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    f.calibration_ms = range_us / 1000;
    int batch = 1;
    std::uniform_real_distribution<double> when(0, range_us);
    while (f.kills < kills_wanted) {
      Worker w = start(batch);
      auto delay = std::chrono::microseconds(static_cast<int64_t>(when(rng_)));
      int status = 0;
      if (wait_for(w.pid, delay, &status)) {  // it finished the batch before the kill
        expect_success(w, status);
        workers_.push_back(std::move(w));
        ++batch;
        continue;
      }
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &status, 0);
      w.killed = true;
      ++f.kills;
      // The process died; its raised counter says whether it died inside a saver's write.
      if (flag_->exchange(0) > 0) ++f.kills_in_write;
      w.after = torture::take_snapshot(*saver_, threads_of(w.batch));
      next_before_ = w.after;  // nothing ran since: the next worker starts from it
      workers_.push_back(std::move(w));
    }
    finish_batch(batch);
    f.batches = batch + 1;
    f.threads = f.batches * batch_size_;
    f.workers = static_cast<int>(workers_.size());
    check(f);
    f.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return f;
  }

  void cleanup(bool keep) {
    if (store_.kind == "postgres" && !keep && saver_)
      for (const auto& w : workers_)
        for (const auto& t : threads_of(w.batch)) saver_->delete_thread(t);
    saver_.reset();
    if (!keep) fs::remove_all(dir_);
  }

 private:
  std::vector<std::string> threads_of(int batch) const {
    std::vector<std::string> out;
    for (int t = batch * batch_size_; t < (batch + 1) * batch_size_; ++t) out.push_back(thread_name(prefix_, t));
    return out;
  }

  Worker start(int batch) {
    Worker w;
    w.batch = batch;
    w.before = next_before_ ? std::move(*next_before_) : torture::take_snapshot(*saver_, threads_of(batch));
    next_before_.reset();
    std::vector<std::string> args = {self_,
                                     "worker",
                                     "--saver",
                                     store_.kind,
                                     "--db",
                                     store_.db,
                                     "--dsn",
                                     store_.dsn,
                                     "--durability",
                                     durability_,
                                     "--prefix",
                                     prefix_,
                                     "--from",
                                     std::to_string(batch * batch_size_),
                                     "--to",
                                     std::to_string((batch + 1) * batch_size_),
                                     "--records",
                                     records_,
                                     "--flag",
                                     flag_path_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    int rc = posix_spawn(&w.pid, self_.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("torture: cannot start a worker (" + self_ + ")");
    return w;
  }

  // Waits up to `delay` for `pid` to exit: true (and its status) when it did.
  static bool wait_for(pid_t pid, std::chrono::microseconds delay, int* status) {
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      timespec ts{static_cast<time_t>(delay.count() / 1000000), static_cast<long>(delay.count() % 1000000) * 1000};
      int n = ::ppoll(&p, 1, &ts, nullptr);
      ::close(pidfd);
      if (n <= 0) return false;
      return ::waitpid(pid, status, 0) == pid;
    }
    auto deadline = Clock::now() + delay;  // no pidfd (old kernel): poll
    while (Clock::now() < deadline) {
      if (::waitpid(pid, status, WNOHANG) == pid) return true;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return false;
  }

  void expect_success(const Worker& w, int status) const {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    throw std::runtime_error("torture: a worker (batch " + std::to_string(w.batch) + ") failed with status " +
                             std::to_string(status) + "; see " + log_);
  }

  void finish_batch(int batch) {
    Worker w = start(batch);
    int status = 0;
    if (!wait_for(w.pid, std::chrono::seconds(300), &status)) {
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &status, 0);
      throw std::runtime_error("torture: a worker did not finish batch " + std::to_string(batch) + " in 300 s");
    }
    expect_success(w, status);
    workers_.push_back(std::move(w));
  }

  void check(Figures& f) {
    std::vector<torture::WorkerRun> runs;
    for (const auto& w : workers_) runs.push_back({w.pid, w.killed, w.before, w.after});
    auto found = torture::analyse(torture::read_records(records_, &f.torn_records), runs, prefix_, durability_ == "sync");
    f.take(found);
    for (const auto& p : found.problems) report(p);
    // Every thread: finished, a valid chain, the reference's final state.
    auto pool = std::make_shared<sp::ThreadPool>(2);
    auto ref_recorder = std::make_shared<torture::Recorder>((dir_ / "reference-records").string());
    auto reference = torture::build(std::make_shared<sp::InMemorySaver>(), ref_recorder, pool);
    auto stored = torture::build(saver_, ref_recorder, pool);
    for (int t = 0; t < f.threads; ++t) {
      std::string thread = thread_name(prefix_, t);
      for (const auto& p : torture::check_chain(*saver_, thread)) {
        ++f.chain_problems;
        report("chain: " + p);
      }
      sp::RunConfig cfg;
      cfg.thread_id = thread;
      sp::StateSnapshot snap = stored.get_state(cfg);
      json want = torture::drive(reference, "reference-" + std::to_string(t), t, sp::Durability::sync);
      if (!snap.tasks.empty() || snap.values != want) {
        ++f.state_mismatches;
        report("state of " + thread + ": " + snap.values.dump() + " (" + std::to_string(snap.tasks.size()) +
               " tasks left), want " + want.dump());
      }
    }
  }

  void report(const std::string& problem) {
    if (++reported_ <= 20) std::cerr << "superstep-torture: " << problem << "\n";
  }

  std::string self_;
  fs::path dir_;
  Store store_;
  std::string durability_;
  int batch_size_;
  std::mt19937_64 rng_;
  std::string records_, flag_path_, log_, prefix_;
  std::atomic<int>* flag_ = nullptr;
  std::shared_ptr<sp::CheckpointSaver> saver_;
  std::vector<Worker> workers_;
  std::optional<torture::Snapshot> next_before_;
  int reported_ = 0;
};

std::string postgres_dsn(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* d = std::getenv("SUPERSTEP_PG_DSN"); d && *d) return d;
  if (const char* f = std::getenv("SUPERSTEP_PG_DSN_FILE"); f && *f) {
    std::ifstream in(f);
    std::string dsn;
    std::getline(in, dsn);
    return dsn;
  }
  return "";
}

// --- the server under kills (superstep-torture --server) ---

struct ServeArgs {
  std::string database, records, flag;
  unsigned short port = 0;
};

// A crash of the served process prints its stack to stderr (the driver's server.log) before
// the signal ends it, so a crash the kills provoke can be found afterwards.
void print_stack_and_die(int sig) {
  void* frames[64];
  int n = ::backtrace(frames, 64);
  const char msg[] = "superstep-torture serve: fatal signal; stack:\n";
  (void)!::write(2, msg, sizeof msg - 1);
  ::backtrace_symbols_fd(frames, n, 2);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// `superstep-torture serve`: the torture graph behind superstep::server, its checkpoint writes
// watched as the worker's are. Prints its URL, serves until SIGTERM (or a SIGKILL).
int run_serve(const ServeArgs& a) {
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE}) ::signal(sig, print_stack_and_die);
  auto recorder = std::make_shared<torture::Recorder>(a.records);
  std::atomic<int>* flag = map_flag(a.flag);
  sp::server::Server server({.database = a.database, .port = a.port, .log = false});
  server.add_graph("torture", [&](const sp::CompileOptions& o) {
    sp::CompileOptions watched = o;
    if (o.checkpointer) watched.checkpointer = std::make_shared<torture::WatchedSaver>(o.checkpointer, flag);
    return torture::build(std::move(watched), recorder);
  });
  server.start();
  std::cout << server.url() << std::endl;
  server.run();
  server.stop();
  return 0;
}

class ServerDriver {
 public:
  ServerDriver(std::string self, fs::path dir, Store store, std::string client, double window_ms, uint64_t seed)
      : self_(std::move(self)), dir_(std::move(dir)), store_(std::move(store)), client_(std::move(client)),
        window_ms_(window_ms), rng_(seed) {
    fs::create_directories(dir_);
    records_ = (dir_ / "records").string();
    flag_path_ = (dir_ / "writing").string();
    log_ = (dir_ / "server.log").string();
    threads_file_ = (dir_ / "threads").string();
    stop_file_ = (dir_ / "stop").string();
    flag_ = map_flag(flag_path_);
    if (store_.kind == "sqlite") store_.db = (dir_ / "server.db").string();
  }

  ServerDriver(const ServerDriver&) = delete;
  ServerDriver& operator=(const ServerDriver&) = delete;
  // A run that failed half-way leaves no process behind.
  ~ServerDriver() {
    for (pid_t pid : {server_pid_, client_pid_})
      if (pid > 0 && ::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
  }

  Figures run(int kills_wanted) {
    Figures f;
    f.name = "server (" + store_.kind + ", SDK)";
    auto started = Clock::now();
    saver_ = open_saver(store_);
    Worker server = start_server();
    pid_t client = client_pid_ = start_client();
    std::uniform_real_distribution<double> when(0, window_ms_ * 1000);
    while (f.kills < kills_wanted) {
      int status = 0;
      if (::waitpid(client, &status, WNOHANG) == client)
        throw std::runtime_error("torture: the SDK client ended early (status " + std::to_string(status) + "); see " +
                                 log_);
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(when(rng_))));
      ::kill(server.pid, SIGKILL);
      ::waitpid(server.pid, &status, 0);
      server_pid_ = 0;
      server.killed = true;
      ++f.kills;
      if (flag_->exchange(0) > 0) ++f.kills_in_write;
      // What it may have run: every thread not finished when it started, as the next start
      // finds it: opened again, so that the SQLite redo log the server's grouped commits left
      // is replayed (docs/persistence.md, "Group commit"), as the next server's open does.
      saver_.reset();
      saver_ = open_saver(store_);
      server.after = torture::take_snapshot(*saver_, unfinished_at_start());
      torture::Snapshot now = server.after;  // nothing ran since: the next server starts from it
      servers_.push_back(std::move(server));
      server = start_server(std::move(now));
    }
    std::ofstream(stop_file_) << "stop\n";
    int status = 0;
    bool finished = wait_exit(client, std::chrono::seconds(300), &status);
    client_pid_ = 0;
    if (!finished || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("torture: the SDK client did not finish its threads (status " +
                               std::to_string(status) + "); see " + log_);
    ::kill(server.pid, SIGTERM);
    ::waitpid(server.pid, &status, 0);
    server_pid_ = 0;
    servers_.push_back(std::move(server));
    f.workers = static_cast<int>(servers_.size());
    check(f);
    f.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    f.calibration_ms = window_ms_;
    return f;
  }

  void cleanup(bool keep) {
    if (store_.kind == "postgres" && !keep && saver_)
      for (const auto& [thread, seed] : threads()) saver_->delete_thread(thread);
    saver_.reset();
    if (!keep) fs::remove_all(dir_);
  }

 private:
  // The threads the client created (it names each in the threads file before creating it)
  // and has not yet seen finished: a finished thread runs nothing more (the `done` lines the
  // client writes into the records check that), so reading it again would only make each
  // restart slower as the store grows.
  std::set<std::string> finished() const {
    std::set<std::string> done;
    std::ifstream in(threads_file_ + ".done");
    for (std::string id; std::getline(in, id);) done.insert(id);
    return done;
  }
  // The threads created so far that were not finished when the running server started.
  std::vector<std::string> unfinished_at_start() const {
    std::vector<std::string> mine;
    for (const auto& [thread, seed] : threads())
      if (!finished_at_start_.count(thread)) mine.push_back(thread);
    return mine;
  }

  static bool wait_exit(pid_t pid, std::chrono::seconds limit, int* status) {
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      if (::waitpid(pid, status, WNOHANG) == pid) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, status, 0);
    return false;
  }

  Worker start_server(std::optional<torture::Snapshot> before = std::nullopt) {
    Worker w;
    finished_at_start_ = finished();
    w.before = before ? std::move(*before) : torture::take_snapshot(*saver_, unfinished_at_start());
    std::string db = store_.kind == "postgres" ? store_.dsn : store_.db;
    std::vector<std::string> args = {self_,     "serve",    "--db",   db,        "--port", std::to_string(port_),
                                     "--records", records_, "--flag", flag_path_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("torture: pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int rc = posix_spawn(&w.pid, self_.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) throw std::runtime_error("torture: cannot start the server (" + self_ + ")");
    std::string line;
    char ch;
    while (::read(out[0], &ch, 1) == 1 && ch != '\n') line.push_back(ch);
    ::close(out[0]);
    auto colon = line.rfind(':');
    if (line.rfind("http://", 0) != 0 || colon == std::string::npos) {
      int status = 0;
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &status, 0);
      throw std::runtime_error("torture: the server did not start (printed '" + line + "', status " +
                               std::to_string(status) + "); see " + log_);
    }
    port_ = static_cast<unsigned short>(std::stoi(line.substr(colon + 1)));
    url_ = line;
    server_pid_ = w.pid;
    return w;
  }

  pid_t start_client() {
    std::vector<std::string> args = {"node", client_, url_, threads_file_, stop_file_, records_, "4"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, (dir_ / "client.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, "node", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("torture: cannot start node (the SDK client " + client_ + ")");
    return pid;
  }

  std::vector<std::pair<std::string, int>> threads() const {
    std::vector<std::pair<std::string, int>> out;
    std::ifstream in(threads_file_);
    std::string id, seed;
    while (std::getline(in, id, '\t') && std::getline(in, seed)) out.emplace_back(id, std::stoi(seed));
    return out;
  }

  void check(Figures& f) {
    std::vector<torture::WorkerRun> runs;
    for (const auto& w : servers_) runs.push_back({w.pid, w.killed, w.before, w.after});
    auto found = torture::analyse(torture::read_records(records_, &f.torn_records), runs, "", /*sync=*/true);
    f.take(found);
    for (const auto& p : found.problems) report(p);
    auto pool = std::make_shared<sp::ThreadPool>(2);
    auto ref_recorder = std::make_shared<torture::Recorder>((dir_ / "reference-records").string());
    auto reference = torture::build(std::make_shared<sp::InMemorySaver>(), ref_recorder, pool);
    auto stored = torture::build(saver_, ref_recorder, pool);
    for (const auto& [thread, seed] : threads()) {
      ++f.threads;
      for (const auto& p : torture::check_chain(*saver_, thread)) {
        ++f.chain_problems;
        report("chain: " + p);
      }
      sp::RunConfig cfg;
      cfg.thread_id = thread;
      sp::StateSnapshot snap = stored.get_state(cfg);
      json want = torture::drive(reference, "reference-" + std::to_string(seed), seed, sp::Durability::sync);
      if (!snap.tasks.empty() || snap.values != want) {
        ++f.state_mismatches;
        report("state of " + thread + ": " + snap.values.dump() + " (" + std::to_string(snap.tasks.size()) +
               " tasks left), want " + want.dump());
      }
    }
  }

  void report(const std::string& problem) {
    if (++reported_ <= 20) std::cerr << "superstep-torture: " << problem << "\n";
  }

  std::string self_;
  fs::path dir_;
  Store store_;
  std::string client_;
  double window_ms_;
  std::mt19937_64 rng_;
  std::string records_, flag_path_, log_, threads_file_, stop_file_, url_;
  unsigned short port_ = 0;
  pid_t server_pid_ = 0, client_pid_ = 0;  // alive, to be stopped if the run fails
  std::set<std::string> finished_at_start_;  // threads finished when the running server started
  std::atomic<int>* flag_ = nullptr;
  std::shared_ptr<sp::CheckpointSaver> saver_;
  std::vector<Worker> servers_;
  int reported_ = 0;
};

std::string self_path(const char* argv0) {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : p.string();
}

void print(const Figures& f) {
  std::cout << f.name << ": " << f.kills << " kills (" << f.kills_in_write << " inside a saver write), " << f.workers
            << " worker processes, " << f.threads << " threads checked, " << f.executions << " node executions ("
            << f.failed_attempts << " planned failures retried), " << f.lost
            << " executions lost to a kill and run again (at most " << f.max_lost_steps
            << " steps of a thread per kill), duplicates " << f.duplicates << ", holes " << f.holes
            << ", lost after return " << f.after_return << ", chain problems " << f.chain_problems << ", final states differing " << f.state_mismatches
            << (f.torn_records ? ", records cut short by a kill " + std::to_string(f.torn_records) : std::string()) << "; "
            << std::fixed << std::setprecision(1) << f.seconds << " s (kills drawn over " << f.calibration_ms
            << " ms)" << (f.ok() ? "" : "  FAILED") << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"superstep-torture: random SIGKILLs of processes running checkpointed graphs, then checks that "
               "nothing was lost and nothing ran twice"};
  int kills = 30, batch = 4;
  uint64_t seed = 0;
  std::string saver = "sqlite", durability = "all", dir, dsn;
  bool keep = false, require_write_kills = false;
  cli.add_option("--kills", kills, "SIGKILLs per store and durability")->check(CLI::PositiveNumber);
  cli.add_option("--saver", saver, "sqlite, postgres, or all")->check(CLI::IsMember({"sqlite", "postgres", "all"}));
  cli.add_option("--durability", durability, "sync, async, or all")->check(CLI::IsMember({"sync", "async", "all"}));
  cli.add_option("--batch", batch, "threads a worker runs at once")->check(CLI::Range(1, 64));
  cli.add_option("--seed", seed, "random seed of the kill instants (default: from the clock)");
  cli.add_option("--dir", dir, "working folder (default: a new one under /tmp)");
  cli.add_option("--dsn", dsn, "PostgreSQL (default: $SUPERSTEP_PG_DSN or the file $SUPERSTEP_PG_DSN_FILE names)");
  cli.add_flag("--keep", keep, "keep the working folder and the PostgreSQL threads");
  cli.add_flag("--require-write-kills", require_write_kills,
               "fail unless at least 5 kills per store landed inside a saver write");

  WorkerArgs w;
  auto* worker = cli.add_subcommand("worker", "runs a batch of threads to their end (started by the driver)");
  worker->add_option("--saver", w.store.kind)->required();
  worker->add_option("--db", w.store.db);
  worker->add_option("--dsn", w.store.dsn);
  worker->add_option("--durability", w.durability)->required();
  worker->add_option("--prefix", w.prefix)->required();
  worker->add_option("--from", w.from)->required();
  worker->add_option("--to", w.to)->required();
  worker->add_option("--records", w.records)->required();
  worker->add_option("--flag", w.flag)->required();
  ServeArgs serve_args;
  auto* serve = cli.add_subcommand("serve", "serves the torture graph (started by the driver with --server)");
  serve->add_option("--db", serve_args.database)->required();
  serve->add_option("--port", serve_args.port);
  serve->add_option("--records", serve_args.records)->required();
  serve->add_option("--flag", serve_args.flag)->required();

  bool server_mode = false;
  double window_ms = 400;
  std::string client = SUPERSTEP_TORTURE_CLIENT;
  cli.add_flag("--server", server_mode,
               "kill `superstep serve`-like servers of the torture graph under runs the official JS SDK drives");
  cli.add_option("--window-ms", window_ms, "--server: kills land uniformly within this long after a start");
  cli.add_option("--client", client, "--server: the SDK client script (needs its node_modules)");
  CLI11_PARSE(cli, argc, argv);

  try {
    if (*worker) return run_worker(w);
    if (*serve) return run_serve(serve_args);

    if (seed == 0) seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
    fs::path root = dir.empty() ? fs::temp_directory_path() / ("superstep-torture-" + std::to_string(::getpid())) : fs::path(dir);
    std::vector<std::string> savers = saver == "all" ? std::vector<std::string>{"sqlite", "postgres"}
                                                     : std::vector<std::string>{saver};
    std::vector<std::string> durabilities = durability == "all" ? std::vector<std::string>{"sync", "async"}
                                                                : std::vector<std::string>{durability};
    std::cout << "superstep-torture: " << kills << " kills per store and durability, seed " << seed << std::endl;
    bool ok = true;
    std::map<std::string, int> in_write;
    for (const auto& kind : savers) {
      Store store{kind, "", ""};
      if (kind == "postgres") {
        store.dsn = postgres_dsn(dsn);
        if (store.dsn.empty()) {
          std::cerr << "superstep-torture: no PostgreSQL: pass --dsn, or set SUPERSTEP_PG_DSN\n";
          return 2;
        }
      }
      if (server_mode) {
        ServerDriver driver(self_path(argv[0]), root / ("server-" + kind), store, client, window_ms, seed++);
        Figures f = driver.run(kills);
        print(f);
        ok = ok && f.ok();
        driver.cleanup(keep || !f.ok());
        continue;
      }
      for (const auto& d : durabilities) {
        fs::path sub = root / (kind + "-" + d);
        store.db = (sub / "torture.db").string();
        Driver driver(self_path(argv[0]), sub, store, d, batch, seed++);
        Figures f = driver.run(kills);
        print(f);
        ok = ok && f.ok();
        in_write[kind] += f.kills_in_write;
        driver.cleanup(keep || !f.ok());
      }
    }
    if (require_write_kills)
      for (const auto& [kind, n] : in_write)
        if (n < 5) {
          std::cerr << "superstep-torture: only " << n << " kills landed inside a " << kind << " saver write (want 5)\n";
          ok = false;
        }
    if (!keep && ok) fs::remove_all(root);
    if (!ok) std::cerr << "superstep-torture: FAILED (working folder kept: " << root.string() << ")\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "superstep-torture: " << e.what() << "\n";
    return 1;
  }
}
