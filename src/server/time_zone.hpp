// TimeZone: an IANA time zone read from the system's tz database (TZif files under
// /usr/share/zoneinfo, or $TZDIR): the UTC offset at any instant, and the instants a local
// time names. Crons are scheduled in one (cron_schedule.hpp). libstdc++ 12 has no
// std::chrono::tzdb, and localtime_r under a changed $TZ is process-global, hence this reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace superstep::server {

class TimeZone {
 public:
  /// UTC.
  TimeZone() = default;
  /// Loads `name` ("America/New_York", "UTC", "Europe/Paris"). Throws std::invalid_argument
  /// naming the zone when it is not a zone name or its file cannot be read.
  static TimeZone load(const std::string& name);

  const std::string& name() const { return name_; }
  /// Seconds east of UTC in effect at `utc` (seconds since the epoch).
  std::int32_t offset_at(std::int64_t utc) const;
  /// The instant a local time (seconds since the epoch, as if the zone were UTC) names: the
  /// earlier one when a clock set back repeats it, nullopt when a clock set forward skips it.
  std::optional<std::int64_t> to_utc(std::int64_t local) const;

 private:
  /// A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0"): the zone after its last listed transition.
  struct Rule {
    std::int32_t std_offset = 0, dst_offset = 0;
    bool has_dst = false;
    // Each change: month (1-12), week (1-5, 5 = last), weekday (0 = Sunday), or a Julian
    // day (kind 'J': 1-365 without Feb 29; 'n': 0-365), and the local time of day it happens.
    struct Change {
      char kind = 'M';
      int month = 0, week = 0, weekday = 0, day = 0;
      std::int32_t time = 7200;
    } start, end;
  };
  static Rule parse_rule(const std::string& text, const std::string& zone);
  std::int32_t rule_offset(std::int64_t utc) const;

  std::string name_ = "UTC";
  std::vector<std::int64_t> transitions_;     ///< UTC instants, ascending
  std::vector<std::int32_t> offsets_after_;   ///< the offset from each transition on
  std::int32_t initial_offset_ = 0;           ///< before the first transition
  std::optional<Rule> rule_;                  ///< after the last transition
};

}  // namespace superstep::server
