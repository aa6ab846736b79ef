// tcp_floor: the floor under concurrent_agents on this machine. The same traffic shape (N
// connections over loopback TCP, two request/reply rounds, the server answering each request
// 20 ms after it arrived, ~900-byte requests and ~700-byte replies) with no HTTP, no JSON, no
// engine: one epoll thread in this process sends, a forked process with one epoll thread answers.
// Whatever a real client adds comes on top of these figures.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "workloads/workloads.hpp"

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kDelayMs = 20;
constexpr std::size_t kRequestBytes = 900, kReplyBytes = 700;

double cpu_ms(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/// The answering process: replies kReplyBytes to every kRequestBytes read, kDelayMs later.
[[noreturn]] void serve(int listener) {
  int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener;
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  std::deque<std::pair<Clock::time_point, int>> due;  // in arrival order, so in due order
  std::vector<std::size_t> pending(1 << 16, 0);
  std::vector<char> buf(1 << 16), reply(kReplyBytes, 'r');
  const int one = 1;
  for (;;) {
    int timeout = -1;
    if (!due.empty())
      timeout = static_cast<int>(std::max<long>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(due.front().first - Clock::now()).count()));
    epoll_event events[256];
    int k = epoll_wait(ep, events, 256, timeout);
    for (int i = 0; i < k; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int c = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
        if (c < 0) continue;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.fd = c;
        epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
        continue;
      }
      ssize_t r = read(fd, buf.data(), buf.size());
      if (r <= 0) {
        if (r == 0) close(fd);
        continue;
      }
      for (pending[fd] += static_cast<std::size_t>(r); pending[fd] >= kRequestBytes; pending[fd] -= kRequestBytes)
        due.emplace_back(Clock::now() + std::chrono::milliseconds(kDelayMs), fd);
    }
    for (auto now = Clock::now(); !due.empty() && due.front().first <= now; due.pop_front())
      if (write(due.front().second, reply.data(), reply.size()) < 0) continue;
  }
}

}  // namespace

int run_tcp_floor(int n, int reps) {
  if (n > 60000) throw std::invalid_argument("tcp_floor: N must be at most 60000");
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 4096) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error(std::string("tcp_floor: cannot listen on loopback: ") + std::strerror(errno));
  pid_t server = fork();
  if (server < 0) throw std::runtime_error("tcp_floor: fork failed");
  if (server == 0) serve(listener);
  close(listener);
  struct Stop {
    pid_t pid;
    ~Stop() {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } stop{server};

  std::vector<int> fds(static_cast<std::size_t>(n));
  int ep = epoll_create1(0);
  for (int i = 0; i < n; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      throw std::runtime_error(std::string("tcp_floor: connect failed: ") + std::strerror(errno));
    fcntl(fd, F_SETFL, O_NONBLOCK);
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u32 = static_cast<uint32_t>(i);
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
    fds[static_cast<std::size_t>(i)] = fd;
  }
  std::vector<char> request(kRequestBytes, 'q'), buf(1 << 16);
  std::vector<double> walls;
  double client_cpu = 0;
  for (int r = 0; r < reps; ++r) {
    const double cpu0 = cpu_ms(RUSAGE_SELF);
    const auto t0 = Clock::now();
    std::vector<int> rounds(fds.size(), 0);
    std::vector<std::size_t> got(fds.size(), 0);
    int done = 0;
    for (int fd : fds)
      if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
        throw std::runtime_error("tcp_floor: short write");
    while (done < n) {
      epoll_event events[256];
      int k = epoll_wait(ep, events, 256, 10000);
      if (k == 0) throw std::runtime_error("tcp_floor: no reply within 10 s");
      for (int j = 0; j < k; ++j) {
        const uint32_t i = events[j].data.u32;
        ssize_t got_now = read(fds[i], buf.data(), buf.size());
        if (got_now <= 0) continue;
        for (got[i] += static_cast<std::size_t>(got_now); got[i] >= kReplyBytes; got[i] -= kReplyBytes) {
          if (++rounds[i] == 2) ++done;
          else if (write(fds[i], request.data(), request.size()) != static_cast<ssize_t>(request.size()))
            throw std::runtime_error("tcp_floor: short write");
        }
      }
    }
    walls.push_back(ms_since(t0));
    if (r > 0 || reps == 1) client_cpu += cpu_ms(RUSAGE_SELF) - cpu0;
  }
  for (int fd : fds) close(fd);
  close(ep);
  const double cold = walls.front();
  std::vector<double> warm(walls.begin() + (walls.size() > 1 ? 1 : 0), walls.end());
  std::sort(warm.begin(), warm.end());
  const std::size_t m = warm.size();
  const double median = m % 2 ? warm[m / 2] : (warm[m / 2 - 1] + warm[m / 2]) / 2;
  const double calls = 2.0 * n * static_cast<double>(m);
  superstep::json line = {{"name", "tcp_floor"},
                          {"n", n},
                          {"ms", cold},
                          {"warm_ms_median", median},
                          {"warm_ms_min", warm.front()},
                          {"server_delay_ms", kDelayMs},
                          {"model_turns_per_run", 2},
                          {"ms_per_model_turn", median / 2},
                          {"ratio_to_delay", median / (2.0 * kDelayMs)},
                          {"client_cpu_us_per_call", client_cpu * 1000.0 / calls},
                          {"result_check", "ok"}};
  std::cout << line.dump() << std::endl;
  return 0;
}

}  // namespace bench
