#include "server/crons.hpp"

#include <stdexcept>

#include "server/civil_time.hpp"
#include "server/core.hpp"
#include "server/cron_schedule.hpp"
#include "server/time_zone.hpp"
#include "server/wire.hpp"

namespace superstep::server {

namespace {

/// The fields of a cron body that are the cron's own; the rest is the payload of its runs.
bool cron_field(const std::string& key) {
  return key == "schedule" || key == "end_time" || key == "timezone" || key == "enabled" ||
         key == "on_run_completed" || key == "metadata" || key == "if_not_exists";
}

void check_schedule(const json& body) {
  if (!body.contains("schedule") || !body["schedule"].is_string())
    throw HttpError(422, "cron: 'schedule' (a cron expression such as \"0 9 * * MON-FRI\") is required");
  try {
    CronSchedule{body["schedule"].get<std::string>()};
  } catch (const std::invalid_argument& e) {
    throw HttpError(422, e.what());
  }
}

void check_timezone(const json& tz) {
  if (tz.is_null()) return;
  if (!tz.is_string()) throw HttpError(422, "cron: 'timezone' must be an IANA time zone name or null");
  try {
    TimeZone::load(tz.get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw HttpError(422, std::string("cron: ") + e.what());
  }
}

json check_end_time(const json& end) {
  if (end.is_null()) return nullptr;
  if (!end.is_string() || !parse_iso(end.get<std::string>()))
    throw HttpError(422, "cron: 'end_time' must be an ISO-8601 timestamp or null");
  return iso_of(*parse_iso(end.get<std::string>()));
}

void check_payload(const json& body) {
  for (const char* key : {"input", "config", "context"})
    if (body.contains(key) && !body[key].is_null() && !body[key].is_object())
      throw HttpError(422, std::string("cron: '") + key + "' must be an object or null");
  if (body.contains("multitask_strategy") && !body["multitask_strategy"].is_null()) {
    const json& s = body["multitask_strategy"];
    if (!s.is_string() || (s != "reject" && s != "interrupt" && s != "rollback" && s != "enqueue"))
      throw HttpError(422, "cron: 'multitask_strategy' must be one of reject, interrupt, rollback, enqueue");
  }
  if (body.contains("enabled") && !body["enabled"].is_boolean()) throw HttpError(422, "cron: 'enabled' must be a boolean");
  if (body.contains("metadata") && !body["metadata"].is_null() && !body["metadata"].is_object())
    throw HttpError(422, "cron: 'metadata' must be an object");
  if (body.contains("on_run_completed") && !body["on_run_completed"].is_null() &&
      body["on_run_completed"] != "delete" && body["on_run_completed"] != "keep")
    throw HttpError(422, "cron: 'on_run_completed' must be \"delete\" or \"keep\"");
}

}  // namespace

Crons::Crons(Core& core, Records& records, Clock clock, boost::asio::io_context& io, std::chrono::milliseconds poll)
    : core_(core), records_(records), clock_(std::move(clock)), io_(io), poll_(poll) {
  if (!clock_) clock_ = [] { return std::chrono::system_clock::now(); };
  if (poll_ <= std::chrono::milliseconds(0)) poll_ = std::chrono::milliseconds(1000);
}

Crons::~Crons() { stop(); }

std::int64_t Crons::now_seconds() const {
  return std::chrono::duration_cast<std::chrono::seconds>(clock_().time_since_epoch()).count();
}

void Crons::start() {
  std::lock_guard lock(mutex_);
  for (json& c : records_.load("crons")) {
    std::string id = c["cron_id"];
    crons_[id] = std::move(c);
  }
  timer_ = std::make_shared<boost::asio::steady_timer>(io_);
  stopped_ = false;
  arm();
}

void Crons::arm() {  // mutex held
  timer_->expires_after(poll_);
  timer_->async_wait([this, timer = timer_](const boost::system::error_code& ec) {
    if (ec) return;
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return;
    }
    try {
      fire_due();
      core_.sweep_threads(now_seconds());  // the same clock decides when a thread's ttl runs out
    } catch (const std::exception& e) {
      core_.log_line(std::string("crons: ") + e.what());
    }
    std::lock_guard lock(mutex_);
    if (!stopped_) arm();
  });
}

void Crons::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  if (timer_) timer_->cancel();
}

json Crons::next_run(const json& cron, std::int64_t after) {
  if (!cron.value("enabled", true)) return nullptr;
  const json& tz = cron.contains("timezone") ? cron["timezone"] : json(nullptr);
  auto next = CronSchedule(cron["schedule"].get<std::string>())
                  .next_after(after, tz.is_string() ? TimeZone::load(tz.get<std::string>()) : TimeZone{});
  if (!next) return nullptr;
  if (cron["end_time"].is_string() && *next > *parse_iso(cron["end_time"].get<std::string>())) return nullptr;
  return iso_of(*next);
}

json Crons::create(const std::optional<std::string>& thread_id, const json& body) {
  require_object(body, "cron create");
  check_schedule(body);
  check_payload(body);
  json tz = body.contains("timezone") ? body["timezone"] : json(nullptr);
  check_timezone(tz);
  json end_time = check_end_time(body.contains("end_time") ? body["end_time"] : json(nullptr));
  if (!body.contains("assistant_id") || !body["assistant_id"].is_string())
    throw HttpError(422, "cron: 'assistant_id' (an assistant id or a graph id) is required");
  std::string assistant_id = core_.get_assistant(body["assistant_id"].get<std::string>())["assistant_id"];
  if (thread_id) core_.get_thread(*thread_id);  // 404 when unknown

  json payload = json::object();
  for (auto it = body.begin(); it != body.end(); ++it)
    if (!cron_field(it.key()) && !it->is_null()) payload[it.key()] = *it;
  payload["assistant_id"] = assistant_id;
  std::string now = now_iso();
  json cron = {{"cron_id", new_uuid()},
               {"assistant_id", assistant_id},
               {"thread_id", thread_id ? json(*thread_id) : json(nullptr)},
               {"on_run_completed", thread_id ? json(nullptr) : json(body.value("on_run_completed", json("delete")))},
               {"end_time", end_time},
               {"schedule", body["schedule"]},
               {"timezone", tz},
               {"created_at", now},
               {"updated_at", now},
               {"payload", payload},
               {"user_id", nullptr},
               {"metadata", body.contains("metadata") && body["metadata"].is_object() ? body["metadata"] : json::object()},
               {"enabled", body.value("enabled", true)}};
  if (cron["on_run_completed"].is_null() && !thread_id) cron["on_run_completed"] = "delete";
  // Its runs' fields are checked now, as a run's are, not each time it fires (it used to be
  // made with, say, a bad stream_mode, and then never fire).
  Core::check_run_body(payload, thread_id.has_value());
  cron["next_run_date"] = next_run(cron, now_seconds());
  std::lock_guard lock(mutex_);
  records_.put("crons", cron["cron_id"], cron);
  crons_[cron["cron_id"].get<std::string>()] = cron;
  return cron;
}

json Crons::patch(const std::string& cron_id, const json& body) {
  require_object(body, "cron update");
  check_payload(body);
  if (body.contains("schedule")) check_schedule(body);
  if (body.contains("timezone")) check_timezone(body["timezone"]);
  json end_time = body.contains("end_time") ? check_end_time(body["end_time"]) : json(nullptr);
  std::int64_t now = now_seconds();
  std::lock_guard lock(mutex_);
  auto it = crons_.find(cron_id);
  if (it == crons_.end()) throw HttpError(404, "Cron with ID " + cron_id + " not found");
  json cron = it->second;
  for (auto f = body.begin(); f != body.end(); ++f) {
    const std::string& key = f.key();
    if (key == "schedule" || key == "timezone" || key == "enabled") cron[key] = *f;
    else if (key == "end_time") cron[key] = end_time;
    else if (key == "on_run_completed") {
      if (!cron["thread_id"].is_null()) throw HttpError(422, "cron: 'on_run_completed' applies to stateless crons only");
      cron[key] = f->is_null() ? json("delete") : *f;
    } else if (key == "metadata") {
      if (f->is_object())
        for (auto m = f->begin(); m != f->end(); ++m) cron["metadata"][m.key()] = *m;
    } else if (!cron_field(key) && key != "assistant_id") {
      if (f->is_null()) cron["payload"].erase(key);
      else cron["payload"][key] = *f;
    }
  }
  Core::check_run_body(cron["payload"], cron["thread_id"].is_string());
  cron["updated_at"] = now_iso();
  cron["next_run_date"] = next_run(cron, now);
  records_.put("crons", cron_id, cron);
  return it->second = std::move(cron);
}

void Crons::remove(const std::string& cron_id) {
  std::lock_guard lock(mutex_);
  if (!crons_.erase(cron_id)) throw HttpError(404, "Cron with ID " + cron_id + " not found");
  records_.remove("crons", cron_id);
}

void Crons::remove_for(const char* field, const std::string& id) {
  std::lock_guard lock(mutex_);
  for (auto it = crons_.begin(); it != crons_.end();) {
    if (it->second[field] == id) {
      records_.remove("crons", it->first);
      it = crons_.erase(it);
    } else {
      ++it;
    }
  }
}

json Crons::search(const json& body, std::size_t* total) {
  require_object(body, "crons search");
  std::string assistant_id;
  if (body.contains("assistant_id") && body["assistant_id"].is_string())
    assistant_id = core_.get_assistant(body["assistant_id"].get<std::string>())["assistant_id"];
  std::lock_guard lock(mutex_);
  std::vector<const json*> hits;
  for (const auto& [id, c] : crons_) {
    if (!assistant_id.empty() && c["assistant_id"] != assistant_id) continue;
    if (body.contains("thread_id") && body["thread_id"].is_string() && c["thread_id"] != body["thread_id"]) continue;
    if (body.contains("enabled") && body["enabled"].is_boolean() && c["enabled"] != body["enabled"]) continue;
    hits.push_back(&c);
  }
  return page(std::move(hits), body, "created_at", total);
}

json Crons::count(const json& body) {
  std::size_t total = 0;
  search(count_query(body), &total);
  return total;
}

std::size_t Crons::fire_due() {
  std::int64_t now = now_seconds();
  std::vector<json> due;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return 0;
    for (auto& [id, c] : crons_) {
      if (!c["enabled"].get<bool>() || !c["next_run_date"].is_string()) continue;
      if (*parse_iso(c["next_run_date"].get<std::string>()) > now) continue;
      due.push_back(c);
      c["next_run_date"] = next_run(c, now);
      records_.put("crons", id, c);
    }
  }
  std::size_t fired = 0;
  for (const json& c : due) {
    json body = c["payload"];
    body["metadata"] = deep_merge(c["metadata"], json{{"cron_id", c["cron_id"]}});
    std::optional<std::string> thread;
    if (c["thread_id"].is_string()) thread = c["thread_id"].get<std::string>();
    else body["on_completion"] = c["on_run_completed"].is_string() ? c["on_run_completed"] : json("delete");
    try {
      json run = core_.create_run(thread, body).run;
      core_.log_line("cron " + c["cron_id"].get<std::string>() + " fired run " + run["run_id"].get<std::string>());
      ++fired;
    } catch (const std::exception& e) {
      core_.log_line("cron " + c["cron_id"].get<std::string>() + " did not fire: " + e.what());
    }
  }
  return fired;
}

}  // namespace superstep::server
