#include "server/event_log.hpp"

namespace superstep::server {

std::int64_t EventLog::append(std::string name, std::string data) {
  std::int64_t id;
  {
    std::lock_guard lock(mutex_);
    if (mirror_) mirror_->append(name, data);  // under this log's lock: both keep one order
    id = next_id_++;
    bytes_ += name.size() + data.size();
    events_.push_back(Event{id, std::move(name), std::move(data)});
    while (events_.size() > max_events || (bytes_ > max_bytes && events_.size() > 1)) {
      bytes_ -= events_.front().name.size() + events_.front().data.size();
      events_.pop_front();
    }
  }
  wake_all(false);
  return id;
}

void EventLog::mirror_to(std::shared_ptr<EventLog> to) {
  std::lock_guard lock(mutex_);
  mirror_ = std::move(to);
}

std::shared_ptr<EventLog> EventLog::mirror() const {
  std::lock_guard lock(mutex_);
  return mirror_;
}

void EventLog::close() {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
  }
  wake_all(true);
}

EventLog::Read EventLog::read_after(std::int64_t after) const {
  Read r;
  std::lock_guard lock(mutex_);
  r.closed = closed_;
  if (events_.empty() || events_.back().id <= after) return r;
  std::size_t start = 0;
  if (after >= events_.front().id) start = static_cast<std::size_t>(after - events_.front().id + 1);
  for (std::size_t i = start; i < events_.size(); ++i) r.events.push_back(events_[i]);
  return r;
}

json EventLog::to_json() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const Event& e : events_) out.push_back(json::array({e.id, e.name, e.data}));
  return out;
}

void EventLog::restore(const json& events) {
  if (!events.is_array()) return;
  std::lock_guard lock(mutex_);
  std::deque<Event> old;
  for (const json& e : events)
    if (e.is_array() && e.size() == 3 && e[0].is_number_integer() && e[1].is_string() && e[2].is_string())
      old.push_back(Event{e[0].get<std::int64_t>(), e[1].get<std::string>(), e[2].get<std::string>()});
  for (const Event& e : old) bytes_ += e.name.size() + e.data.size();
  events_.insert(events_.begin(), old.begin(), old.end());
  if (!events_.empty() && next_id_ <= events_.back().id) next_id_ = events_.back().id + 1;
}

std::int64_t EventLog::next_id() const {
  std::lock_guard lock(mutex_);
  return next_id_;
}

bool EventLog::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

std::uint64_t EventLog::subscribe(Waker wake, bool close_only) {
  std::lock_guard lock(mutex_);
  std::uint64_t t = next_token_++;
  wakers_.emplace(t, Subscriber{std::move(wake), close_only});
  return t;
}

void EventLog::unsubscribe(std::uint64_t token) {
  std::lock_guard lock(mutex_);
  wakers_.erase(token);
}

void EventLog::wake_all(bool closing) {
  std::vector<Waker> wakers;
  {
    std::lock_guard lock(mutex_);
    wakers.reserve(wakers_.size());
    for (auto& [t, s] : wakers_)
      if (closing || !s.close_only) wakers.push_back(s.wake);
  }
  for (auto& w : wakers) w();
}

}  // namespace superstep::server
