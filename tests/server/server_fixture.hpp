// The server tests' fixture: an in-process superstep::server::Server on a fresh SQLite file,
// serving four graphs (approval, slow, fail, blocking), and a cpp-httplib client over loopback.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <superstep/server/server.hpp>
#include <superstep/store/sqlite_store.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;
using namespace std::chrono_literals;

namespace {

std::atomic<int> g_counted{0};

sp::CompiledStateGraph approval(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("topic").field("approved");
  sp::StateGraph g(s);
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    json answer = sp::interrupt(rt, json{{"question", "approve?"}});
    return json{{"approved", answer == "yes"}};
  });
  g.add_edge(sp::START, "ask").add_edge("ask", sp::END);
  auto opts = o;
  opts.name = "approval";
  return g.compile(opts);
}

// count (counted in g_counted) -> sleep `seconds` -> finish -> END
sp::CompiledStateGraph slow(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("seconds").field("n", sp::reducers::add, 0).field("slept").field("done");
  sp::StateGraph g(s);
  g.add_node("count", [](const sp::State&) {
    ++g_counted;
    return json{{"n", 1}};
  });
  g.add_node("sleep", [](const sp::State& st, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    co_await sp::sleep_for(rt, std::chrono::milliseconds(static_cast<int>(st["seconds"].get<double>() * 1000)));
    co_return json{{"slept", true}};
  });
  g.add_node("finish", [](const sp::State&) { return json{{"done", true}}; });
  g.add_edge(sp::START, "count").add_edge("count", "sleep").add_edge("sleep", "finish").add_edge("finish", sp::END);
  auto opts = o;
  opts.name = "slow";
  return g.compile(opts);
}

sp::CompiledStateGraph fail(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("x");
  sp::StateGraph g(s);
  g.add_node("boom", [](const sp::State&) -> json { throw std::runtime_error("boom failed"); });
  g.add_edge(sp::START, "boom").add_edge("boom", sp::END);
  auto opts = o;
  opts.name = "fail";
  return g.compile(opts);
}

// One node that blocks its thread (no co_await) until g_release is set: stands in for a node
// doing blocking I/O. g_blocked counts the nodes inside.
std::atomic<bool> g_release{false};
std::atomic<int> g_blocked{0};

sp::CompiledStateGraph blocking(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("done");
  sp::StateGraph g(s);
  g.add_node("block", [](const sp::State&) {
    ++g_blocked;
    while (!g_release) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --g_blocked;
    return json{{"done", true}};
  });
  g.add_edge(sp::START, "block").add_edge("block", sp::END);
  auto opts = o;
  opts.name = "blocking";
  return g.compile(opts);
}

/// A connected socket to the server on loopback (-1 on failure), reads time out after 5 s.
[[maybe_unused]] int open_socket(unsigned short port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

/// Reads a response's head (through the blank line), or what came before the read timed out.
[[maybe_unused]] std::string read_head(int fd) {
  std::string out;
  char c;
  while (out.find("\r\n\r\n") == std::string::npos && ::read(fd, &c, 1) == 1) out += c;
  return out;
}

/// Sends `text` on a new connection and returns everything read until the server closes it.
[[maybe_unused]] std::string raw_request(unsigned short port, const std::string& text) {
  int fd = open_socket(port);
  if (fd < 0) return "connect failed";
  (void)!::write(fd, text.data(), text.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = (std::filesystem::temp_directory_path() /
           ("superstep-server-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db"))
              .string();
    remove_db();
  }
  void TearDown() override {
    server_.reset();
    remove_db();
  }
  void remove_db() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_ + suffix);
  }
  void start(sp::server::ServerOptions o = {}) {
    o.database = db_;
    o.port = 0;
    o.log = std::getenv("SERVER_TEST_LOG") != nullptr;
    server_ = std::make_unique<sp::server::Server>(o);
    server_->add_graph("approval", approval);
    server_->add_graph("slow", slow);
    server_->add_graph("fail", fail);
    server_->add_graph("blocking", blocking);
    server_->start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }
  void restart(sp::server::ServerOptions o = {}) {
    server_.reset();
    start(o);
  }
  json post(const std::string& path, const json& body, int expect = 200) {
    auto r = client_->Post(path, body.dump(), "application/json");
    EXPECT_TRUE(r) << path;
    if (!r) return nullptr;
    EXPECT_EQ(r->status, expect) << path << ": " << r->body;
    return r->body.empty() ? json(nullptr) : json::parse(r->body);
  }
  json get(const std::string& path, int expect = 200) {
    auto r = client_->Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return nullptr;
    EXPECT_EQ(r->status, expect) << path << ": " << r->body;
    return r->body.empty() ? json(nullptr) : json::parse(r->body);
  }
  std::string new_thread() { return post("/threads", json::object())["thread_id"]; }
  /// Polls until the run has left pending/running.
  json await_run(const std::string& tid, const std::string& rid) {
    for (int i = 0; i < 500; ++i) {
      json r = get("/threads/" + tid + "/runs/" + rid);
      if (r["status"] != "pending" && r["status"] != "running") return r;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "run " << rid << " did not end";
    return nullptr;
  }

  /// Polls until the thread's latest checkpoint is before `node` (its state's `next` holds it):
  /// a run is `running` from the moment a worker has it, before it saved anything.
  json wait_before(const std::string& tid, const std::string& node) {
    for (int i = 0; i < 1000; ++i) {
      json state = get("/threads/" + tid + "/state");
      if (state.is_object() && state["next"].is_array())
        for (const json& n : state["next"])
          if (n == node) return state;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "thread " << tid << " never reached node " << node;
    return nullptr;
  }

  std::string db_;
  std::unique_ptr<sp::server::Server> server_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace
