// Civil (proleptic Gregorian) calendar arithmetic on days since 1970-01-01, and ISO-8601
// timestamps: what the cron scheduler and time zones count with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace superstep::server {

struct CivilDate {
  std::int64_t year;
  int month;  ///< 1-12
  int day;    ///< 1-31
};

constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

constexpr bool is_leap(std::int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

constexpr int days_in_month(std::int64_t y, int m) {
  constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/// Days since 1970-01-01 of a date (H. Hinnant's algorithm).
constexpr std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  std::int64_t era = floor_div(y, 400);
  std::int64_t yoe = y - era * 400;
  std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

constexpr CivilDate civil_from_days(std::int64_t z) {
  z += 719468;
  std::int64_t era = floor_div(z, 146097);
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

/// 0 = Sunday.
constexpr int weekday_of(std::int64_t days) { return static_cast<int>(floor_div(days + 4, 7) * -7 + days + 4); }

/// "2026-11-26T12:00:00.000Z" of seconds since the epoch (UTC).
std::string iso_of(std::int64_t seconds);
/// Seconds since the epoch of an ISO-8601 timestamp ("2026-11-26T12:00:00Z", with optional
/// fractional seconds and a `Z` or `+hh:mm` offset; a date alone is midnight UTC); nullopt when
/// it is not one.
std::optional<std::int64_t> parse_iso(const std::string& text);

}  // namespace superstep::server
