#include "superstep/llm/openai_chat_model.hpp"

#include <cstdlib>
#include <map>
#include <random>

#include "internal/ids.hpp"
#include "llm/http_loop.hpp"
#include "llm/openai_stream.hpp"
#include "superstep/errors.hpp"

namespace superstep {
namespace {

using internal::HttpLoop;
using internal::HttpResult;

std::string env_or(const std::string& given, const char* var, const std::string& fallback = "") {
  if (!given.empty()) return given;
  const char* v = std::getenv(var);
  return v && *v ? std::string(v) : fallback;
}

std::string preview(std::string_view text, std::size_t max = 300) {
  std::string s(text.substr(0, max));
  if (text.size() > max) s += "...";
  return s;
}

/// The server's own message in an error body: OpenAI's {"error": {"message"}}, Ollama's
/// {"error": "..."}, or the text itself.
std::string server_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (auto e = j.find("error"); e != j.end()) {
      if (e->is_string()) return e->get<std::string>();
      if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) return (*e)["message"];
    }
    if (auto m = j.find("message"); m != j.end() && m->is_string()) return *m;
  }
  return body.empty() ? "(empty body)" : preview(body);
}

bool retryable_status(long s) { return s == 408 || s == 409 || s == 429 || s >= 500; }

/// One call: its attempts, the reply being read, and the user's callbacks.
struct Call : std::enable_shared_from_this<Call> {
  std::shared_ptr<const OpenAIChatModel::Config> cfg;
  internal::HttpRequest http;
  bool stream = false;
  ChatCallbacks cb;
  int attempt = 0;

  // The attempt in progress (touched on the I/O thread only).
  std::string buf;                    // non-streamed body, or an error body
  internal::OpenAIStreamReader reader;
  bool delivered = false;             // a chunk went to the user: no retry after this
  std::exception_ptr failure;         // set when reading the body failed (transfer aborted)

  std::string who() const { return "chat model '" + cfg->model + "' at " + cfg->base_url; }

  void begin(std::chrono::milliseconds delay) {
    ++attempt;
    buf.clear();
    reader = internal::OpenAIStreamReader();
    failure = nullptr;
    auto self = shared_from_this();
    internal::HttpHandler h;
    h.on_body = [self](long status, std::string_view bytes) { return self->on_body(status, bytes); };
    h.on_done = [self](const HttpResult& r) { self->on_done(r); };
    cfg->loop->start(http, std::move(h), delay);
  }

  bool on_body(long status, std::string_view bytes) {
    if (status < 200 || status >= 300 || !stream) {
      if (buf.size() < (64u << 20)) buf.append(bytes);
      return true;
    }
    try {
      reader.feed(bytes, [&](const ChatChunk& c) {
        delivered = true;
        if (cb.on_chunk) cb.on_chunk(c);
      });
    } catch (...) {
      failure = std::current_exception();
      return false;
    }
    return true;
  }

  std::chrono::milliseconds retry_delay(const HttpResult& r) const {
    const auto& o = cfg->options;
    constexpr long kMaxWaitMs = 60000;
    char* end = nullptr;
    if (!r.retry_after_ms.empty()) {
      double ms = std::strtod(r.retry_after_ms.c_str(), &end);
      if (end != r.retry_after_ms.c_str() && ms >= 0) return std::chrono::milliseconds(std::min<long>(kMaxWaitMs, static_cast<long>(ms)));
    }
    if (!r.retry_after.empty()) {
      double s = std::strtod(r.retry_after.c_str(), &end);
      if (end != r.retry_after.c_str() && s >= 0) return std::chrono::milliseconds(std::min<long>(kMaxWaitMs, static_cast<long>(s * 1000)));
    }
    long base = o.retry_initial.count() << std::min(attempt - 1, 20);
    base = std::min<long>(base, o.retry_max.count());
    thread_local std::minstd_rand rng(std::random_device{}());
    std::uniform_real_distribution<double> jitter(0.75, 1.0);
    return std::chrono::milliseconds(static_cast<long>(base * jitter(rng)));
  }

  void fail(std::string what, long status = 0, bool transient = false) {
    cb.on_error(std::make_exception_ptr(ChatModelError(who() + ": " + what, status, transient)));
  }

  void on_done(const HttpResult& r) {
    if (failure) {  // the stream's reader refused an event (named here with the model), or a callback threw
      try {
        std::rethrow_exception(failure);
      } catch (const ChatModelError& e) {
        return fail(e.what(), r.status, e.transient());
      } catch (...) {
        return cb.on_error(failure);
      }
    }
    const bool can_retry = attempt <= cfg->options.max_retries && !delivered;
    const std::string tries = attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "";
    if (!r.error.empty()) {
      if (can_retry) return begin(retry_delay(r));
      return fail("request failed" + tries + ": " + r.error, r.status, /*transient=*/true);
    }
    if (r.status < 200 || r.status >= 300) {
      if (retryable_status(r.status) && can_retry) return begin(retry_delay(r));
      return fail("HTTP " + std::to_string(r.status) + tries + ": " + server_message(buf), r.status,
                  retryable_status(r.status));
    }
    try {
      if (stream) {
        cb.on_message(reader.finish());
      } else {
        json body = json::parse(buf, nullptr, false);
        if (body.is_discarded()) return fail("the reply is not JSON: " + preview(buf), r.status);
        cb.on_message(internal::parse_completion(body));
      }
    } catch (const ChatModelError& e) {
      fail(e.what(), r.status, e.transient());
    } catch (...) {
      cb.on_error(std::current_exception());
    }
  }
};

}  // namespace

OpenAIChatModel::OpenAIChatModel(OpenAIOptions options) {
  auto c = std::make_shared<Config>();
  c->model = env_or(options.model, "SUPERSTEP_MODEL");
  c->base_url = env_or(options.base_url, "OPENAI_BASE_URL", "https://api.openai.com/v1");
  while (!c->base_url.empty() && c->base_url.back() == '/') c->base_url.pop_back();
  std::string key = env_or(options.api_key, "OPENAI_API_KEY");
  if (c->model.empty())
    throw Error("OpenAIChatModel: no model: set SUPERSTEP_MODEL (e.g. gpt-4o-mini, or llama3.1 for Ollama) or "
                "OpenAIOptions::model");
  if (key.empty() && c->base_url.find("api.openai.com") != std::string::npos)
    throw Error("OpenAIChatModel: no API key for " + c->base_url +
                ": set OPENAI_API_KEY, or OPENAI_BASE_URL to a local OpenAI-compatible server "
                "(e.g. http://localhost:11434/v1 for Ollama)");
  c->url = c->base_url + "/chat/completions";
  c->headers = {"Content-Type: application/json", "Accept: application/json, text/event-stream"};
  if (!key.empty()) c->headers.push_back("Authorization: Bearer " + key);
  c->loop = HttpLoop::shared();
  options_ = options.defaults;
  c->options = std::move(options);
  config_ = std::move(c);
}

json OpenAIChatModel::request_body(const ChatRequest& r) const {
  json body = {{"model", config_->model}, {"messages", json::array()}};
  for (const Message& m : r.messages) body["messages"].push_back(m.to_openai());
  if (r.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  if (!r.tools.empty()) {
    json tools = json::array();
    for (const Tool& t : r.tools) tools.push_back(t.to_openai());
    body["tools"] = std::move(tools);
  }
  const ChatOptions& o = r.options;
  if (o.tool_choice.is_string()) {
    const std::string& c = o.tool_choice.get_ref<const std::string&>();
    if (c == "auto" || c == "none" || c == "required") body["tool_choice"] = c;
    else body["tool_choice"] = {{"type", "function"}, {"function", {{"name", c}}}};
  } else if (!o.tool_choice.is_null()) {
    body["tool_choice"] = o.tool_choice;
  }
  if (o.temperature) body["temperature"] = *o.temperature;
  if (o.max_tokens) body["max_tokens"] = *o.max_tokens;
  if (!o.stop.empty()) body["stop"] = o.stop;
  if (!o.response_format.is_null()) body["response_format"] = o.response_format;
  if (o.extra.is_object())
    for (const auto& [k, v] : o.extra.items()) body[k] = v;
  return body;
}

void OpenAIChatModel::start(ChatRequest request, ChatCallbacks callbacks) const {
  auto call = std::make_shared<Call>();
  call->cfg = config_;
  call->stream = request.stream;
  call->cb = std::move(callbacks);
  if (!call->cb.on_message || !call->cb.on_error) throw Error("ChatModel::start: on_message and on_error are required");
  call->http.url = config_->url;
  call->http.headers = config_->headers;
  call->http.timeout = config_->options.timeout;
  call->http.connect_timeout = config_->options.connect_timeout;
  call->http.body = request_body(request).dump(-1, ' ', false, json::error_handler_t::replace);
  call->begin(std::chrono::milliseconds(0));
}

}  // namespace superstep
