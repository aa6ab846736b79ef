// Timestamps and ids made on the hot path, by hand: checked against the C library.
#include "internal/ids.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <random>
#include <string>

namespace superstep::internal {
namespace {

std::string by_libc(std::int64_t micros, int digits) {
  std::time_t t = static_cast<std::time_t>(micros >= 0 ? micros / 1000000 : (micros - 999999) / 1000000);
  long long frac = micros - static_cast<long long>(t) * 1000000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  if (digits == 3)
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(frac / 1000));
  else
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(frac));
  return buf;
}

TEST(Iso8601, FormatsKnownInstants) {
  EXPECT_EQ(iso8601_utc(0, 3), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso8601_utc(0, 6), "1970-01-01T00:00:00.000000Z");
  // 2024-02-29T23:59:59.999999Z: a leap day, the last microsecond of it; milliseconds truncate.
  EXPECT_EQ(iso8601_utc(1709251199999999, 6), "2024-02-29T23:59:59.999999Z");
  EXPECT_EQ(iso8601_utc(1709251199999999, 3), "2024-02-29T23:59:59.999Z");
  EXPECT_EQ(iso8601_utc(1709251200000000, 3), "2024-03-01T00:00:00.000Z");
  EXPECT_EQ(iso8601_utc(-1, 6), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(iso8601_utc(253402300799999999, 6), "9999-12-31T23:59:59.999999Z");
}

TEST(Iso8601, AgreesWithTheCLibraryAcrossFourCenturies) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> when(-2208988800000000, 10413792000000000);  // 1900 to 2300
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t us = when(rng);
    ASSERT_EQ(iso8601_utc(us, 6), by_libc(us, 6)) << us;
    ASSERT_EQ(iso8601_utc(us, 3), by_libc(us, 3)) << us;
  }
}

TEST(Iso8601, NowHasMillisecondsAndAZone) {
  const std::string now = now_iso8601();
  ASSERT_EQ(now.size(), 24u);
  EXPECT_EQ(now[4], '-');
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now[19], '.');
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace superstep::internal
