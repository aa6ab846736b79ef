// A server process killed with SIGKILL while one run's node is blocked (on a file this test
// controls) and another run waits pending: a new process on the same database resumes both.
// The executing run continues from its last checkpoint (its finished node does not run again),
// the pending one runs, and the threads end idle with the values of an uninterrupted run.
// Real processes, on SQLite and on PostgreSQL.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <superstep/json.hpp>

#include "saver_cases.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using superstep::json;
using namespace std::chrono_literals;

struct Child {
  pid_t pid = 0;
  unsigned short port = 0;
};

Child start_child(const std::string& db, const std::string& workers) {
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string exe = SUPERSTEP_SERVER_CHILD;
  char* argv[] = {exe.data(), const_cast<char*>(db.c_str()), const_cast<char*>(workers.c_str()), nullptr};
  Child c;
  EXPECT_EQ(posix_spawn(&c.pid, exe.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string line;
  char ch;
  while (::read(out[0], &ch, 1) == 1 && ch != '\n') line.push_back(ch);
  ::close(out[0]);
  auto colon = line.rfind(':');
  EXPECT_NE(colon, std::string::npos) << "child printed: " << line;
  if (colon != std::string::npos) c.port = static_cast<unsigned short>(std::stoi(line.substr(colon + 1)));
  return c;
}

void kill_child(const Child& c, int sig) {
  ::kill(c.pid, sig);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
}

json call(httplib::Client& cl, const std::string& method, const std::string& path, const json& body = nullptr) {
  auto r = method == "GET" ? cl.Get(path) : cl.Post(path, body.dump(), "application/json");
  EXPECT_TRUE(r) << path;
  if (!r) return nullptr;
  EXPECT_EQ(r->status, 200) << path << ": " << r->body;
  return json::parse(r->body);
}

std::vector<std::string> lines(const std::string& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class ServerRestart : public ::testing::TestWithParam<std::string> {};

TEST_P(ServerRestart, SigkillLosesNothingAndRerunsNoFinishedNode) {
  std::string db;
  std::unique_ptr<testing_util::PgSchema> schema;  // a fresh schema, dropped at the end
  if (GetParam() == "postgres") {
    if (testing_util::pg_dsn().empty()) GTEST_SKIP() << "no PostgreSQL test server";
    schema = std::make_unique<testing_util::PgSchema>("server");
    db = schema->dsn;
  }
  fs::path dir = fs::temp_directory_path() / ("superstep-restart-" + std::to_string(::getpid()) + "-" + GetParam());
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (db.empty()) db = (dir / "server.db").string();
  const std::string log = (dir / "ran.log").string();

  Child c = start_child(db, "1");  // one run executes at a time: the second waits pending
  httplib::Client cl("127.0.0.1", c.port);
  std::string a = call(cl, "POST", "/threads", json::object())["thread_id"];
  std::string b = call(cl, "POST", "/threads", json::object())["thread_id"];
  json in = {{"dir", dir.string()}};
  std::string ra = call(cl, "POST", "/threads/" + a + "/runs", {{"assistant_id", "gate"}, {"input", in}})["run_id"];
  std::string rb = call(cl, "POST", "/threads/" + b + "/runs", {{"assistant_id", "gate"}, {"input", in}})["run_id"];
  // `first` of run A has finished (and, durability sync, its step is checkpointed before `wait`
  // starts); `wait` blocks on the gate file; run B is pending behind it (one worker).
  for (int i = 0; i < 500 && lines(log).empty(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(lines(log), std::vector<std::string>{"first"});
  auto before_wait = [&] {  // `first` logs before it returns: its step is saved a moment later
    json next = call(cl, "GET", "/threads/" + a + "/state")["next"];
    return next.is_array() && std::find(next.begin(), next.end(), json("wait")) != next.end();
  };
  for (int i = 0; i < 1000 && !before_wait(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(before_wait());
  EXPECT_EQ(call(cl, "GET", "/threads/" + b + "/runs/" + rb)["status"], "pending");
  EXPECT_EQ(call(cl, "GET", "/threads/" + a + "/runs/" + ra)["status"], "running");
  kill_child(c, SIGKILL);

  std::ofstream(dir / "open") << "";
  Child c2 = start_child(db, "1");
  httplib::Client cl2("127.0.0.1", c2.port);
  json run_a, run_b;
  for (int i = 0; i < 1000; ++i) {
    run_a = call(cl2, "GET", "/threads/" + a + "/runs/" + ra);
    run_b = call(cl2, "GET", "/threads/" + b + "/runs/" + rb);
    if (run_a["status"] == "success" && run_b["status"] == "success") break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(run_a["status"], "success");
  EXPECT_EQ(run_b["status"], "success");
  EXPECT_EQ(run_a["attempt"], 2);  // resumed
  EXPECT_EQ(run_b["attempt"], 1);  // never started before
  json ta = call(cl2, "GET", "/threads/" + a), tb = call(cl2, "GET", "/threads/" + b);
  EXPECT_EQ(ta["status"], "idle");
  EXPECT_EQ(tb["status"], "idle");
  const json uninterrupted = json::array({"first", "wait", "last"});
  EXPECT_EQ(ta["values"]["trace"], uninterrupted);
  EXPECT_EQ(tb["values"]["trace"], uninterrupted);
  // A's `first` ran once (before the kill) and was not run again; B ran whole after the restart.
  std::vector<std::string> ran = lines(log);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "first"), 2);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "wait"), 2);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "last"), 2);
  // A's history is one chain from its input: nothing was stored twice.
  json history = call(cl2, "POST", "/threads/" + a + "/history", {{"limit", 100}});
  ASSERT_EQ(history.size(), 5u);  // input, after __start__, first, wait, last
  for (std::size_t i = 0; i + 1 < history.size(); ++i) EXPECT_EQ(history[i]["parent_checkpoint"], history[i + 1]["checkpoint"]);
  kill_child(c2, SIGTERM);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Databases, ServerRestart, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
