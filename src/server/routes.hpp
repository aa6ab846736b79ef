// Routes: the LangGraph Platform API's paths mapped onto Core, plus what HTTP adds around it:
// the API key, CORS, JSON bodies and errors, SSE streams read from a run's EventLog (with
// Last-Event-ID, heartbeats and on_disconnect), and the newline keep-alive of /wait and /join.
#pragma once

#include "server/core.hpp"
#include "server/http.hpp"

namespace superstep::server {

class Routes {
 public:
  explicit Routes(Core& core) : core_(core) {}
  boost::asio::awaitable<void> handle(http::Request& req, http::Conn& conn);

 private:
  /// What a request asks for: a reply, or a response that follows a run's log.
  struct Action {
    enum Kind { reply, stream, wait, cancel_wait } kind = reply;
    http::Reply response;
    std::shared_ptr<EventLog> log;
    std::int64_t after = -1;
    http::Headers headers;
    std::function<void()> on_disconnect;
    json modes;
    std::string run_id;
    static Action of(http::Reply r) {
      Action a;
      a.response = std::move(r);
      return a;
    }
    static Action streaming(std::shared_ptr<EventLog> log, std::int64_t after, http::Headers h,
                            std::function<void()> on_disconnect, json modes) {
      Action a;
      a.kind = stream;
      a.log = std::move(log);
      a.after = after;
      a.headers = std::move(h);
      a.on_disconnect = std::move(on_disconnect);
      a.modes = std::move(modes);
      return a;
    }
    static Action waiting(std::shared_ptr<EventLog> log, std::string run_id, http::Headers h,
                          std::function<void()> on_disconnect) {
      Action a;
      a.kind = wait;
      a.log = std::move(log);
      a.run_id = std::move(run_id);
      a.headers = std::move(h);
      a.on_disconnect = std::move(on_disconnect);
      return a;
    }
  };
  Action dispatch(http::Request& req, const json& body);
  Action runs_post(const json& body, const std::optional<std::string>& thread_id, const std::string& kind);
  boost::asio::awaitable<void> cancel_wait(http::Conn& conn, std::shared_ptr<EventLog> log);
  boost::asio::awaitable<void> stream(http::Conn& conn, std::shared_ptr<EventLog> log, std::int64_t after,
                                      http::Headers headers, std::function<void()> on_disconnect, json modes);
  boost::asio::awaitable<void> wait(http::Conn& conn, std::shared_ptr<EventLog> log, const std::string& run_id,
                                    http::Headers headers, std::function<void()> on_disconnect);
  Core& core_;
};

}  // namespace superstep::server
