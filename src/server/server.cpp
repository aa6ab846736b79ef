#include "superstep/server/server.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/signal_set.hpp>
#include <condition_variable>
#include <thread>

#include "server/core.hpp"
#include "server/routes.hpp"

namespace superstep::server {

namespace asio = boost::asio;

struct Server::Impl {
  ServerOptions options;
  std::vector<GraphEntry> graphs;
  asio::io_context io;
  IoThreads io_threads{io};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::unique_ptr<Core> core;
  std::unique_ptr<Routes> routes;
  std::unique_ptr<http::Listener> listener;
  std::optional<asio::signal_set> signals;  // run(): SIGINT/SIGTERM
  std::mutex mutex;
  std::condition_variable stopped_cv;
  bool started = false, stop_requested = false, stopped = false;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }

Server::~Server() { stop(); }

void Server::add_graph(const std::string& graph_id, GraphBuilder build) {
  GraphEntry e;
  e.id = graph_id;
  e.factory = [build = std::move(build)](const CompileOptions& o, const json&, const json&) { return build(o); };
  e.build_once = true;
  impl_->graphs.push_back(std::move(e));
}

void Server::add_graph(const std::string& graph_id, GraphFactory factory) {
  GraphEntry e;
  e.id = graph_id;
  e.factory = std::move(factory);
  impl_->graphs.push_back(std::move(e));
}

void Server::start() {
  Impl& s = *impl_;
  if (s.started) return;
  if (s.graphs.empty()) throw Error("server: no graph registered (add_graph before start)");
  s.work.emplace(s.io.get_executor());
  s.core = std::make_unique<Core>(s.options, s.graphs, s.io_threads);
  s.routes = std::make_unique<Routes>(*s.core);
  http::ListenOptions lo;
  lo.host = s.options.host;
  lo.port = s.options.port;
  lo.common_headers = {{"Access-Control-Allow-Origin", "*"},
                       {"Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS"},
                       {"Access-Control-Allow-Headers", "content-type, x-api-key, last-event-id, authorization"},
                       {"Access-Control-Expose-Headers", "content-location, location, x-pagination-next, x-pagination-total"}};
  s.listener = std::make_unique<http::Listener>(
      s.io, lo, [routes = s.routes.get()](http::Request& req, http::Conn& conn) { return routes->handle(req, conn); });
  s.started = true;
  // The port is bound and listening, but nothing is accepted before the store is open: the
  // HTTP threads start after open(), and clients that connect meanwhile wait in the listen
  // backlog. (Serving first let a client retrying through a restart reach the records before
  // they existed, and crash the new process: found by superstep-torture --server.)
  std::exception_ptr failed;
  try {
    s.core->open();
  } catch (...) {
    failed = std::current_exception();
  }
  s.io_threads.start(s.options.io_threads, s.options.workers);
  if (failed) {
    stop();
    std::rethrow_exception(failed);
  }
}

unsigned short Server::port() const { return impl_->listener ? impl_->listener->port() : 0; }

std::string Server::url() const { return "http://" + impl_->options.host + ":" + std::to_string(port()); }

void Server::run() {
  start();
  Impl& s = *impl_;
  if (!s.signals) s.signals.emplace(s.io, SIGINT, SIGTERM);
  s.signals->async_wait([&s](const boost::system::error_code& ec, int) {
    if (ec) return;
    std::lock_guard lock(s.mutex);
    s.stop_requested = true;
    s.stopped_cv.notify_all();
  });
  {
    std::unique_lock lock(s.mutex);
    s.stopped_cv.wait(lock, [&] { return s.stop_requested; });
  }
}

std::size_t Server::shutdown() {
  Impl& s = *impl_;
  if (!s.started || s.stopped) return 0;
  if (s.listener) s.listener->close();
  return s.core ? s.core->shutdown(s.options.grace) : 0;
}

void Server::stop() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mutex);
    s.stop_requested = true;
    s.stopped_cv.notify_all();
    if (!s.started || s.stopped) return;
    s.stopped = true;
  }
  if (s.listener) s.listener->close();
  if (s.core) {
    s.core->shutdown(s.options.grace);
    s.core->wait_idle();
  }
  s.work.reset();
  if (s.signals) asio::post(s.io, [&s] {
    boost::system::error_code ignored;
    s.signals->cancel(ignored);
  });
  s.io_threads.stop();
}

}  // namespace superstep::server
