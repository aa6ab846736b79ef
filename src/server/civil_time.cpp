#include "server/civil_time.hpp"

#include <cctype>
#include <cstdio>

namespace superstep::server {

std::string iso_of(std::int64_t seconds) {
  std::int64_t days = floor_div(seconds, 86400);
  std::int64_t in_day = seconds - days * 86400;
  CivilDate d = civil_from_days(days);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d.000Z", static_cast<long long>(d.year), d.month, d.day,
                static_cast<int>(in_day / 3600), static_cast<int>(in_day / 60 % 60), static_cast<int>(in_day % 60));
  return buf;
}

std::optional<std::int64_t> parse_iso(const std::string& s) {
  std::size_t i = 0;
  auto digits = [&](int n) -> std::optional<int> {
    int v = 0;
    for (int k = 0; k < n; ++k, ++i) {
      if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  auto expect = [&](char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  auto y = digits(4);
  if (!y || !expect('-')) return std::nullopt;
  auto mo = digits(2);
  if (!mo || !expect('-')) return std::nullopt;
  auto d = digits(2);
  if (!d || *mo < 1 || *mo > 12 || *d < 1 || *d > days_in_month(*y, *mo)) return std::nullopt;
  std::int64_t t = days_from_civil(*y, *mo, *d) * 86400;
  if (i == s.size()) return t;
  if (s[i] != 'T' && s[i] != 't' && s[i] != ' ') return std::nullopt;
  ++i;
  auto h = digits(2);
  if (!h || !expect(':')) return std::nullopt;
  auto mi = digits(2);
  if (!mi) return std::nullopt;
  int sec = 0;
  if (expect(':')) {
    auto se = digits(2);
    if (!se) return std::nullopt;
    sec = *se;
    if (expect('.') || expect(','))
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (*h > 23 || *mi > 59 || sec > 60) return std::nullopt;
  t += *h * 3600 + *mi * 60 + sec;
  if (i == s.size() || expect('Z') || expect('z')) return i == s.size() ? std::optional<std::int64_t>(t) : std::nullopt;
  int sign = s[i] == '-' ? -1 : s[i] == '+' ? 1 : 0;
  if (!sign) return std::nullopt;
  ++i;
  auto oh = digits(2);
  if (!oh) return std::nullopt;
  expect(':');
  auto om = digits(2);
  if (!om || i != s.size()) return std::nullopt;
  return t - sign * (*oh * 3600 + *om * 60);
}

}  // namespace superstep::server
