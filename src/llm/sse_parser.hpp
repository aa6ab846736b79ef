// SseParser: incremental parser of a text/event-stream body (the WHATWG server-sent events
// format) as chat servers send it. feed() takes the bytes as they arrive, in any split, and
// calls back once per complete event with its type and data (several data lines joined by
// '\n'). Lines end with LF or CRLF; comment lines (":...") are skipped. Not thread-safe.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace superstep::internal {

class SseParser {
 public:
  /// Parses `bytes`; `on_event(std::string_view event, std::string_view data)` for each event
  /// completed by them. The views are valid during the call only.
  template <class F>
  void feed(std::string_view bytes, F&& on_event) {
    if (!partial_.empty()) {
      // Complete the line split by the previous chunk.
      const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
      if (!nl) {
        partial_.append(bytes);
        return;
      }
      partial_.append(bytes.data(), nl);
      std::string line = std::move(partial_);
      partial_.clear();
      this->line(line, on_event);
      bytes.remove_prefix(static_cast<std::size_t>(nl - bytes.data()) + 1);
    }
    while (!bytes.empty()) {
      const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
      if (!nl) {
        partial_.assign(bytes);
        return;
      }
      this->line(std::string_view(bytes.data(), static_cast<std::size_t>(nl - bytes.data())), on_event);
      bytes.remove_prefix(static_cast<std::size_t>(nl - bytes.data()) + 1);
    }
  }

  /// True when bytes of an unfinished line or event are buffered (a stream cut mid-event).
  bool pending() const noexcept { return !partial_.empty() || has_data_; }

 private:
  template <class F>
  void line(std::string_view l, F& on_event) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty()) {
      if (has_data_) on_event(std::string_view(event_), std::string_view(data_));
      has_data_ = false;
      data_.clear();
      event_.clear();
      return;
    }
    if (l.front() == ':') return;
    std::size_t colon = l.find(':');
    std::string_view field = l.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
    } else if (field == "event") {
      event_.assign(value);
    }
  }

  std::string partial_;  // an unfinished line
  std::string data_;     // the event's data so far
  std::string event_;    // the event's type ("" = "message")
  bool has_data_ = false;
};

}  // namespace superstep::internal
