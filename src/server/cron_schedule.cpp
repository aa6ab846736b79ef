#include "server/cron_schedule.hpp"

#include <array>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "server/civil_time.hpp"

namespace superstep::server {

namespace {

struct Field {
  const char* name;
  int low, high;
  std::array<const char*, 13> names;  ///< names[i] is value low + i (empty: none)
};

const Field kFields[5] = {
    {"minute", 0, 59, {}},
    {"hour", 0, 23, {}},
    {"day of month", 1, 31, {}},
    {"month", 1, 12, {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
    {"day of week", 0, 7, {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}},
};

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// The values a field's text selects, as bits low..high.
std::vector<bool> parse_field(const std::string& text, const Field& f, const std::string& expr) {
  auto fail = [&](const std::string& why) {
    return std::invalid_argument("cron schedule '" + expr + "': the " + f.name + " field '" + text + "' " + why);
  };
  auto value = [&](const std::string& s) {
    std::string u = upper(s);
    for (int i = 0; i < 13; ++i)
      if (f.names[i] && u == f.names[i]) return f.low + i;
    if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos)
      throw fail("has '" + s + "', which is not a number" + (f.names[0] ? " or a name" : ""));
    int v = std::stoi(s);
    if (v < f.low || v > f.high)
      throw fail("has " + s + ", out of " + std::to_string(f.low) + "-" + std::to_string(f.high));
    return v;
  };
  std::vector<bool> bits(static_cast<std::size_t>(f.high + 1), false);
  std::stringstream items(text);
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    if (item.empty()) throw fail("has an empty list item");
    int step = 1;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      std::string s = item.substr(slash + 1);
      if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string::npos || std::stoi(s) == 0)
        throw fail("has step '" + s + "', which is not a positive number");
      step = std::stoi(s);
      item = item.substr(0, slash);
    }
    int from, to;
    if (item == "*" || item == "?") {
      from = f.low;
      to = f.high;
    } else if (auto dash = item.find('-'); dash != std::string::npos) {
      from = value(item.substr(0, dash));
      to = value(item.substr(dash + 1));
      if (to < from) throw fail("has the range " + item + ", which runs backwards");
    } else {
      from = value(item);
      to = step > 1 ? f.high : from;  // "5/15": from 5 on, every 15
    }
    for (int v = from; v <= to; v += step) bits[static_cast<std::size_t>(v)] = true;
    any = true;
  }
  if (!any) throw fail("is empty");
  return bits;
}

}  // namespace

CronSchedule::CronSchedule(const std::string& expression) : expression_(expression) {
  std::string expr = expression;
  static const std::pair<const char*, const char*> kMacros[] = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  if (!expr.empty() && expr.front() == '@') {
    bool known = false;
    for (auto [name, text] : kMacros)
      if (expr == name) {
        expr = text;
        known = true;
      }
    if (!known)
      throw std::invalid_argument("cron schedule '" + expression +
                                  "': unknown; the @ forms are @yearly @annually @monthly @weekly @daily @midnight @hourly");
  }
  std::istringstream in(expr);
  std::vector<std::string> parts;
  for (std::string p; in >> p;) parts.push_back(p);
  if (parts.size() != 5)
    throw std::invalid_argument("cron schedule '" + expression + "': has " + std::to_string(parts.size()) +
                                " fields; it needs 5 (minute hour day-of-month month day-of-week)");
  auto bits = [&](int i) { return parse_field(parts[static_cast<std::size_t>(i)], kFields[i], expression); };
  auto m = bits(0), h = bits(1), dom = bits(2), mon = bits(3), dow = bits(4);
  for (std::size_t i = 0; i < 60; ++i) minutes_[i] = m[i];
  for (std::size_t i = 0; i < 24; ++i) hours_[i] = h[i];
  for (std::size_t i = 1; i <= 31; ++i) days_of_month_[i] = dom[i];
  for (std::size_t i = 1; i <= 12; ++i) months_[i] = mon[i];
  for (std::size_t i = 0; i <= 7; ++i)
    if (dow[i]) days_of_week_[i % 7] = true;
  dom_any_ = parts[2].front() == '*' || parts[2].front() == '?';
  dow_any_ = parts[4].front() == '*' || parts[4].front() == '?';
}

bool CronSchedule::day_matches(std::int64_t days) const {
  CivilDate d = civil_from_days(days);
  if (!months_[static_cast<std::size_t>(d.month)]) return false;
  bool dom = days_of_month_[static_cast<std::size_t>(d.day)];
  bool dow = days_of_week_[static_cast<std::size_t>(weekday_of(days))];
  if (dom_any_ || dow_any_) return dom && dow;
  return dom || dow;
}

std::optional<std::int64_t> CronSchedule::next_after(std::int64_t utc, const TimeZone& zone) const {
  std::int64_t local_now = utc + zone.offset_at(utc);
  std::int64_t first_day = floor_div(local_now, 86400) - 1;  // a day back: the zone may be behind
  for (std::int64_t day = first_day; day < first_day + 3660; ++day) {
    if (!day_matches(day)) continue;
    for (std::size_t h = 0; h < 24; ++h) {
      if (!hours_[h]) continue;
      for (std::size_t m = 0; m < 60; ++m) {
        if (!minutes_[m]) continue;
        auto at = zone.to_utc(day * 86400 + static_cast<std::int64_t>(h * 3600 + m * 60));
        if (at && *at > utc) return at;
      }
    }
  }
  return std::nullopt;
}

}  // namespace superstep::server
