// A process running a graph on SQLite is killed with SIGKILL in the middle of a superstep with
// parallel tasks; a new process resumes the thread. The final state equals an uninterrupted
// run and no task that had finished runs again (executions are counted on disk).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include <superstep/checkpoint/sqlite_saver.hpp>

#include "crash_graph.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using superstep::json;

pid_t spawn_child(const std::string& dir, const std::string& mode, const std::string& out_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string exe = SUPERSTEP_CRASH_CHILD;
  char* argv[] = {exe.data(), const_cast<char*>(dir.c_str()), const_cast<char*>(mode.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << exe;
  return pid;
}

std::map<std::string, int> markers(const std::string& dir) {
  std::map<std::string, int> out;
  std::ifstream in(dir + "/markers");
  for (std::string line; std::getline(in, line);) ++out[line];
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(Crash, SigkillMidSuperstepThenResumeInANewProcess) {
  std::string dir = (fs::temp_directory_path() / ("superstep_crash_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);

  pid_t child = spawn_child(dir, "start", dir + "/out1");
  // Wait until the three quick tasks' writes are stored and slow is running, then kill.
  auto saver = std::make_shared<superstep::SqliteSaver>(dir + "/superstep.db");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool ready = false;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    try {
      auto tuple = saver->get_tuple({"crash", "", std::nullopt});
      std::set<std::string> tasks;
      if (tuple)
        for (const auto& w : tuple->pending_writes)
          if (w.channel == "done") tasks.insert(w.task_id);
      ready = tasks.size() == 3 && markers(dir)["slow"] == 1;
    } catch (const superstep::CheckpointError&) {
      // the child is still creating the schema
    }
  }
  ASSERT_TRUE(ready) << "the child did not reach the slow task";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(slurp(dir + "/out1").empty());

  std::ofstream(dir + "/release") << "go";
  child = spawn_child(dir, "resume", dir + "/out2");
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  json resumed = json::parse(slurp(dir + "/out2"));

  auto m = markers(dir);
  EXPECT_EQ(m["w0"], 1);
  EXPECT_EQ(m["w1"], 1);
  EXPECT_EQ(m["w2"], 1);
  EXPECT_EQ(m["slow"], 2);  // killed while running, so it runs again
  EXPECT_EQ(m["finish"], 1);

  // The same graph uninterrupted, in this process.
  std::string dir2 = dir + "/clean";
  fs::create_directories(dir2);
  std::ofstream(dir2 + "/release") << "go";
  auto app = crash_test::build(dir2, std::make_shared<superstep::InMemorySaver>());
  superstep::RunConfig cfg;
  cfg.thread_id = "crash";
  json clean = app.invoke(json::object(), cfg);
  EXPECT_EQ(resumed, clean);
  EXPECT_EQ(resumed["done"], json({"slow", "w0", "w1", "w2", "finish"}));
  fs::remove_all(dir);
}
