// EventLog: the SSE events of one run, kept so that every stream on the run (the one that
// created it, joins, rejoins with Last-Event-ID) reads the same numbered events. Bounded (10k
// events or 10 MB: the oldest are dropped), appended by the run's driver, read by any number
// of subscribers, each woken by a callback when something is appended or the log closes.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "superstep/json.hpp"

namespace superstep::server {

struct Event {
  std::int64_t id;
  std::string name;  ///< SSE `event:`
  std::string data;  ///< SSE `data:` (compact JSON)
};

class EventLog {
 public:
  static constexpr std::size_t max_events = 10000;
  static constexpr std::size_t max_bytes = 10u << 20;

  /// Continues numbering after `first_id - 1` (a run resumed after a restart).
  explicit EventLog(std::int64_t first_id = 0) : next_id_(first_id) {}

  /// The kept events as `[[id, name, data], ...]` (a resumable run's log is stored so).
  json to_json() const;
  /// Puts stored events (to_json()'s form) before the ones to come; ids keep their numbers.
  void restore(const json& events);

  /// Appends an event and wakes the subscribers; returns its id.
  std::int64_t append(std::string name, std::string data);
  /// No more events: subscribers see `closed` once they have read everything.
  void close();
  /// From now on every append is also appended to `to` (a thread's stream: its runs' events),
  /// with `to`'s own ids.
  void mirror_to(std::shared_ptr<EventLog> to);
  std::shared_ptr<EventLog> mirror() const;

  struct Read {
    std::vector<Event> events;
    bool closed = false;
  };
  /// The events with id > `after` (-1: all that are kept).
  Read read_after(std::int64_t after) const;
  std::int64_t next_id() const;
  bool closed() const;

  using Waker = std::function<void()>;
  /// `wake` is called (from the appending thread, without the log's lock) on each append and
  /// on close; with `close_only`, on close alone (a waiter for the run's end, which reads no
  /// events: no wake-up per event). Returns a token for unsubscribe.
  std::uint64_t subscribe(Waker wake, bool close_only = false);
  void unsubscribe(std::uint64_t token);

 private:
  void wake_all(bool closing);
  mutable std::mutex mutex_;
  std::deque<Event> events_;
  std::size_t bytes_ = 0;
  std::int64_t next_id_;
  bool closed_ = false;
  std::uint64_t next_token_ = 1;
  struct Subscriber {
    Waker wake;
    bool close_only;
  };
  std::map<std::uint64_t, Subscriber> wakers_;
  std::shared_ptr<EventLog> mirror_;
};

}  // namespace superstep::server
