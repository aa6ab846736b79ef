#include "server/routes.hpp"

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "server/wire.hpp"

namespace superstep::server {

namespace asio = boost::asio;
using http::Conn;
using http::Headers;
using http::Reply;
using http::Request;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

Reply json_reply(unsigned status, const json& body, Headers headers = {}) {
  return Reply{status, dump_wire(body), "application/json", std::move(headers)};
}

Reply error_reply(unsigned status, const std::string& detail) { return json_reply(status, json{{"detail", detail}}); }

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) parts.push_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

bool truthy(const std::string& v) { return v == "1" || v == "true" || v == "True" || v == "yes"; }

std::size_t query_size(const Request& req, const char* key, std::size_t dflt) {
  auto it = req.query.find(key);
  if (it == req.query.end() || it->second.empty()) return dflt;
  try {
    long long v = std::stoll(it->second);
    if (v < 0) throw std::invalid_argument("negative");
    return static_cast<std::size_t>(v);
  } catch (const std::exception&) {
    throw HttpError(422, std::string("query parameter '") + key + "' must be a non-negative integer");
  }
}

/// A list in a query parameter: JSON text (`["run_id","status"]`, what the SDK sends) or names
/// separated by commas.
json query_list(const std::string& text) {
  json v = nests_deeper_than(text, kMaxRequestJsonDepth) ? json() : json::parse(text, nullptr, false);
  if (v.is_array()) return v;
  json out = json::array();
  std::size_t from = 0;
  while (from <= text.size()) {
    auto comma = text.find(',', from);
    std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

/// `stream_mode` of a join: a name or a JSON array of names (null: every mode).
json join_modes(const Request& req) {
  auto it = req.query.find("stream_mode");
  if (it == req.query.end() || it->second.empty()) return nullptr;
  json m = query_list(it->second);
  for (auto& v : m)
    if (v == "messages-tuple") v = "messages";
  return m.empty() ? json(nullptr) : m;
}

/// The paging headers of a search: how many matched, and the next page's offset when there is
/// one (the SDK's `includePagination` reads X-Pagination-Next).
Headers pagination(const json& body, std::size_t returned, std::size_t total) {
  Headers h;
  std::size_t offset = body.is_object() && body.contains("offset") && body["offset"].is_number_unsigned()
                           ? body["offset"].get<std::size_t>() : 0;
  if (offset + returned < total) h.emplace_back("X-Pagination-Next", std::to_string(offset + returned));
  h.emplace_back("X-Pagination-Total", std::to_string(total));
  return h;
}

/// The `Last-Event-ID` header of a join (-1 without one).
std::int64_t last_event_id(const Request& req) {
  std::string last = req.header("last-event-id");
  if (last.empty()) return -1;
  try {
    return std::stoll(last);
  } catch (const std::exception&) {
    throw HttpError(422, "Last-Event-ID '" + last + "' is not an event id");
  }
}

bool mode_wanted(const json& modes, const std::string& event) {
  if (modes.is_null() || event == "metadata" || event == "error") return true;
  std::string mode = event.substr(0, event.find('|'));
  mode = mode.substr(0, mode.find('/'));
  for (const auto& m : modes)
    if (m == mode) return true;
  return false;
}

}  // namespace

asio::awaitable<void> Routes::handle(Request& req, Conn& conn) {
  auto started = std::chrono::steady_clock::now();
  const ServerOptions& o = core_.options();
  std::optional<Reply> failure;
  std::optional<Action> action;
  try {
    if (req.method == "OPTIONS") {
      failure = Reply{204, "", "", {{"Access-Control-Max-Age", "86400"}}};
    } else if (!o.api_key.empty() && !(req.method == "GET" && req.path == "/ok") &&
               req.header("x-api-key") != o.api_key) {
      bool missing = req.header("x-api-key").empty();
      failure = error_reply(missing ? 401 : 403, missing ? "Missing API key: send it in the x-api-key header"
                                                         : "Invalid API key");
    } else {
      json body = json::object();
      if (!req.body.empty() && req.body.find_first_not_of(" \t\r\n") != std::string::npos) {
        try {
          body = parse_request_body(req.body);
        } catch (const HttpError& e) {
          failure = error_reply(e.status, e.what());
        }
      }
      if (!failure) action = dispatch(req, body);
    }
  } catch (const HttpError& e) {
    failure = error_reply(e.status, e.what());
  } catch (const json::exception& e) {
    // A field of the request of a type the handler did not expect (a number for an object...).
    failure = error_reply(422, std::string("The request does not have the expected shape: ") + e.what());
  } catch (const std::exception& e) {
    core_.log_line(std::string("error: ") + req.method + " " + req.path + ": " + e.what());
    failure = error_reply(500, std::string("internal error: ") + e.what());
  }
  if (failure) {
    co_await conn.send(std::move(*failure));
  } else if (action) {
    switch (action->kind) {
      case Action::reply:
        co_await conn.send(std::move(action->response));
        break;
      case Action::stream:
        co_await stream(conn, action->log, action->after, std::move(action->headers), action->on_disconnect,
                        action->modes);
        break;
      case Action::wait:
        co_await wait(conn, action->log, action->run_id, std::move(action->headers), action->on_disconnect);
        break;
      case Action::cancel_wait:
        co_await cancel_wait(conn, action->log);
        break;
    }
  }
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ms);
  core_.log_line(req.method + " " + req.target + " " + std::to_string(conn.status_sent) + " " + buf + " ms");
}

Routes::Action Routes::dispatch(Request& req, const json& body) {
  const std::vector<std::string> p = split_path(req.path);
  const std::string& m = req.method;
  auto n = p.size();
  auto is = [&](std::initializer_list<const char*> parts) {
    if (parts.size() != n) return false;
    std::size_t i = 0;
    for (const char* part : parts) {
      if (std::string_view(part) != "*" && p[i] != part) return false;
      ++i;
    }
    return true;
  };
  auto ok = [](const json& j) { return Action::of(json_reply(200, j)); };

  if (m == "GET" && is({"ok"})) {
    if (auto failed = core_.check_database())
      return Action::of(json_reply(503, json{{"ok", false}, {"detail", "the database does not answer: " + *failed}}));
    return ok(json{{"ok", true}});
  }
  if (m == "GET" && is({"info"}))
    return ok(json{{"version", "0.1.0"},
                               {"langgraph_js_version", nullptr},
                               {"context", "superstep"},
                               {"flags", {{"assistants", true}, {"crons", true}, {"langsmith", false}, {"store", true}}}});
  // Assistants
  if (m == "POST" && is({"assistants", "search"})) {
    std::size_t total = 0;
    json found = core_.search_assistants(body, &total);
    return Action::of(json_reply(200, found, pagination(body, found.size(), total)));
  }
  if (m == "POST" && is({"assistants", "count"})) return ok(core_.count_assistants(body));
  if (m == "POST" && is({"assistants"})) return ok(core_.create_assistant(body));
  if (m == "PATCH" && is({"assistants", "*"})) return ok(core_.patch_assistant(p[1], body));
  if (m == "DELETE" && is({"assistants", "*"})) {
    // As the reference: 200 with the deleted assistant's id in a list (the SDK returns it).
    return ok(json::array({core_.delete_assistant(p[1], req.query.count("delete_threads") && truthy(req.query.at("delete_threads")))}));
  }
  if (m == "POST" && is({"assistants", "*", "versions"})) return ok(core_.assistant_versions(p[1], body));
  if (m == "POST" && is({"assistants", "*", "latest"})) return ok(core_.set_latest_assistant(p[1], body));
  if (m == "GET" && is({"assistants", "*"})) return ok(core_.get_assistant(p[1]));
  if (m == "GET" && is({"assistants", "*", "graph"})) {
    // LangGraph's xray: true (all levels) or a depth; the reference JS server reads only
    // true/1/yes, superstep also takes a depth of 2 and more (as the Python server does).
    int xray = 0;
    if (auto it = req.query.find("xray"); it != req.query.end()) {
      std::string v = it->second;
      for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (v == "true" || v == "yes" || v == "1") xray = -1;
      else if (!v.empty() && v.size() < 4 && v.find_first_not_of("0123456789") == std::string::npos) xray = std::stoi(v);
      else if (v != "false" && v != "no" && !v.empty())
        throw HttpError(422, "query parameter 'xray' must be true, false or a depth (a number)");
    }
    return ok(core_.assistant_graph(p[1], xray));
  }
  if (m == "GET" && is({"assistants", "*", "schemas"})) return ok(core_.assistant_schemas(p[1]));
  if (m == "GET" && (is({"assistants", "*", "subgraphs"}) || is({"assistants", "*", "subgraphs", "*"})))
    return ok(core_.assistant_subgraphs(p[1], n == 4 ? p[3] : "",
                                        req.query.count("recurse") && truthy(req.query.at("recurse"))));

  // Threads
  if (m == "POST" && is({"threads"})) return ok(core_.create_thread(body));
  if (m == "POST" && is({"threads", "search"})) {
    std::size_t total = 0;
    json found = core_.search_threads(body, &total);
    return Action::of(json_reply(200, found, pagination(body, found.size(), total)));
  }
  if (m == "POST" && is({"threads", "count"})) return ok(core_.count_threads(body));
  if (m == "POST" && is({"threads", "prune"})) return ok(core_.prune_threads(body));
  if (n >= 2 && p[0] == "threads" && p[1] != "search" && p[1] != "count" && p[1] != "prune") {
    const std::string& tid = p[1];
    if (m == "GET" && n == 2) return ok(core_.get_thread(tid));
    if (m == "PATCH" && n == 2) return ok(core_.patch_thread(tid, body));
    if (m == "POST" && is({"threads", "*", "copy"})) return ok(core_.copy_thread(tid));
    if (m == "GET" && is({"threads", "*", "stream"})) {
      // The thread's stream (`threads.joinStream`): stream_mode run_modes (every event, the
      // default), lifecycle (runs starting and ending), state_update (values), or run modes.
      auto log = core_.thread_stream(tid);
      json modes = join_modes(req);
      if (modes.is_array()) {
        json mapped = json::array();
        for (const auto& mode : modes) {
          if (mode == "run_modes") return Action::streaming(log, last_event_id(req), {}, nullptr, nullptr);
          if (mode == "lifecycle") mapped.push_back("end");
          else if (mode == "state_update") mapped.push_back("values");
          else mapped.push_back(mode);
        }
        modes = std::move(mapped);
      }
      return Action::streaming(log, last_event_id(req), {}, nullptr, modes);
    }
    if (m == "DELETE" && n == 2) {
      core_.delete_thread(tid);
      return Action::of(Reply{204, "", "", {}});
    }
    bool subgraphs = req.query.count("subgraphs") && truthy(req.query.at("subgraphs"));
    if (m == "GET" && is({"threads", "*", "state"}))
      return ok(core_.thread_state(tid, std::nullopt, "", subgraphs));
    if (m == "GET" && is({"threads", "*", "state", "*"}))
      return ok(core_.thread_state(tid, p[3], "", subgraphs));
    if (m == "POST" && is({"threads", "*", "state", "checkpoint"})) {
      const json& c = body.value("checkpoint", json::object());
      std::optional<std::string> cp;
      if (c.is_object() && c.contains("checkpoint_id") && c["checkpoint_id"].is_string()) cp = c["checkpoint_id"].get<std::string>();
      std::string ns = c.is_object() && c.contains("checkpoint_ns") && c["checkpoint_ns"].is_string() ? c["checkpoint_ns"].get<std::string>() : "";
      return ok(core_.thread_state(tid, cp, ns, body.value("subgraphs", false)));
    }
    if (m == "POST" && is({"threads", "*", "state"})) return ok(core_.update_state(tid, body));
    if (m == "PATCH" && is({"threads", "*", "state"})) return ok(core_.patch_state(tid, body));
    if (m == "POST" && is({"threads", "*", "history"})) return ok(core_.thread_history(tid, body));
    if (m == "GET" && is({"threads", "*", "history"})) {
      json b = {{"limit", query_size(req, "limit", 10)}};
      if (req.query.count("before")) b["before"] = req.query.at("before");
      return ok(core_.thread_history(tid, b));
    }
    if (m == "POST" && is({"threads", "*", "runs", "crons"})) return ok(core_.crons().create(tid, body));
    if (m == "POST" && (is({"threads", "*", "runs"}) || is({"threads", "*", "runs", "wait"}) ||
                        is({"threads", "*", "runs", "stream"})))
      return runs_post(body, tid, n == 3 ? "create" : p[3]);
    if (m == "GET" && is({"threads", "*", "runs"})) {
      json q = {{"limit", query_size(req, "limit", 10)}, {"offset", query_size(req, "offset", 0)}};
      if (req.query.count("status")) q["status"] = req.query.at("status");
      if (req.query.count("select")) q["select"] = query_list(req.query.at("select"));
      return ok(core_.list_runs(tid, q));
    }
    if (n >= 4 && p[2] == "runs") {
      const std::string& rid = p[3];
      if (m == "GET" && n == 4) return ok(core_.get_run(tid, rid));
      if (m == "DELETE" && n == 4) {
        core_.delete_run(tid, rid);
        return Action::of(Reply{204, "", "", {}});
      }
      if (m == "GET" && is({"threads", "*", "runs", "*", "join"})) {
        auto log = core_.run_log(tid, rid);
        return Action::waiting(log, rid, {}, nullptr);
      }
      if (m == "GET" && is({"threads", "*", "runs", "*", "stream"})) {
        auto log = core_.run_log(tid, rid);
        std::int64_t after = last_event_id(req);
        std::function<void()> on_disconnect;
        if (req.query.count("cancel_on_disconnect") && truthy(req.query.at("cancel_on_disconnect")))
          on_disconnect = [this, tid, rid] { core_.cancel_run(tid, rid, "interrupt"); };
        return Action::streaming(log, after, {}, on_disconnect, join_modes(req));
      }
      if (m == "POST" && is({"threads", "*", "runs", "*", "cancel"})) {
        std::string action = req.query.count("action") ? req.query.at("action") : "interrupt";
        auto log = core_.cancel_run(tid, rid, action);
        if (req.query.count("wait") && truthy(req.query.at("wait"))) {
          Action a;
          a.kind = Action::cancel_wait;
          a.log = log;
          return a;
        }
        return Action::of(Reply{202, "", "", {}});
      }
    }
  }
  // The store (client.store)
  if (n >= 2 && p[0] == "store") {
    StoreApi& store = core_.store_api();
    if (m == "PUT" && is({"store", "items"})) {
      store.put(body);
      return Action::of(Reply{204, "", "", {}});
    }
    if (m == "DELETE" && is({"store", "items"})) {
      store.remove(body);
      return Action::of(Reply{204, "", "", {}});
    }
    if (m == "GET" && is({"store", "items"})) {
      auto ns = req.query.find("namespace");
      auto key = req.query.find("key");
      return ok(store.get(ns == req.query.end() ? "" : ns->second, key == req.query.end() ? "" : key->second));
    }
    if (m == "POST" && is({"store", "items", "search"})) return ok(store.search(body));
    if (m == "POST" && is({"store", "namespaces"})) return ok(store.namespaces(body));
  }
  // Crons
  if (n >= 2 && p[0] == "runs" && p[1] == "crons") {
    Crons& crons = core_.crons();
    if (m == "POST" && n == 2) return ok(crons.create(std::nullopt, body));
    if (m == "POST" && is({"runs", "crons", "search"})) {
      std::size_t total = 0;
      json found = crons.search(body, &total);
      return Action::of(json_reply(200, found, pagination(body, found.size(), total)));
    }
    if (m == "POST" && is({"runs", "crons", "count"})) return ok(crons.count(body));
    if (m == "PATCH" && n == 3) return ok(crons.patch(p[2], body));
    if (m == "DELETE" && n == 3) {
      crons.remove(p[2]);
      return Action::of(Reply{204, "", "", {}});
    }
  }
  if (m == "POST" && is({"runs", "cancel"})) {
    core_.cancel_runs(body, req.query.count("action") ? req.query.at("action") : "interrupt");
    return Action::of(Reply{204, "", "", {}});
  }
  if (m == "POST" && is({"runs", "batch"})) {
    if (!body.is_array()) throw HttpError(422, "runs batch: the body must be an array of run payloads");
    json runs = json::array();
    for (std::size_t i = 0; i < body.size(); ++i) {
      try {
        runs.push_back(core_.create_run(std::nullopt, body[i]).run);
      } catch (const HttpError& e) {
        throw HttpError(e.status, "runs batch: item " + std::to_string(i) + ": " + e.what() +
                                      (i ? " (the " + std::to_string(i) + " before it were created)" : ""));
      } catch (const json::exception& e) {  // a field of the wrong type, found before the run existed
        throw HttpError(422, "runs batch: item " + std::to_string(i) + ": the request does not have the expected shape: " +
                                 e.what() + (i ? " (the " + std::to_string(i) + " before it were created)" : ""));
      }
    }
    return ok(runs);
  }
  // Stateless runs
  if (m == "POST" && (is({"runs"}) || is({"runs", "wait"}) || is({"runs", "stream"})))
    return runs_post(body, std::nullopt, n == 1 ? "create" : p[1]);
  if (m == "GET" && is({"runs", "*", "stream"})) {
    auto log = core_.run_log(std::nullopt, p[1]);
    return Action::streaming(log, -1, {}, nullptr, join_modes(req));
  }
  if (m == "GET" && is({"runs", "*", "join"})) {
    auto log = core_.run_log(std::nullopt, p[1]);
    return Action::waiting(log, p[1], {}, nullptr);
  }
  return Action::of(error_reply(404, "Not Found: " + m + " " + req.path));
}

Routes::Action Routes::runs_post(const json& body, const std::optional<std::string>& thread_id, const std::string& kind) {
  Core::Created c = core_.create_run(thread_id, body);
  std::string rid = c.run["run_id"], tid = c.run["thread_id"];
  std::string location = thread_id ? "/threads/" + tid + "/runs/" + rid : "/runs/" + rid;
  Headers headers = {{"Content-Location", location}};
  bool cancel_on_disconnect = c.run["kwargs"]["on_disconnect"] == "cancel";  // checked by create_run
  std::function<void()> on_disconnect;
  if (cancel_on_disconnect) on_disconnect = [this, rid] { core_.cancel_run(std::nullopt, rid, "interrupt"); };
  if (kind == "create") return Action::of(json_reply(200, c.run, headers));
  if (kind == "wait") return Action::waiting(c.log, rid, headers, on_disconnect);
  headers.emplace_back("Location", location + "/stream");
  return Action::streaming(c.log, -1, headers, on_disconnect, nullptr);
}

namespace {

/// Follows a run's event log from a connection's coroutine: wait() returns when the log grows
/// or closes, when the client closes the connection, or at the timeout. The wake-ups arrive on
/// the connection's strand, where the coroutine runs.
class LogWatch {
 public:
  /// `close_only`: woken when the log closes, not per event (a wait for the run's end).
  LogWatch(Conn& conn, std::shared_ptr<EventLog> log, bool close_only = false)
      : conn_(conn), log_(std::move(log)), timer_(std::make_shared<asio::steady_timer>(conn.executor())) {
    token_ = log_->subscribe(
        [timer = timer_, exec = conn.executor(), dirty = dirty_] {
          // One wake-up for what is appended until the watcher looks: events appended while
          // one is on its way are read by the same look.
          if (!dirty->exchange(true)) asio::post(exec, [timer] { timer->cancel(); });
        },
        close_only);
    conn_.watch_close([timer = timer_, gone = gone_] {
      *gone = true;
      timer->cancel();
    });
  }
  ~LogWatch() {
    log_->unsubscribe(token_);
    conn_.unwatch();
  }
  LogWatch(const LogWatch&) = delete;
  LogWatch& operator=(const LogWatch&) = delete;

  bool client_gone() const { return *gone_; }
  /// True when `timeout` passed with nothing new.
  asio::awaitable<bool> wait(std::chrono::steady_clock::duration timeout) {
    if (dirty_->exchange(false) || *gone_) co_return false;
    timer_->expires_after(timeout);
    auto [ec] = co_await timer_->async_wait(use_tuple);
    dirty_->store(false);
    co_return !ec;
  }

 private:
  Conn& conn_;
  std::shared_ptr<EventLog> log_;
  std::shared_ptr<asio::steady_timer> timer_;
  std::shared_ptr<std::atomic<bool>> dirty_ = std::make_shared<std::atomic<bool>>(false);  // set by the run's thread
  std::shared_ptr<bool> gone_ = std::make_shared<bool>(false);  // on the strand only
  std::uint64_t token_ = 0;
};

}  // namespace

asio::awaitable<void> Routes::cancel_wait(Conn& conn, std::shared_ptr<EventLog> log) {
  {
    LogWatch watch(conn, log, /*close_only=*/true);
    while (!log->closed() && !watch.client_gone()) co_await watch.wait(std::chrono::seconds(1));
  }
  Reply done{204, "", "", {}};
  co_await conn.send(std::move(done));
}

asio::awaitable<void> Routes::stream(Conn& conn, std::shared_ptr<EventLog> log, std::int64_t after, Headers headers,
                                     std::function<void()> on_disconnect, json modes) {
  std::string sse = "text/event-stream";
  // The head is held while a run's first stretch queued on this thread executes (as in wait()),
  // then goes out with the first events: a short run's whole stream is one write.
  if (!co_await conn.begin(200, std::move(sse), std::move(headers), /*hold=*/true)) {
    if (on_disconnect) on_disconnect();
    co_return;
  }
  co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  {
    LogWatch watch(conn, log);
    while (!watch.client_gone()) {
      EventLog::Read r = log->read_after(after);
      std::string out;
      for (const Event& e : r.events) {
        after = e.id;
        if (!mode_wanted(modes, e.name)) continue;
        out += "event: " + e.name + "\ndata: " + e.data + "\nid: " + std::to_string(e.id) + "\n\n";
      }
      if (r.closed) {
        co_await conn.end_with(std::move(out));  // the last events and the end in one write
        co_return;
      }
      if (!(out.empty() ? co_await conn.flush() : co_await conn.write(std::move(out)))) break;
      if (co_await watch.wait(core_.options().heartbeat)) {
        std::string heartbeat = ": heartbeat\n\n";
        if (!co_await conn.write(std::move(heartbeat))) break;
      }
    }
  }
  // The client is gone.
  if (on_disconnect) on_disconnect();
}

asio::awaitable<void> Routes::wait(Conn& conn, std::shared_ptr<EventLog> log, const std::string& run_id,
                                   Headers headers, std::function<void()> on_disconnect) {
  std::string content_type = "application/json";
  // The head is held while the run's first stretch, queued on this thread just before
  // (io_threads.hpp), executes: a run that ends in it (all of a graph of plain nodes) is answered
  // in one write, one wake-up of the client; otherwise the head goes out right after it.
  if (!co_await conn.begin(200, std::move(content_type), std::move(headers), /*hold=*/true)) {
    if (on_disconnect) on_disconnect();
    co_return;
  }
  co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  bool gone = false;
  if (!log->closed() && !co_await conn.flush()) gone = true;
  if (!gone) {
    LogWatch watch(conn, log, /*close_only=*/true);
    while (!log->closed()) {
      if (watch.client_gone()) {
        gone = true;
        break;
      }
      if (co_await watch.wait(std::chrono::seconds(1))) {
        std::string newline = "\n";  // keeps clients and proxies from timing out
        if (!co_await conn.write(std::move(newline))) {
          gone = true;
          break;
        }
      }
    }
  }
  if (gone) {
    if (on_disconnect) on_disconnect();
    co_return;
  }
  co_await conn.end_with(dump_wire(core_.wait_body(run_id)));
}

}  // namespace superstep::server
