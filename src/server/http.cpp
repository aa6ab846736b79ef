#include "server/http.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "superstep/errors.hpp"

namespace superstep::server::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

std::string url_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

namespace {

Request to_request(bhttp::request<bhttp::string_body>& r) {
  Request req;
  req.method = std::string(r.method_string());
  req.target = std::string(r.target());
  std::string_view target = r.target();
  auto q = target.find('?');
  req.path = url_decode(target.substr(0, q), false);
  if (q != std::string_view::npos) {
    std::string_view rest = target.substr(q + 1);
    while (!rest.empty()) {
      auto amp = rest.find('&');
      std::string_view pair = rest.substr(0, amp);
      auto eq = pair.find('=');
      std::string key = url_decode(pair.substr(0, eq), true);
      std::string value = eq == std::string_view::npos ? std::string() : url_decode(pair.substr(eq + 1), true);
      // A repeated key (`select=a&select=b`, how some SDKs send lists) keeps every value, joined
      // with commas.
      if (!key.empty()) {
        auto [it, fresh] = req.query.try_emplace(key, value);
        if (!fresh) it->second += "," + value;
      }
      if (amp == std::string_view::npos) break;
      rest = rest.substr(amp + 1);
    }
  }
  for (const auto& f : r) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    req.headers[name] = std::string(f.value());
  }
  req.body = std::move(r.body());
  return req;
}

class BeastConn final : public Conn {
 public:
  BeastConn(beast::tcp_stream& stream, const Headers& common, bool keep_alive, unsigned version)
      : stream_(stream), common_(common), keep_alive_(keep_alive), version_(version) {}
  ~BeastConn() override { unwatch(); }

  asio::awaitable<void> send(Reply reply) override {
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(reply.status), version_};
    if (!reply.body.empty() || reply.status != 204) res.set(bhttp::field::content_type, reply.content_type);
    for (const auto& [k, v] : common_) res.set(k, v);
    for (const auto& [k, v] : reply.headers) res.set(k, v);
    res.keep_alive(keep_alive_);
    res.body() = std::move(reply.body);
    res.prepare_payload();
    status_sent = reply.status;
    auto [ec, n] = co_await bhttp::async_write(stream_, res, use_tuple);
    if (ec) ok_ = false;
  }

  asio::awaitable<bool> begin(unsigned status, std::string content_type, Headers headers, bool hold) override {
    bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(status), version_};
    res.set(bhttp::field::content_type, content_type);
    res.set(bhttp::field::cache_control, "no-cache");
    for (const auto& [k, v] : common_) res.set(k, v);
    for (const auto& [k, v] : headers) res.set(k, v);
    res.keep_alive(keep_alive_);
    res.chunked(true);
    status_sent = status;
    if (hold) {
      bhttp::fields::writer head(res.base(), res.version(), res.result_int());
      held_ = beast::buffers_to_string(head.get());
      co_return ok_;
    }
    bhttp::response_serializer<bhttp::empty_body> sr{res};
    auto [ec, n] = co_await bhttp::async_write_header(stream_, sr, use_tuple);
    if (ec) ok_ = false;
    co_return ok_;
  }

  asio::awaitable<bool> flush() override {
    if (!ok_ || held_.empty()) co_return ok_;
    std::string head = std::exchange(held_, std::string());
    auto [ec, n] = co_await asio::async_write(stream_.socket(), asio::buffer(head), use_tuple);
    if (ec) ok_ = false;
    co_return ok_;
  }

  asio::awaitable<bool> write(std::string chunk) override {
    if (!ok_) co_return false;
    if (chunk.empty()) co_return co_await flush();
    std::string head = std::exchange(held_, std::string());
    auto [ec, n] = co_await asio::async_write(
        stream_.socket(), beast::buffers_cat(asio::buffer(head), bhttp::make_chunk(asio::buffer(chunk))), use_tuple);
    if (ec) ok_ = false;
    co_return ok_;
  }

  asio::awaitable<void> end() override {
    if (!ok_) co_return;
    std::string head = std::exchange(held_, std::string());
    auto [ec, n] =
        co_await asio::async_write(stream_.socket(), beast::buffers_cat(asio::buffer(head), bhttp::make_chunk_last()), use_tuple);
    if (ec) ok_ = false;
  }

  asio::awaitable<void> end_with(std::string last) override {
    if (!ok_) co_return;
    if (last.empty()) co_return co_await end();
    std::string head = std::exchange(held_, std::string());
    auto [ec, n] = co_await asio::async_write(
        stream_.socket(),
        beast::buffers_cat(asio::buffer(head), bhttp::make_chunk(asio::buffer(last)), bhttp::make_chunk_last()), use_tuple);
    if (ec) ok_ = false;
  }

  asio::any_io_executor executor() override { return stream_.get_executor(); }
  bool ok() const { return ok_; }

  void watch_close(std::function<void()> on_close) override {
    watching_ = true;
    auto& socket = stream_.socket();
    socket.async_wait(tcp::socket::wait_read, [&socket, on_close = std::move(on_close), this](const beast::error_code& ec) {
      if (ec) return;  // unwatched (cancelled) or the socket is gone
      beast::error_code e;
      // Readable with nothing to read: the client closed its end. (A pipelined request would
      // leave bytes to read; it is left for the next read.)
      if (socket.available(e) == 0 || e) {
        ok_ = false;
        on_close();
      }
    });
  }

  void unwatch() override {
    if (!watching_) return;
    watching_ = false;
    beast::error_code ignored;
    stream_.socket().cancel(ignored);
  }

 private:
  beast::tcp_stream& stream_;
  const Headers& common_;
  bool keep_alive_;
  unsigned version_;
  bool ok_ = true;
  std::string held_;  // begin(hold): the response's head, not sent yet
  bool watching_ = false;
};

}  // namespace

struct Listener::Impl : std::enable_shared_from_this<Listener::Impl> {
  asio::io_context& io;
  ListenOptions options;
  Handler handler;
  tcp::acceptor acceptor;

  Impl(asio::io_context& io, ListenOptions o, Handler h)
      : io(io), options(std::move(o)), handler(std::move(h)), acceptor(io) {}

  asio::awaitable<void> accept_loop() {
    auto self = shared_from_this();
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::make_strand(io), use_tuple);
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
        continue;  // e.g. too many open files: keep accepting
      }
      // Small writes (a chunk, an SSE event) go out at once: Nagle's algorithm with the
      // client's delayed ACK would hold each for 40 ms.
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto exec = socket.get_executor();
      asio::co_spawn(exec, session(std::move(socket)), asio::detached);
    }
  }

  asio::awaitable<void> session(tcp::socket socket) {
    auto self = shared_from_this();
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    for (;;) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.body_limit(options.body_limit);
      parser.header_limit(64 * 1024);
      auto [ec, n] = co_await bhttp::async_read(stream, buffer, parser, use_tuple);
      if (ec == bhttp::error::body_limit) {
        BeastConn conn(stream, options.common_headers, false, 11);
        Reply too_large{413, R"j({"detail":"request body too large (the limit is 10 MiB)"})j"};
        co_await conn.send(std::move(too_large));
        break;
      }
      if (ec) break;
      auto& raw = parser.get();
      bool keep_alive = raw.keep_alive();
      Request req = to_request(raw);
      BeastConn conn(stream, options.common_headers, keep_alive, raw.version());
      bool failed = false;
      try {
        co_await handler(req, conn);
      } catch (const std::exception&) {
        failed = true;
      }
      if (failed) {
        Reply internal{500, R"({"detail":"internal error"})"};
        if (conn.status_sent == 0) co_await conn.send(std::move(internal));
        break;
      }
      if (!keep_alive || !conn.ok()) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
};

Listener::Listener(asio::io_context& io, ListenOptions options, Handler handler)
    : impl_(std::make_shared<Impl>(io, std::move(options), std::move(handler))) {
  beast::error_code ec;
  auto address = asio::ip::make_address(impl_->options.host == "localhost" ? "127.0.0.1" : impl_->options.host, ec);
  if (ec) throw Error("server: cannot use host '" + impl_->options.host + "': " + ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw Error("server: cannot listen on " + impl_->options.host + ":" + std::to_string(impl_->options.port) + ": " +
                ec.message());
  asio::co_spawn(a.get_executor(), impl_->accept_loop(), asio::detached);
}

Listener::~Listener() { close(); }

unsigned short Listener::port() const {
  beast::error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Listener::close() {
  auto impl = impl_;
  asio::post(impl->acceptor.get_executor(), [impl] {
    beast::error_code ec;
    impl->acceptor.close(ec);
  });
}

}  // namespace superstep::server::http
