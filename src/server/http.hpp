// The HTTP layer: Boost.Beast over Asio, one C++20 coroutine per connection (no thread per
// connection or per open stream). A handler gets the parsed request and a Conn to answer on:
// one JSON reply, or a chunked body written piece by piece (SSE streams, long waits).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace superstep::server::http {

namespace asio = boost::asio;

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  ///< upper case
  std::string target;  ///< as sent (path and query)
  std::string path;    ///< percent-decoded, without the query
  std::map<std::string, std::string> query;    ///< percent-decoded
  std::map<std::string, std::string> headers;  ///< lower-case names
  std::string body;
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct Reply {
  unsigned status = 200;
  std::string body;
  std::string content_type = "application/json";
  Headers headers;
};

/// The response side of one request.
class Conn {
 public:
  virtual ~Conn() = default;
  /// A whole response.
  virtual asio::awaitable<void> send(Reply reply) = 0;
  /// Starts a chunked response; false when the client is gone. With `hold`, the head is kept
  /// back and goes out with the first chunk, or at flush(): a response whose body is ready soon
  /// after is then one write to the socket (one wake-up of the client) instead of two.
  virtual asio::awaitable<bool> begin(unsigned status, std::string content_type, Headers headers,
                                      bool hold = false) = 0;
  /// Sends a held head now; false when the client is gone.
  virtual asio::awaitable<bool> flush() = 0;
  /// One chunk of it; false when the client is gone.
  virtual asio::awaitable<bool> write(std::string chunk) = 0;
  /// Ends the chunked response.
  virtual asio::awaitable<void> end() = 0;
  /// write(last) and end() in one write to the socket (one segment, one wake-up of the client).
  virtual asio::awaitable<void> end_with(std::string last) = 0;
  virtual asio::any_io_executor executor() = 0;
  /// Calls `on_close` (on executor()) if the client closes the connection before unwatch(): a
  /// long response learns at once that nobody reads it any more.
  virtual void watch_close(std::function<void()> on_close) = 0;
  virtual void unwatch() = 0;
  /// The status sent (for the log line).
  unsigned status_sent = 0;
};

using Handler = std::function<asio::awaitable<void>(Request&, Conn&)>;

struct ListenOptions {
  std::string host;
  unsigned short port = 0;
  std::size_t body_limit = 10u << 20;  ///< larger bodies get 413
  Headers common_headers;              ///< added to every response (CORS)
};

/// Accepts connections on `io` and serves each with `handler`.
class Listener {
 public:
  Listener(asio::io_context& io, ListenOptions options, Handler handler);
  ~Listener();
  unsigned short port() const;
  /// Stops accepting (open connections finish what they do).
  void close();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// `%xx` and `+` decoding of a query component.
std::string url_decode(std::string_view s, bool plus_is_space);

}  // namespace superstep::server::http
