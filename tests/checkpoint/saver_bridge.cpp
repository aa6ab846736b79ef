// superstep-saver-bridge: serves a CheckpointSaver over the six JSON endpoints of
// ../shared/interop/checkpoint-validation (LangGraph's checkpoint validation suite, bridged).
//
//   superstep-saver-bridge --saver memory|sqlite|postgres [--db FILE] [--dsn DSN] [--port P]   (P = 0, the default: any free port)
#include <httplib.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include <superstep/checkpoint/memory_saver.hpp>
#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/errors.hpp>

namespace sp = superstep;
using sp::json;

namespace {

/// `config.configurable` with every key optional, as the suite sends it.
struct LooseConfig {
  std::optional<std::string> thread_id, checkpoint_ns, checkpoint_id;
};
std::optional<std::string> text_of(const json& c, const char* key) {
  if (!c.is_object() || !c.contains(key) || c[key].is_null()) return std::nullopt;
  return c[key].is_string() ? c[key].get<std::string>() : c[key].dump();
}
LooseConfig loose(const json& config) {
  const json c = config.is_object() ? config.value("configurable", json::object()) : json::object();
  return {text_of(c, "thread_id"), text_of(c, "checkpoint_ns"), text_of(c, "checkpoint_id")};
}

struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Bridge {
 public:
  Bridge(std::string kind, std::string db) : kind_(std::move(kind)), db_(std::move(db)) { reset(); }

  json call(const std::string& op, const json& body) {
    std::lock_guard lock(mutex_);
    if (op == "reset") {
      reset();
      return json::object();
    }
    if (op == "put") {
      LooseConfig c = loose(body.value("config", json()));
      if (!c.thread_id) throw BadRequest("thread_id is required");
      sp::CheckpointConfig cfg{*c.thread_id, c.checkpoint_ns.value_or(""), c.checkpoint_id};
      auto out = saver_->put(cfg, sp::Checkpoint::from_json(body.at("checkpoint")), body.value("metadata", json::object()),
                             body.value("new_versions", json::object()));
      return json{{"config", out.to_json()}};
    }
    if (op == "put_writes") {
      LooseConfig c = loose(body.value("config", json()));
      if (!c.thread_id) throw BadRequest("thread_id is required");
      if (!c.checkpoint_id) throw BadRequest("checkpoint_id is required");
      std::vector<std::pair<std::string, json>> writes;
      for (const auto& w : body.value("writes", json::array())) writes.emplace_back(w.at(0).get<std::string>(), w.at(1));
      std::string task_path = body.contains("task_path") && body["task_path"].is_string() ? body["task_path"].get<std::string>() : "";
      saver_->put_writes({*c.thread_id, c.checkpoint_ns.value_or(""), c.checkpoint_id}, writes,
                         body.at("task_id").get<std::string>(), task_path);
      return json::object();
    }
    if (op == "get_tuple") {
      LooseConfig c = loose(body.value("config", json()));
      if (!c.thread_id) return json{{"tuple", nullptr}};
      auto t = saver_->get_tuple({*c.thread_id, c.checkpoint_ns.value_or(""), c.checkpoint_id});
      return json{{"tuple", t ? t->to_json() : json(nullptr)}};
    }
    if (op == "list") {
      LooseConfig c = loose(body.value("config", json()));
      sp::CheckpointQuery q;
      q.thread_id = c.thread_id;
      q.checkpoint_ns = c.checkpoint_ns;
      q.checkpoint_id = c.checkpoint_id;
      if (body.contains("filter") && body["filter"].is_object()) q.filter = body["filter"];
      if (body.contains("limit") && body["limit"].is_number()) q.limit = body["limit"].get<std::size_t>();
      if (body.contains("before") && !body["before"].is_null()) q.before = loose(body["before"]).checkpoint_id;
      json tuples = json::array();
      for (const auto& t : saver_->list(q)) tuples.push_back(t.to_json());
      return json{{"tuples", std::move(tuples)}};
    }
    if (op == "delete_thread") {
      saver_->delete_thread(text_of(body, "thread_id").value_or(""));
      return json::object();
    }
    throw BadRequest("unknown operation '" + op + "'");
  }

 private:
  void reset() {
    if (kind_ == "memory") {
      saver_ = std::make_shared<sp::InMemorySaver>();
    } else if (kind_ == "postgres") {
      if (!saver_) saver_ = std::make_shared<sp::PostgresSaver>(db_);
      static_cast<sp::PostgresSaver&>(*saver_).clear();
    } else {
      if (!saver_) saver_ = std::make_shared<sp::SqliteSaver>(db_);
      static_cast<sp::SqliteSaver&>(*saver_).clear();
    }
  }
  std::string kind_, db_;
  std::mutex mutex_;
  std::shared_ptr<sp::CheckpointSaver> saver_;
};

int usage(const std::string& why) {
  std::cerr << "superstep-saver-bridge: " << why << "\nusage: superstep-saver-bridge --saver memory|sqlite|postgres [--db FILE] [--dsn DSN] [--port P]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kind = "memory", db = "saver-bridge.db", dsn;
  int port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--saver") kind = next();
    else if (a == "--db") db = next();
    else if (a == "--dsn") dsn = next();
    else if (a == "--port") port = std::atoi(next().c_str());
    else return usage("unknown argument '" + a + "'");
  }
  if (kind != "memory" && kind != "sqlite" && kind != "postgres")
    return usage("--saver must be memory, sqlite or postgres (got '" + kind + "')");
  if (kind == "postgres") {
    if (dsn.empty()) return usage("--saver postgres needs --dsn");
    db = dsn;
  }
  if (port < 0) return usage("--port must be a port number (0: any free port)");
  Bridge bridge(kind, db);
  httplib::Server server;
  server.Post(R"(/checkpoint/([a-z_]+))", [&](const httplib::Request& req, httplib::Response& res) {
    try {
      json body = req.body.empty() ? json::object() : json::parse(req.body);
      res.set_content(bridge.call(req.matches[1], body).dump(), "application/json");
    } catch (const BadRequest& e) {
      res.status = 400;
      res.set_content(json{{"error", e.what()}}.dump(), "application/json");
    } catch (const std::exception& e) {
      res.status = 500;
      res.set_content(json{{"error", e.what()}}.dump(), "application/json");
    }
  });
  // --port 0: any free port; the line below tells which (scripts/peer-checkpoints reads it).
  int bound = port == 0 ? server.bind_to_any_port("127.0.0.1") : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0) {
    std::cerr << "superstep-saver-bridge: cannot listen on 127.0.0.1:" << port << "\n";
    return 1;
  }
  std::cout << "superstep-saver-bridge: " << kind << " saver on http://127.0.0.1:" << bound << std::endl;
  return server.listen_after_bind() ? 0 : 1;
}
