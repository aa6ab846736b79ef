// The cron scheduler's clockwork: cron expressions, IANA time zones read from the tz database
// (offsets, clock changes, the POSIX rule past the last transition) and ISO-8601 times.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "server/civil_time.hpp"
#include "server/cron_schedule.hpp"
#include "server/time_zone.hpp"

namespace superstep::server {
namespace {

std::int64_t at(const char* iso) {
  auto t = parse_iso(iso);
  EXPECT_TRUE(t) << iso;
  return t.value_or(0);
}

std::string next(const char* expr, const char* after, const TimeZone& zone = {}) {
  auto n = CronSchedule(expr).next_after(at(after), zone);
  return n ? iso_of(*n) : "never";
}

std::string error_of(const char* expr) {
  try {
    CronSchedule{expr};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CivilTime, IsoRoundTripsAndRejectsWhatIsNotATime) {
  EXPECT_EQ(iso_of(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_of(at("2028-02-29T23:59:59Z")), "2028-02-29T23:59:59.000Z");
  EXPECT_EQ(at("2026-11-26T12:00:00.123+02:00"), at("2026-11-26T10:00:00Z"));
  EXPECT_EQ(at("2026-11-26"), at("2026-11-26T00:00:00Z"));
  EXPECT_EQ(at("1969-12-31T23:00:00Z"), -3600);
  for (const char* bad : {"", "2026-02-29T00:00:00Z", "2026-13-01", "2026-11-26T25:00:00Z", "tomorrow",
                          "2026-11-26T10:00:00Zjunk", "2026-11-26T10:00:00+5"})
    EXPECT_FALSE(parse_iso(bad)) << bad;
  EXPECT_EQ(weekday_of(days_from_civil(2026, 11, 26)), 4);  // a Thursday
}

TEST(CronSchedule, StepsRangesListsAndNames) {
  EXPECT_EQ(next("*/15 * * * *", "2026-11-26T12:07:30Z"), "2026-11-26T12:15:00.000Z");
  EXPECT_EQ(next("*/15 * * * *", "2026-11-26T12:15:00Z"), "2026-11-26T12:30:00.000Z");  // strictly after
  EXPECT_EQ(next("0 9 * * MON-FRI", "2026-11-27T10:00:00Z"), "2026-11-30T09:00:00.000Z");
  EXPECT_EQ(next("0 9 * * 1-5", "2026-11-27T08:00:00Z"), "2026-11-27T09:00:00.000Z");
  EXPECT_EQ(next("5,35 */6 * * *", "2026-11-26T06:06:00Z"), "2026-11-26T06:35:00.000Z");
  EXPECT_EQ(next("10/20 * * * *", "2026-11-26T06:31:00Z"), "2026-11-26T06:50:00.000Z");
  EXPECT_EQ(next("0 0 1 jan *", "2026-11-26T00:00:00Z"), "2027-01-01T00:00:00.000Z");
  EXPECT_EQ(next("0 12 * * 7", "2026-11-26T00:00:00Z"), "2026-11-29T12:00:00.000Z");  // 7 is Sunday too
  EXPECT_EQ(next("@hourly", "2026-11-26T06:00:00Z"), "2026-11-26T07:00:00.000Z");
  EXPECT_EQ(next("@daily", "2026-12-31T23:59:59Z"), "2027-01-01T00:00:00.000Z");
  EXPECT_EQ(next("@weekly", "2026-11-26T00:00:00Z"), "2026-11-29T00:00:00.000Z");
  EXPECT_EQ(next("@monthly", "2026-11-26T00:00:00Z"), "2026-12-01T00:00:00.000Z");
  EXPECT_EQ(next("@yearly", "2026-11-26T00:00:00Z"), "2027-01-01T00:00:00.000Z");
}

TEST(CronSchedule, BothDayFieldsRestrictedMeansEither) {
  // Vixie cron and croniter: "the 13th, or any Friday"; with one of them "*", both must hold.
  EXPECT_EQ(next("0 0 13 * FRI", "2026-11-26T00:00:00Z"), "2026-11-27T00:00:00.000Z");  // Friday 27th
  EXPECT_EQ(next("0 0 13 * FRI", "2026-11-28T00:00:00Z"), "2026-12-04T00:00:00.000Z");
  EXPECT_EQ(next("0 0 13 * *", "2026-11-26T00:00:00Z"), "2026-12-13T00:00:00.000Z");
  EXPECT_EQ(next("0 0 * 12 FRI", "2026-11-26T00:00:00Z"), "2026-12-04T00:00:00.000Z");
}

TEST(CronSchedule, RareAndImpossibleDays) {
  EXPECT_EQ(next("0 0 29 2 *", "2026-03-01T00:00:00Z"), "2028-02-29T00:00:00.000Z");
  EXPECT_EQ(next("0 0 31 * *", "2026-11-26T00:00:00Z"), "2026-12-31T00:00:00.000Z");
  EXPECT_EQ(next("0 0 30 2 *", "2026-11-26T00:00:00Z"), "never");
}

TEST(CronSchedule, BadExpressionsNameTheFieldAndTheProblem) {
  EXPECT_NE(error_of("* * *").find("has 3 fields; it needs 5"), std::string::npos) << error_of("* * *");
  EXPECT_NE(error_of("* * * * * *").find("has 6 fields"), std::string::npos);
  EXPECT_NE(error_of("60 * * * *").find("the minute field '60' has 60, out of 0-59"), std::string::npos)
      << error_of("60 * * * *");
  EXPECT_NE(error_of("* 24 * * *").find("hour field"), std::string::npos);
  EXPECT_NE(error_of("* * 0 * *").find("day of month field '0' has 0, out of 1-31"), std::string::npos);
  EXPECT_NE(error_of("* * * 13 *").find("month field"), std::string::npos);
  EXPECT_NE(error_of("* * * * FUNDAY").find("day of week field 'FUNDAY' has 'FUNDAY', which is not a number or a name"),
            std::string::npos)
      << error_of("* * * * FUNDAY");
  EXPECT_NE(error_of("*/0 * * * *").find("step '0'"), std::string::npos);
  EXPECT_NE(error_of("5-1 * * * *").find("runs backwards"), std::string::npos);
  EXPECT_NE(error_of("1,,2 * * * *").find("empty list item"), std::string::npos);
  EXPECT_NE(error_of("@often").find("unknown"), std::string::npos);
  EXPECT_NE(error_of("").find("has 0 fields"), std::string::npos);
}

TEST(TimeZone, OffsetsFromTheDatabaseAndFromItsRule) {
  TimeZone ny = TimeZone::load("America/New_York");
  EXPECT_EQ(ny.offset_at(at("2026-07-01T12:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.offset_at(at("2026-12-01T12:00:00Z")), -5 * 3600);
  // 2026: daylight time from 8 March 07:00Z to 1 November 06:00Z.
  EXPECT_EQ(ny.offset_at(at("2026-03-08T06:59:59Z")), -5 * 3600);
  EXPECT_EQ(ny.offset_at(at("2026-03-08T07:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.offset_at(at("2026-11-01T05:59:59Z")), -4 * 3600);
  EXPECT_EQ(ny.offset_at(at("2026-11-01T06:00:00Z")), -5 * 3600);
  // Far past the listed transitions: the file's POSIX rule (EST5EDT,M3.2.0,M11.1.0).
  EXPECT_EQ(ny.offset_at(at("2090-07-01T12:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.offset_at(at("2090-03-12T06:59:59Z")), -5 * 3600);  // 2nd Sunday of March 2090: the 12th
  EXPECT_EQ(ny.offset_at(at("2090-03-12T07:00:00Z")), -4 * 3600);
  TimeZone sydney = TimeZone::load("Australia/Sydney");  // southern: daylight across the new year
  EXPECT_EQ(sydney.offset_at(at("2090-01-15T00:00:00Z")), 11 * 3600);
  EXPECT_EQ(sydney.offset_at(at("2090-07-15T00:00:00Z")), 10 * 3600);
  EXPECT_EQ(TimeZone::load("Asia/Kolkata").offset_at(at("2026-11-26T00:00:00Z")), 19800);
  EXPECT_EQ(TimeZone::load("UTC").offset_at(at("2026-11-26T00:00:00Z")), 0);
  EXPECT_EQ(TimeZone().offset_at(0), 0);
}

TEST(TimeZone, UnknownOrPathLikeNamesAreRefusedByName) {
  for (const char* bad : {"Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "America/New York"}) {
    try {
      TimeZone::load(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("time zone '") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(TimeZone, ACorruptFileIsRefusedNotOverread) {
  // Found by fuzz/fuzz_cron: a TZif header whose counts are negative made the block sizes wrap
  // and the reader run past the file.
  auto dir = std::filesystem::temp_directory_path() / ("superstep-tz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string bytes = "TZif2" + std::string(15, '\0');
  for (int i = 0; i < 6; ++i) bytes += i == 3 ? std::string("\xff\xff\xff\xf0", 4) : std::string("\0\0\0\1", 4);
  bytes += std::string(64, '\x01');
  { std::ofstream(dir / "Bad", std::ios::binary) << bytes; }
  ::setenv("TZDIR", dir.c_str(), 1);
  EXPECT_THROW(TimeZone::load("Bad"), std::invalid_argument);
  ::unsetenv("TZDIR");
  std::filesystem::remove_all(dir);
}

TEST(CronSchedule, FiresInItsTimeZoneAcrossClockChanges) {
  TimeZone ny = TimeZone::load("America/New_York");
  EXPECT_EQ(next("0 9 * * *", "2026-11-26T00:00:00Z", ny), "2026-11-26T14:00:00.000Z");
  EXPECT_EQ(next("0 9 * * *", "2026-07-01T00:00:00Z", ny), "2026-07-01T13:00:00.000Z");
  // 02:30 does not exist on 8 March 2026 in New York (02:00 -> 03:00): that day is skipped.
  EXPECT_EQ(next("30 2 * * *", "2026-03-07T08:00:00Z", ny), "2026-03-09T06:30:00.000Z");
  // 01:30 happens twice on 1 November 2026 (02:00 -> 01:00): it fires once, the first time.
  EXPECT_EQ(next("30 1 * * *", "2026-11-01T00:00:00Z", ny), "2026-11-01T05:30:00.000Z");
  EXPECT_EQ(next("30 1 * * *", "2026-11-01T05:30:00Z", ny), "2026-11-02T06:30:00.000Z");
  // An hourly schedule walks through the fall-back hour once.
  EXPECT_EQ(next("0 * * * *", "2026-11-01T05:00:00Z", ny), "2026-11-01T07:00:00.000Z");
  EXPECT_EQ(next("0 9 * * *", "2026-11-26T00:00:00Z", TimeZone::load("Asia/Kolkata")), "2026-11-26T03:30:00.000Z");
  // The zone's day, not UTC's: Monday 00:30 in Tokyo is Sunday in UTC.
  EXPECT_EQ(next("30 0 * * MON", "2026-11-26T00:00:00Z", TimeZone::load("Asia/Tokyo")), "2026-11-29T15:30:00.000Z");
}

}  // namespace
}  // namespace superstep::server
