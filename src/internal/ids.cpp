#include "internal/ids.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>

namespace superstep::internal {
namespace {

std::mt19937_64& rng() {
  thread_local std::mt19937_64 gen([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }());
  return gen;
}

// 8-4-4-4-12 lowercase hex, without printf (ids are made on the hot path).
std::string format_uuid(uint64_t hi, uint64_t lo) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  int pos = 0;
  auto put = [&](uint64_t v, int nibbles) {
    for (int i = nibbles - 1; i >= 0; --i) out[pos++] = kHex[(v >> (4 * i)) & 0xf];
  };
  put(hi >> 32, 8);
  ++pos;
  put(hi >> 16, 4);
  ++pos;
  put(hi, 4);
  ++pos;
  put(lo >> 48, 4);
  ++pos;
  put(lo, 12);
  return out;
}

}  // namespace

std::string uuid4() {
  uint64_t hi = rng()(), lo = rng()();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;
  lo = (lo & ~(0xc000ULL << 48)) | (0x8000ULL << 48);
  return format_uuid(hi, lo);
}

std::string uuid6() {
  // 60-bit timestamp in 100 ns units since the Gregorian epoch, plus a process-wide sequence so
  // ids made in the same tick still sort in creation order.
  static std::atomic<uint64_t> last{0};
  auto now = std::chrono::system_clock::now().time_since_epoch();
  uint64_t ticks = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() / 100) +
                   0x01B21DD213814000ULL;
  uint64_t prev = last.load();
  while (true) {
    uint64_t next = ticks > prev ? ticks : prev + 1;
    if (last.compare_exchange_weak(prev, next)) {
      ticks = next;
      break;
    }
  }
  uint64_t hi = ((ticks >> 12) << 16) | 0x6000ULL | (ticks & 0xfff);
  uint64_t lo = (rng()() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return format_uuid(hi, lo);
}

std::string hash_id(std::initializer_list<std::string_view> parts) {
  uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (std::string_view part : parts) {
    for (unsigned char c : part) {
      a = (a ^ c) * 0x100000001b3ULL;
      b = (b ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    }
    a = (a ^ 0xff) * 0x100000001b3ULL;
    b = (b ^ 0xfe) * 0x100000001b3ULL;
  }
  // Final avalanche so ids that differ in one character differ everywhere.
  auto mix = [](uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  };
  return format_uuid(mix(a), mix(b ^ a));
}

std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  return iso8601_utc(std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count(), 3);
}

// Digits by hand, not snprintf and gmtime_r: runs and checkpoints stamp several per request.
std::string iso8601_utc(std::int64_t micros, int digits) {
  using namespace std::chrono;
  const sys_time<microseconds> at{microseconds(micros)};
  const sys_days day = floor<days>(at);
  const year_month_day ymd{day};
  const hh_mm_ss<microseconds> time{at - day};
  std::string out = "0000-00-00T00:00:00.000000Z";
  auto put = [&](std::size_t pos, long long v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) out[pos + static_cast<std::size_t>(i)] = static_cast<char>('0' + v % 10);
  };
  put(0, static_cast<int>(ymd.year()), 4);
  put(5, static_cast<unsigned>(ymd.month()), 2);
  put(8, static_cast<unsigned>(ymd.day()), 2);
  put(11, time.hours().count(), 2);
  put(14, time.minutes().count(), 2);
  put(17, time.seconds().count(), 2);
  const long long us = time.subseconds().count();
  if (digits == 3) {
    put(20, us / 1000, 3);
    out.erase(23, 3);
  } else {
    put(20, us, 6);
  }
  return out;
}

}  // namespace superstep::internal
