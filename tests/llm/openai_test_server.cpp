#include "openai_test_server.hpp"

#include <httplib.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>

namespace superstep::testing {
using nlohmann::json;

struct OpenAITestServer::Impl {
  httplib::Server server;
  std::atomic<int> counter{0};
  std::atomic<int> active{0};
  std::atomic<int> max_active{0};
};

namespace {

json completion(const ScriptedReply& r, const std::string& id, const std::string& model) {
  json msg = {{"role", "assistant"}, {"content", r.content.empty() && !r.tool_calls.empty() ? json(nullptr) : json(r.content)}};
  if (!r.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& c : r.tool_calls)
      calls.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.args.is_string() ? c.args.get<std::string>() : c.args.dump()}}}});
    msg["tool_calls"] = std::move(calls);
  }
  return {{"id", id},
          {"object", "chat.completion"},
          {"created", 1700000000},
          {"model", model},
          {"choices", {{{"index", 0}, {"message", msg}, {"finish_reason", r.tool_calls.empty() ? "stop" : "tool_calls"}}}},
          {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}};
}

std::vector<std::string> stream_pieces(const ScriptedReply& r, const std::string& id, const std::string& model) {
  if (!r.raw_events.empty()) return r.raw_events;
  auto chunk = [&](json delta, json finish = nullptr) {
    return json{{"id", id},
                {"object", "chat.completion.chunk"},
                {"created", 1700000000},
                {"model", model},
                {"choices", {{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}}}}
        .dump();
  };
  std::vector<std::string> out;
  out.push_back(chunk({{"role", "assistant"}, {"content", ""}}));
  const std::size_t n = std::max<std::size_t>(1, r.piece_chars);
  for (std::size_t i = 0; i < r.content.size(); i += n) out.push_back(chunk({{"content", r.content.substr(i, n)}}));
  for (std::size_t k = 0; k < r.tool_calls.size(); ++k) {
    const ToolCall& c = r.tool_calls[k];
    out.push_back(chunk({{"tool_calls",
                          {{{"index", k}, {"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", ""}}}}}}}));
    std::string args = c.args.is_string() ? c.args.get<std::string>() : c.args.dump();
    for (std::size_t i = 0; i < args.size(); i += n)
      out.push_back(chunk({{"tool_calls", {{{"index", k}, {"function", {{"arguments", args.substr(i, n)}}}}}}}));
  }
  out.push_back(chunk(json::object(), r.tool_calls.empty() ? "stop" : "tool_calls"));
  out.push_back(json{{"id", id},
                     {"object", "chat.completion.chunk"},
                     {"model", model},
                     {"choices", json::array()},
                     {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}, {"total_tokens", 15}}}}
                    .dump());
  out.push_back("[DONE]");
  return out;
}

}  // namespace

std::string OpenAITestServer::event_stream(const ScriptedReply& reply, const std::string& model) {
  std::string out;
  for (const std::string& p : stream_pieces(reply, "chatcmpl-bench", model)) out += "data: " + p + "\n\n";
  return out;
}

std::string OpenAITestServer::completion_body(const ScriptedReply& r, const std::string& id, const std::string& model) {
  return r.raw_body.empty() ? completion(r, id, model).dump() : r.raw_body;
}

ScriptedReply reply_from_json(const json& j) {
  ScriptedReply r;
  r.status = j.value("status", 200);
  r.content = j.value("content", "");
  if (j.contains("tool_calls"))
    for (const json& c : j["tool_calls"]) {
      ToolCall call;
      call.id = c.value("id", "call_" + std::to_string(reinterpret_cast<std::uintptr_t>(&c) % 100000));
      call.name = c.value("name", "");
      call.args = c.value("args", json::object());
      r.tool_calls.push_back(std::move(call));
    }
  r.error_message = j.value("error_message", "");
  r.retry_after = j.value("retry_after", "");
  r.raw_body = j.value("raw_body", "");
  r.delay = std::chrono::milliseconds(j.value("delay_ms", 0));
  r.piece_chars = j.value("piece_chars", std::size_t{4});
  r.cut_stream = j.value("cut_stream", false);
  r.drop_connection = j.value("drop_connection", false);
  return r;
}

OpenAITestServer::OpenAITestServer(Handler handler, int threads, bool keep_alive) : impl_(std::make_unique<Impl>()), handler_(std::move(handler)) {
  auto& svr = impl_->server;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_keep_alive_max_count(keep_alive ? 100000 : 1);
  svr.set_keep_alive_timeout(1);  // httplib's stop() waits this long for idle connections
  svr.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    if (body.is_discarded()) {
      res.status = 400;
      res.set_content(R"({"error":{"message":"request body is not JSON"}})", "application/json");
      return;
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(body);
      remote_ports_.push_back(req.remote_port);
    }
    ScriptedReply r = next(body);
    int now = ++impl_->active;
    for (int seen = impl_->max_active.load(); now > seen && !impl_->max_active.compare_exchange_weak(seen, now);) {
    }
    struct Leave {
      std::atomic<int>& a;
      ~Leave() { --a; }
    } leave{impl_->active};
    if (r.delay.count() > 0) std::this_thread::sleep_for(r.delay);
    const std::string model = body.value("model", "test-model");
    const std::string id = "chatcmpl-" + std::to_string(++impl_->counter);
    if (!r.retry_after.empty()) res.set_header("Retry-After", r.retry_after);
    if (r.status >= 300) {
      res.status = r.status;
      res.set_content(json{{"error", {{"message", r.error_message}, {"type", "test_error"}}}}.dump(), "application/json");
      return;
    }
    if (!body.value("stream", false)) {
      res.set_content(r.raw_body.empty() ? completion(r, id, model).dump() : r.raw_body, "application/json");
      return;
    }
    auto pieces = std::make_shared<std::vector<std::string>>(stream_pieces(r, id, model));
    std::size_t limit = pieces->size();
    if (r.cut_stream || r.drop_connection) limit = std::max<std::size_t>(1, pieces->size() / 2);
    const bool drop = r.drop_connection;
    res.set_chunked_content_provider("text/event-stream", [pieces, limit, drop](size_t, httplib::DataSink& sink) {
      for (std::size_t i = 0; i < limit; ++i) {
        std::string ev = "data: " + (*pieces)[i] + "\n\n";
        if (!sink.write(ev.data(), ev.size())) return false;
      }
      if (drop) return false;  // abort: the client sees the connection end mid-body
      sink.done();
      return true;
    });
  });
  // The requests received so far (a scripted run's other process reads what it sent).
  svr.Get("/v1/requests", [this](const httplib::Request&, httplib::Response& res) {
    json all = json::array();
    for (json& r : requests()) all.push_back(std::move(r));
    res.set_content(all.dump(), "application/json");
  });
  int listen_fd = -1;
  svr.set_socket_options([&listen_fd](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    // Accepted connections inherit it: without it a reply written in two parts waits for the
    // client's delayed ACK (40 ms).
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    listen_fd = sock;
  });
  port_ = svr.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("OpenAITestServer: cannot bind a loopback port");
  // Debian's compiled httplib listens with a backlog of 5: a burst of connections (a thousand
  // agents starting at once) would see SYNs dropped and retried after 1 s. Listening again
  // raises the backlog.
  if (listen_fd >= 0) ::listen(listen_fd, 4096);
  thread_ = std::thread([this] { impl_->server.listen_after_bind(); });
  while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

OpenAITestServer::~OpenAITestServer() {
  impl_->server.stop();
  if (thread_.joinable()) thread_.join();
}

void OpenAITestServer::push(ScriptedReply reply) {
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(reply));
}

ScriptedReply OpenAITestServer::next(const json& request) {
  {
    std::lock_guard lock(mutex_);
    if (!queue_.empty()) {
      ScriptedReply r = std::move(queue_.front());
      queue_.pop_front();
      return r;
    }
  }
  if (handler_) return handler_(request);
  ScriptedReply echo;
  const json& msgs = request.value("messages", json::array());
  std::string last = msgs.empty() ? "" : msgs.back().value("content", json("")).is_string() ? msgs.back()["content"].get<std::string>() : "";
  echo.content = "echo: " + last;
  return echo;
}

std::string OpenAITestServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

std::vector<json> OpenAITestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t OpenAITestServer::request_count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

}  // namespace superstep::testing

namespace superstep::testing {
std::size_t OpenAITestServer::connection_count() const {
  std::lock_guard lock(mutex_);
  return std::set<int>(remote_ports_.begin(), remote_ports_.end()).size();
}
}  // namespace superstep::testing

namespace superstep::testing {
int OpenAITestServer::max_concurrent() const { return impl_->max_active.load(); }
}  // namespace superstep::testing
