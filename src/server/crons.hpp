// Crons: scheduled runs (`client.crons`): a cron expression in a time zone, a run payload, and
// a thread (each firing runs on it) or none (each firing makes a thread, deleted after the run
// unless `on_run_completed` is "keep"). Kept as records beside the server's others, so they
// survive restarts. A timer looks for due crons every `cron_poll`; a due cron fires once and
// its next firing is computed from the clock's now, so firings missed while the server was
// stopped fire once at start (LangGraph Platform's scheduler does the same), not once each.
// The same timer and clock also sweep threads whose ttl ran out (Core::sweep_threads).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/records.hpp"
#include "superstep/json.hpp"

namespace superstep::server {

class Core;

class Crons {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  Crons(Core& core, Records& records, Clock clock, boost::asio::io_context& io, std::chrono::milliseconds poll);
  ~Crons();

  /// Loads the stored crons and starts the timer.
  void start();
  /// Stops the timer (no firing after it returns).
  void stop();

  /// `POST /threads/{id}/runs/crons` (thread_id set) and `POST /runs/crons`.
  json create(const std::optional<std::string>& thread_id, const json& body);
  json patch(const std::string& cron_id, const json& body);
  void remove(const std::string& cron_id);
  json search(const json& body, std::size_t* total);
  json count(const json& body);
  /// A thread's or an assistant's crons go with it.
  void remove_for(const char* field, const std::string& id);
  /// Fires every enabled cron due at the clock's now; returns how many fired.
  std::size_t fire_due();

 private:
  /// The next firing after `after` of a cron document (null past its end_time or when never).
  static json next_run(const json& cron, std::int64_t after);
  std::int64_t now_seconds() const;
  void arm();

  Core& core_;
  Records& records_;
  Clock clock_;
  boost::asio::io_context& io_;
  std::chrono::milliseconds poll_;
  std::mutex mutex_;
  std::map<std::string, json> crons_;  ///< by cron_id
  std::shared_ptr<boost::asio::steady_timer> timer_;
  bool stopped_ = false;
};

}  // namespace superstep::server
