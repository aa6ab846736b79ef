// CronSchedule: a cron expression ("*/15 9-17 * * MON-FRI", "@daily") and the next instant it
// fires after a given one, in a time zone. Five fields (minute, hour, day of month, month, day
// of week) with lists, ranges, steps and English names, as Vixie cron and Python's croniter
// (what LangGraph Platform schedules with) read them: when both day fields are restricted, a
// day matching either fires. Local times a clock change skips do not fire; a repeated one
// fires once, at its first occurrence.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

#include "server/time_zone.hpp"

namespace superstep::server {

class CronSchedule {
 public:
  /// Throws std::invalid_argument naming the field and what is wrong with it.
  explicit CronSchedule(const std::string& expression);
  const std::string& expression() const { return expression_; }
  /// The first firing strictly after `utc` (seconds since the epoch), in `zone`; nullopt when
  /// there is none within the next 10 years (e.g. "0 0 30 2 *").
  std::optional<std::int64_t> next_after(std::int64_t utc, const TimeZone& zone) const;

 private:
  bool day_matches(std::int64_t days) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  ///< 1-31
  std::bitset<13> months_;         ///< 1-12
  std::bitset<7> days_of_week_;    ///< 0 = Sunday
  bool dom_any_ = false, dow_any_ = false;
};

}  // namespace superstep::server
