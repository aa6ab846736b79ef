#include "llm/http_loop.hpp"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace superstep::internal {
namespace {

using Clock = std::chrono::steady_clock;

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

std::string header_value(std::string_view line, std::size_t name_len) {
  std::string_view v = line.substr(name_len + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
  return std::string(v);
}

}  // namespace

struct Transfer {
  HttpRequest req;
  HttpHandler handler;
  HttpResult result;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  bool aborted = false;  // on_body asked to stop, or threw
  char errbuf[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (headers) curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
  /// The easy handle, for reuse by the next transfer (reset: no options, no private data).
  CURL* release() {
    CURL* e = easy;
    easy = nullptr;
    curl_easy_reset(e);
    return e;
  }
};

struct HttpLoop::Impl {
  CURLM* multi = nullptr;
  std::thread thread;
  std::atomic<std::size_t> in_flight{0};

  struct Pending {
    std::unique_ptr<Transfer> t;
    Clock::time_point due;
  };
  std::mutex mutex;               // guards incoming and stopping
  std::vector<Pending> incoming;  // started by any thread, picked up by the loop
  bool stopping = false;

  // Loop thread only.
  std::multimap<Clock::time_point, std::unique_ptr<Transfer>> delayed;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> active;

  static size_t on_write(char* p, size_t size, size_t n, void* ud) {
    auto* t = static_cast<Transfer*>(ud);
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    try {
      if (t->handler.on_body && !t->handler.on_body(status, std::string_view(p, size * n))) {
        t->aborted = true;
        return 0;
      }
    } catch (...) {
      t->aborted = true;
      return 0;
    }
    return size * n;
  }

  static size_t on_header(char* p, size_t size, size_t n, void* ud) {
    auto* t = static_cast<Transfer*>(ud);
    std::string_view line(p, size * n);
    if (line.starts_with("HTTP/")) {  // a new response (after 100-continue or a redirect)
      t->result.retry_after.clear();
      t->result.retry_after_ms.clear();
    } else if (header_is(line, "retry-after")) {
      t->result.retry_after = header_value(line, 11);
    } else if (header_is(line, "retry-after-ms")) {
      t->result.retry_after_ms = header_value(line, 14);
    }
    return size * n;
  }

  std::vector<CURL*> spare_easy;  // reset handles of finished transfers (loop thread only)

  void add(std::unique_ptr<Transfer> t) {
    CURL* e = nullptr;
    if (!spare_easy.empty()) {
      e = spare_easy.back();
      spare_easy.pop_back();
    } else {
      e = curl_easy_init();
    }
    t->easy = e;
    const HttpRequest& r = t->req;
    for (const std::string& h : r.headers) t->headers = curl_slist_append(t->headers, h.c_str());
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Impl::on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Impl::on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(r.connect_timeout.count()));
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    if (r.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    } else if (r.method != "GET") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
      if (!r.body.empty()) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
      }
    }
    curl_multi_add_handle(multi, e);
    active.emplace(e, std::move(t));
  }

  void finish(CURL* e, CURLcode code) {
    auto it = active.find(e);
    std::unique_ptr<Transfer> t = std::move(it->second);
    active.erase(it);
    curl_multi_remove_handle(multi, e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &t->result.status);
    if (code != CURLE_OK && !t->aborted)
      t->result.error = t->errbuf[0] ? std::string(t->errbuf) : std::string(curl_easy_strerror(code));
    else if (t->aborted)
      t->result.error = "aborted";
    if (spare_easy.size() < 4096) spare_easy.push_back(t->release());
    done(*t);
  }

  void done(Transfer& t) {
    --in_flight;
    try {
      if (t.handler.on_done) t.handler.on_done(t.result);
    } catch (...) {
      // A completion handler must not throw; nothing can report it from here.
    }
  }

  // --- event loop: epoll over the transfers' sockets (curl_multi_socket_action), so each
  // wake-up costs O(sockets that are ready), not O(transfers in flight).
  int epoll_fd = -1;
  int wake_fd = -1;                       // eventfd: start() and the destructor wake the loop
  Clock::time_point curl_deadline = Clock::time_point::max();

  static int on_socket(CURL*, curl_socket_t s, int what, void* userp, void* socketp) {
    auto* self = static_cast<Impl*>(userp);
    epoll_event ev{};
    ev.data.fd = s;
    if (what == CURL_POLL_REMOVE) {
      if (socketp) epoll_ctl(self->epoll_fd, EPOLL_CTL_DEL, s, nullptr);
      curl_multi_assign(self->multi, s, nullptr);
      return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    if (socketp) {
      epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, s, &ev);
    } else {
      epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, s, &ev);
      curl_multi_assign(self->multi, s, self);  // marks the socket as registered
    }
    return 0;
  }

  static int on_timer(CURLM*, long timeout_ms, void* userp) {
    auto* self = static_cast<Impl*>(userp);
    self->curl_deadline = timeout_ms < 0 ? Clock::time_point::max() : Clock::now() + std::chrono::milliseconds(timeout_ms);
    return 0;
  }

  void drain_done() {
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &left))
      if (m->msg == CURLMSG_DONE) finish(m->easy_handle, m->data.result);
  }

  void run() {
    std::vector<Pending> batch;
    epoll_event events[128];
    int running = 0;
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (stopping) break;
        batch.swap(incoming);
      }
      auto now = Clock::now();
      for (Pending& p : batch) {
        if (p.due <= now) add(std::move(p.t));
        else delayed.emplace(p.due, std::move(p.t));
      }
      batch.clear();
      while (!delayed.empty() && delayed.begin()->first <= now) {
        add(std::move(delayed.begin()->second));
        delayed.erase(delayed.begin());
      }
      if (curl_deadline <= Clock::now()) {
        curl_deadline = Clock::time_point::max();
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        drain_done();
      }
      auto until = std::min(curl_deadline, delayed.empty() ? Clock::time_point::max() : delayed.begin()->first);
      long wait_ms = 1000;
      if (until != Clock::time_point::max()) {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
        wait_ms = std::clamp<long>(ms + 1, 0, 1000);
        if (until <= Clock::now()) wait_ms = 0;
      }
      int n = epoll_wait(epoll_fd, events, 128, static_cast<int>(wait_ms));
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == wake_fd) {
          uint64_t v;
          [[maybe_unused]] ssize_t r = ::read(wake_fd, &v, sizeof v);
          continue;
        }
        int flags = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) | (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                    (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(multi, fd, flags, &running);
      }
      drain_done();
    }
    // Shut down: every transfer still known ends with an error.
    auto fail = [&](Transfer& t) {
      t.result.error = "HTTP client shut down";
      done(t);
    };
    for (auto& [e, t] : active) {
      curl_multi_remove_handle(multi, e);
      fail(*t);
    }
    active.clear();
    for (auto& [due, t] : delayed) fail(*t);
    delayed.clear();
    std::lock_guard lock(mutex);
    for (Pending& p : incoming) fail(*p.t);
    incoming.clear();
  }

  void wake() const {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(wake_fd, &one, sizeof one);
  }
};

HttpLoop::HttpLoop() : impl_(std::make_unique<Impl>()) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  impl_->multi = curl_multi_init();
  impl_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl_->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl_->epoll_fd < 0 || impl_->wake_fd < 0) throw std::runtime_error("HttpLoop: epoll/eventfd failed");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl_->wake_fd;
  epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, impl_->wake_fd, &ev);
  // Keep idle connections for reuse: by default libcurl keeps 4 per transfer in progress, so
  // after a burst of a thousand replies most connections would be closed and made again.
  curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, 4096L);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETFUNCTION, &Impl::on_socket);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETDATA, impl_.get());
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERFUNCTION, &Impl::on_timer);
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERDATA, impl_.get());
  impl_->thread = std::thread([this] { impl_->run(); });
}

HttpLoop::~HttpLoop() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake();
  impl_->thread.join();
  curl_multi_cleanup(impl_->multi);
  for (CURL* e : impl_->spare_easy) curl_easy_cleanup(e);
  ::close(impl_->epoll_fd);
  ::close(impl_->wake_fd);
}

void HttpLoop::start(HttpRequest req, HttpHandler handler, std::chrono::milliseconds delay) {
  auto t = std::make_unique<Transfer>();
  t->req = std::move(req);
  t->handler = std::move(handler);
  ++impl_->in_flight;
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->stopping) {
      impl_->incoming.push_back({std::move(t), Clock::now() + delay});
      t = nullptr;
    }
  }
  if (t) {
    t->result.error = "HTTP client shut down";
    impl_->done(*t);
    return;
  }
  impl_->wake();
}

std::size_t HttpLoop::in_flight() const { return impl_->in_flight.load(); }

std::shared_ptr<HttpLoop> HttpLoop::shared() {
  // Never destroyed: its thread may still be delivering a reply while the process exits, and a
  // handler must never see a half-destroyed loop.
  static HttpLoop* loop = new HttpLoop();
  return std::shared_ptr<HttpLoop>(loop, [](HttpLoop*) {});
}

}  // namespace superstep::internal
