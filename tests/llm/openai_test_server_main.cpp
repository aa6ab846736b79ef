// superstep-openai-test-server: the local OpenAI-compatible test server as a program.
//
//   superstep-openai-test-server [--script replies.json] [--delay-ms N] [--threads N] [--react]
//                                [-- command args...]
//
// Starts the server on a free loopback port, runs `command` with OPENAI_BASE_URL,
// OPENAI_API_KEY and SUPERSTEP_MODEL pointing at it, and exits with the command's status.
// Without a command it prints the base URL and serves until killed. Replies come from the
// script (a JSON array of replies, in order), then echo the last message; with --react, a
// request offering tools whose last message is not a tool result calls the first tool with {},
// and a tool result is answered "done: <result>" (a two-turn ReAct agent).
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>

#include "llm/epoll_test_server.hpp"
#include "llm/openai_test_server.hpp"

namespace {
/// Prints the base URL (the caller's cue that the server is up), then serves until SIGTERM/SIGINT.
int serve_until_signalled(const std::string& base_url) {
  std::cout << base_url << std::endl;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int sig = 0;
  sigwait(&set, &sig);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  using superstep::testing::OpenAITestServer;
  std::string script;
  int delay_ms = 0;
  int threads = 64;
  bool react = false;
  bool keep_alive = true;
  bool event_loop = false;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--script" && i + 1 < argc) script = argv[++i];
    else if (a == "--delay-ms" && i + 1 < argc) delay_ms = std::stoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = std::stoi(argv[++i]);
    else if (a == "--react") react = true;
    else if (a == "--no-keep-alive") keep_alive = false;
    else if (a == "--event-loop") event_loop = true;
    else if (a == "--") {
      ++i;
      break;
    } else {
      std::cerr << "usage: superstep-openai-test-server [--script replies.json] [--delay-ms N] [--threads N] [--react] [--no-keep-alive] [--event-loop] [-- command args...]\n";
      return 2;
    }
  }
  OpenAITestServer::Handler handler = [delay_ms, react](const nlohmann::json& req) {
    superstep::testing::ScriptedReply r;
    const auto& msgs = req["messages"];
    const nlohmann::json last = msgs.empty() ? nlohmann::json::object() : msgs.back();
    std::string text = last.value("content", nlohmann::json("")).is_string() ? last["content"].get<std::string>() : "";
    if (react && last.value("role", "") == "tool") {
      r.content = "done: " + text;
    } else if (react && req.contains("tools") && !req["tools"].empty()) {
      r.tool_calls = {{"call_" + std::to_string(msgs.size()), req["tools"][0]["function"]["name"].get<std::string>(),
                       nlohmann::json::object()}};
    } else {
      r.content = "echo: " + text;
    }
    r.delay = std::chrono::milliseconds(delay_ms);
    return r;
  };
  if (event_loop) {
    // One epoll thread (load tests): scripts are not supported here, only the handler.
    superstep::testing::EpollTestServer fast(handler);
    return serve_until_signalled(fast.base_url());
  }
  OpenAITestServer server(handler, threads, keep_alive);
  if (!script.empty()) {
    std::ifstream in(script);
    if (!in) {
      std::cerr << "superstep-openai-test-server: cannot read " << script << "\n";
      return 2;
    }
    nlohmann::json replies = nlohmann::json::parse(in, nullptr, false);
    if (!replies.is_array()) {
      std::cerr << "superstep-openai-test-server: " << script << " is not a JSON array of replies\n";
      return 2;
    }
    for (const auto& r : replies) server.push(superstep::testing::reply_from_json(r));
  }
  if (i >= argc) {
    return serve_until_signalled(server.base_url());
  }
  setenv("OPENAI_BASE_URL", server.base_url().c_str(), 1);
  setenv("OPENAI_API_KEY", "sk-test", 1);
  setenv("SUPERSTEP_MODEL", "test-model", 1);
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[i], argv + i);
    std::perror("superstep-openai-test-server: exec");
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
