#include "server/time_zone.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "server/civil_time.hpp"

namespace superstep::server {

namespace {

std::int64_t be(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

std::invalid_argument bad_zone(const std::string& zone, const std::string& why) {
  return std::invalid_argument("time zone '" + zone + "': " + why);
}

}  // namespace

TimeZone TimeZone::load(const std::string& name) {
  if (name.empty() || name == "UTC" || name == "Etc/UTC" || name == "Z") return TimeZone{};
  // A name, not a path: letters, digits and - _ + / only, no "..".
  bool plain = name.find("..") == std::string::npos && name.front() != '/' &&
               std::all_of(name.begin(), name.end(), [](unsigned char c) {
                 return std::isalnum(c) || c == '/' || c == '_' || c == '-' || c == '+';
               });
  if (!plain) throw bad_zone(name, "not an IANA time zone name (such as America/New_York)");
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw bad_zone(name, "unknown (no " + path + ")");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bytes = reinterpret_cast<const unsigned char*>(data.data());
  auto size = data.size();
  if (size < 44 || data.compare(0, 4, "TZif") != 0) throw bad_zone(name, "not a TZif file: " + path);

  struct Counts {
    std::int64_t isut, isstd, leap, time, type, chars;
  };
  auto counts_at = [&](std::size_t at) {
    if (at + 44 > size) throw bad_zone(name, "truncated file " + path);
    const unsigned char* c = bytes + at + 20;
    Counts counts{be(c, 4), be(c + 4, 4), be(c + 8, 4), be(c + 12, 4), be(c + 16, 4), be(c + 20, 4)};
    // Each count sizes a block of the file: none can be negative or exceed the file (which also
    // keeps the block sizes below from overflowing).
    for (std::int64_t n : {counts.isut, counts.isstd, counts.leap, counts.time, counts.type, counts.chars})
      if (n < 0 || static_cast<std::uint64_t>(n) > size) throw bad_zone(name, "corrupt counts in " + path);
    return counts;
  };
  auto block_size = [](const Counts& c, int t) {
    return static_cast<std::size_t>(c.time * t + c.time + c.type * 6 + c.chars + c.leap * (t + 4) + c.isstd + c.isut);
  };
  char version = data[4];
  Counts c = counts_at(0);
  std::size_t at = 44;
  int width = 4;
  if (version >= '2') {  // skip the 32-bit block: the 64-bit one follows with its own header
    at += block_size(c, 4);
    c = counts_at(at);
    at += 44;
    width = 8;
  }
  if (at + block_size(c, width) > size) throw bad_zone(name, "truncated file " + path);

  TimeZone tz;
  tz.name_ = name;
  const unsigned char* times = bytes + at;
  const unsigned char* indices = times + c.time * width;
  const unsigned char* types = indices + c.time;
  if (c.type < 1) throw bad_zone(name, "no local time types in " + path);
  auto type_offset = [&](std::int64_t i) {
    if (i >= c.type) throw bad_zone(name, "a transition names a missing type in " + path);
    return static_cast<std::int32_t>(be(types + i * 6, 4));
  };
  tz.initial_offset_ = type_offset(0);
  for (std::int64_t i = 0; i < c.time; ++i) {
    tz.transitions_.push_back(be(times + i * width, width));
    tz.offsets_after_.push_back(type_offset(indices[i]));
  }
  if (width == 8) {  // the footer: "\n<POSIX TZ rule>\n" for instants after the last transition
    std::size_t footer = at + block_size(c, width);
    if (footer < size && data[footer] == '\n') {
      auto end = data.find('\n', footer + 1);
      std::string rule = data.substr(footer + 1, end == std::string::npos ? std::string::npos : end - footer - 1);
      if (!rule.empty()) tz.rule_ = parse_rule(rule, name);
    }
  }
  return tz;
}

TimeZone::Rule TimeZone::parse_rule(const std::string& text, const std::string& zone) {
  std::size_t i = 0;
  auto fail = [&](const char* what) { return bad_zone(zone, std::string(what) + " in its rule '" + text + "'"); };
  auto zone_name = [&] {
    if (i < text.size() && text[i] == '<') {
      auto close = text.find('>', i);
      if (close == std::string::npos) throw fail("an unclosed <name>");
      i = close + 1;
    } else {
      std::size_t from = i;
      while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      if (i - from < 3) throw fail("a zone abbreviation shorter than 3 letters");
    }
  };
  auto number = [&] {
    std::size_t from = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (from == i) throw fail("a missing number");
    return std::atoi(text.substr(from, i - from).c_str());
  };
  auto clock_time = [&] {  // [+-]hh[:mm[:ss]]
    int sign = 1;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) sign = text[i++] == '-' ? -1 : 1;
    std::int32_t t = number() * 3600;
    if (i < text.size() && text[i] == ':') {
      ++i;
      t += number() * 60;
      if (i < text.size() && text[i] == ':') {
        ++i;
        t += number();
      }
    }
    return sign * t;
  };
  auto change = [&] {
    Rule::Change ch;
    if (i < text.size() && text[i] == 'M') {
      ++i;
      ch.month = number();
      if (i >= text.size() || text[i++] != '.') throw fail("a malformed M rule");
      ch.week = number();
      if (i >= text.size() || text[i++] != '.') throw fail("a malformed M rule");
      ch.weekday = number();
      if (ch.month < 1 || ch.month > 12 || ch.week < 1 || ch.week > 5 || ch.weekday > 6) throw fail("an M rule out of range");
    } else if (i < text.size() && text[i] == 'J') {
      ++i;
      ch.kind = 'J';
      ch.day = number();
    } else {
      ch.kind = 'n';
      ch.day = number();
    }
    if (i < text.size() && text[i] == '/') {
      ++i;
      ch.time = clock_time();
    }
    return ch;
  };
  Rule r;
  zone_name();
  r.std_offset = -clock_time();  // POSIX offsets are west of UTC
  if (i == text.size()) return r;
  zone_name();
  r.has_dst = true;
  r.dst_offset = r.std_offset + 3600;
  if (i < text.size() && text[i] != ',') r.dst_offset = -clock_time();
  if (i >= text.size() || text[i++] != ',') throw fail("a daylight-saving zone without its start and end");
  r.start = change();
  if (i >= text.size() || text[i++] != ',') throw fail("a daylight-saving zone without its end");
  r.end = change();
  if (i != text.size()) throw fail("trailing characters");
  return r;
}

std::int32_t TimeZone::rule_offset(std::int64_t utc) const {
  const Rule& r = *rule_;
  if (!r.has_dst) return r.std_offset;
  auto year = civil_from_days(floor_div(utc + r.std_offset, 86400)).year;
  auto day_of = [&](const Rule::Change& ch) -> std::int64_t {
    if (ch.kind == 'J') return days_from_civil(year, 1, 1) + ch.day - 1 + (is_leap(year) && ch.day >= 60 ? 1 : 0);
    if (ch.kind == 'n') return days_from_civil(year, 1, 1) + ch.day;
    std::int64_t first = days_from_civil(year, ch.month, 1);
    int first_weekday = weekday_of(first);
    int day = 1 + (ch.weekday - first_weekday + 7) % 7 + (ch.week - 1) * 7;
    while (day > days_in_month(year, ch.month)) day -= 7;
    return first + day - 1;
  };
  // Each change happens at its local time, in the offset in effect before it.
  std::int64_t start = day_of(r.start) * 86400 + r.start.time - r.std_offset;
  std::int64_t end = day_of(r.end) * 86400 + r.end.time - r.dst_offset;
  bool dst = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start);
  return dst ? r.dst_offset : r.std_offset;
}

std::int32_t TimeZone::offset_at(std::int64_t utc) const {
  if (transitions_.empty()) return rule_ ? rule_offset(utc) : initial_offset_;
  if (utc < transitions_.front()) return initial_offset_;
  if (utc >= transitions_.back() && rule_) return rule_offset(utc);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), utc);
  return offsets_after_[static_cast<std::size_t>(it - transitions_.begin()) - 1];
}

std::optional<std::int64_t> TimeZone::to_utc(std::int64_t local) const {
  // The offsets in effect a day either side cover every transition near `local` (zones change
  // at most once a day); a candidate is right when its own offset maps it back to `local`.
  std::optional<std::int64_t> best;
  for (std::int64_t probe : {local - 86400, local, local + 86400}) {
    std::int64_t utc = local - offset_at(probe);
    if (utc + offset_at(utc) == local && (!best || utc < *best)) best = utc;
  }
  return best;
}

}  // namespace superstep::server
