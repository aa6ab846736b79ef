// The server's request handling over real loopback HTTP: the input's first line is
// "METHOD /path?query", the rest the body. Whatever it is, the answer is a status line and no
// 5xx (a request the server cannot take is a 4xx naming the problem); the server keeps serving.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <superstep/server/server.hpp>
#include <superstep/superstep.hpp>

#include "fuzz_util.hpp"

namespace {
namespace sp = superstep;
using sp::json;

sp::CompiledStateGraph approval(const sp::CompileOptions& o) {
  sp::StateSchema s;
  s.field("topic").field("approved").field("log", sp::reducers::append);
  sp::StateGraph g(s);
  g.add_node("draft", [](const sp::State&) { return json{{"log", {"draft"}}}; });
  g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
    return json{{"approved", sp::interrupt(rt, json{{"question", "approve?"}})}};
  });
  g.add_edge(sp::START, "draft").add_edge("draft", "ask").add_edge("ask", sp::END);
  auto opts = o;
  opts.name = "approval";
  return g.compile(opts);
}

unsigned short server_port() {
  static std::unique_ptr<sp::server::Server> server = [] {
    std::string db = (std::filesystem::temp_directory_path() / ("superstep-fuzz-server-" + std::to_string(::getpid()) + ".db")).string();
    auto s = std::make_unique<sp::server::Server>(sp::server::ServerOptions{.database = db, .port = 0, .log = false});
    s->add_graph("approval", approval);
    s->start();
    std::atexit([] {
      server.reset();
    });
    return s;
  }();
  return server->port();
}

std::string last_answer;  ///< the head of the last answer read (for the finding's message)

/// The status of the answer to `request` (0: no status line within the timeout).
int status_of(const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server_port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);  // libFuzzer's timer signal may interrupt it
  if (rc != 0) {
    int open = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++open;
    fuzz::fail("the server stopped accepting (" + std::to_string(open) + " open descriptors; errno " +
               std::to_string(errno) + ")");
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!::write(fd, request.data(), request.size());
  std::string got;
  char buf[4096];
  // Headers are enough (streams and waits send theirs at once and may stay open).
  while (got.find("\r\n\r\n") == std::string::npos) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  last_answer = got.substr(0, 300);
  if (got.rfind("HTTP/1.1 ", 0) != 0 || got.size() < 12) return 0;
  return std::atoi(got.c_str() + 9);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto nl = in.find('\n');
  std::string_view first = in.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  auto space = first.find(' ');
  if (space == std::string_view::npos || space == 0) return 0;
  std::string method(first.substr(0, space)), target(first.substr(space + 1));
  if (target.empty() || target[0] != '/') return 0;
  for (char c : method + target)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return 0;  // not a request line HTTP can carry
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\n" +
                        "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + std::string(body);
  int status = status_of(request);
  if (status >= 500) fuzz::fail("a 5xx answer: " + std::to_string(status) + " to " + method + " " + target);
  // No answer (HTTP it could not parse is closed unanswered; a request may also outlast the read
  // timeout while the server works through a bulk delete): the server must answer /ok again
  // within 30 s.
  auto ok = [] { return status_of("GET /ok HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n") == 200; };
  bool answering = status != 0 || ok();
  for (int i = 0; !answering && i < 5; ++i) answering = ok();
  if (!answering) {
    if (std::getenv("FUZZ_HANG_WAIT")) {  // time to attach a debugger: gdb -p <pid>
      std::fprintf(stderr, "server hang, pid %d\n", static_cast<int>(::getpid()));
      ::sleep(600);
    }
    fuzz::fail("the server stopped answering after " + method + " " + target + "; GET /ok gave: " + last_answer);
  }
  return 0;
}
