// The server's schedules and time zones: CronSchedule over any expression (accepted, or an
// invalid_argument naming the field), its next firings strictly increasing, and TimeZone over
// any TZif file (fuzzed bytes written to a zone file under a private $TZDIR).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fuzz_util.hpp"
#include "server/cron_schedule.hpp"
#include "server/time_zone.hpp"

namespace {
const std::string& tzdir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/superstep-fuzz-tz.XXXXXX";
    std::string d = ::mkdtemp(tmpl);
    ::setenv("TZDIR", d.c_str(), 1);
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace superstep::server;
  if (size < 1) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    // A zone file.
    { std::ofstream(tzdir() + "/Fuzz", std::ios::binary | std::ios::trunc) << text; }
    try {
      TimeZone z = TimeZone::load("Fuzz");
      for (std::int64_t t : {-4000000000LL, 0LL, 1764000000LL, 4102444800LL, 9000000000LL}) {
        std::int32_t off = z.offset_at(t);
        if (off < -25 * 3600 || off > 26 * 3600) continue;  // absurd offsets are the file's own business
        (void)z.to_utc(t + off);
      }
      (void)CronSchedule("0 9 * * *").next_after(1764000000, z);
    } catch (const std::invalid_argument&) {
    }
    return 0;
  }
  try {
    CronSchedule s(text);
    std::int64_t t = 1764000000;  // 2025-11-24
    for (int i = 0; i < 3; ++i) {
      auto next = s.next_after(t, TimeZone{});
      if (!next) break;
      if (*next <= t) fuzz::fail("CronSchedule: a next firing not after the instant asked");
      t = *next;
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
