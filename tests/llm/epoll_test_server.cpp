#include "llm/epoll_test_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <queue>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace superstep::testing {
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct EpollTestServer::Impl {
  OpenAITestServer::Handler handler;
  int listen_fd = -1, epoll_fd = -1, stop_fd = -1, port = 0;
  std::thread thread;
  uint64_t counter = 0;

  struct Conn {
    uint64_t generation;
    std::string in, out;
  };
  std::unordered_map<int, Conn> conns;
  uint64_t next_generation = 1;
  struct Due {
    Clock::time_point at;
    int fd;
    uint64_t generation;
    std::string response;
    bool operator>(const Due& o) const { return at > o.at; }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<>> timers;

  void close_conn(int fd) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns.erase(fd);
  }

  void flush(int fd, Conn& c) {
    while (!c.out.empty()) {
      ssize_t n = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (n > 0) {
        c.out.erase(0, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      return close_conn(fd);
    }
    epoll_event ev{};
    ev.events = EPOLLIN | (c.out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT));
    ev.data.fd = fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &ev);
  }

  static std::string response(int status, const std::string& type, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") + "\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: keep-alive\r\n\r\n" + body;
  }

  /// Parses whole requests off the connection's input; schedules their replies.
  void requests(int fd, Conn& c) {
    for (;;) {
      std::size_t end = c.in.find("\r\n\r\n");
      if (end == std::string::npos) return;
      std::size_t length = 0;
      std::string head = c.in.substr(0, end);
      for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (auto p = head.find("content-length:"); p != std::string::npos) length = std::stoul(head.substr(p + 15));
      if (c.in.size() < end + 4 + length) return;
      json body = json::parse(c.in.substr(end + 4, length), nullptr, false);
      c.in.erase(0, end + 4 + length);
      std::string out;
      ScriptedReply r;
      if (body.is_discarded()) {
        out = response(400, "application/json", R"({"error":{"message":"request body is not JSON"}})");
      } else {
        r = handler(body);
        std::string model = body.value("model", "test-model");
        std::string id = "chatcmpl-" + std::to_string(++counter);
        if (r.status >= 300)
          out = response(r.status, "application/json", json{{"error", {{"message", r.error_message}}}}.dump());
        else if (body.value("stream", false))
          out = response(200, "text/event-stream", OpenAITestServer::event_stream(r, model));
        else
          out = response(200, "application/json", OpenAITestServer::completion_body(r, id, model));
      }
      timers.push({Clock::now() + r.delay, fd, c.generation, std::move(out)});
    }
  }

  void run() {
    epoll_event events[256];
    for (;;) {
      int wait_ms = 1000;
      if (!timers.empty())
        wait_ms = static_cast<int>(std::max<long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(timers.top().at - Clock::now()).count()));
      int n = epoll_wait(epoll_fd, events, 256, wait_ms);
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == stop_fd) return;
        if (fd == listen_fd) {
          for (int c; (c = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
            int yes = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
            conns[c] = Conn{next_generation++, {}, {}};
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.fd = c;
            epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c, &ev);
          }
          continue;
        }
        auto it = conns.find(fd);
        if (it == conns.end()) continue;
        if (events[i].events & EPOLLOUT) flush(fd, it->second);
        if (!(events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
        char buf[16384];
        bool closed = false;
        for (;;) {
          ssize_t got = ::recv(fd, buf, sizeof buf, 0);
          if (got > 0) {
            it->second.in.append(buf, static_cast<std::size_t>(got));
            continue;
          }
          closed = got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
          break;
        }
        if (closed) {
          close_conn(fd);
          continue;
        }
        requests(fd, it->second);
      }
      for (auto now = Clock::now(); !timers.empty() && timers.top().at <= now;) {
        Due d = timers.top();
        timers.pop();
        auto it = conns.find(d.fd);
        if (it == conns.end() || it->second.generation != d.generation) continue;  // the client left
        it->second.out += d.response;
        flush(d.fd, it->second);
      }
    }
  }
};

EpollTestServer::EpollTestServer(OpenAITestServer::Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  impl_->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int yes = 1;
  setsockopt(impl_->listen_fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(impl_->listen_fd, 4096) != 0)
    throw std::runtime_error("EpollTestServer: cannot listen on loopback");
  getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl_->port = ntohs(addr.sin_port);
  impl_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl_->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  for (int fd : {impl_->listen_fd, impl_->stop_fd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }
  impl_->thread = std::thread([this] { impl_->run(); });
}

EpollTestServer::~EpollTestServer() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t w = ::write(impl_->stop_fd, &one, sizeof one);
  impl_->thread.join();
  for (auto& [fd, c] : impl_->conns) ::close(fd);
  ::close(impl_->listen_fd);
  ::close(impl_->epoll_fd);
  ::close(impl_->stop_fd);
}

std::string EpollTestServer::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1"; }

}  // namespace superstep::testing
