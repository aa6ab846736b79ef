// The savers' fast reader of stored JSON against json::parse: every text it reads, it reads
// exactly as json::parse does (types included); what json::parse rejects, it never reads; and
// what json::dump writes (floats and surrogate escapes aside) it reads itself.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "checkpoint/stored_json.hpp"

namespace {

using superstep::json;
using superstep::internal::read_stored_json;

/// Same value and same type at every level (json's == takes 5 and 5u as equal).
bool identical(const json& a, const json& b) {
  if (a.type() != b.type() || a != b) return false;
  if (a.is_object()) {
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
      if (it.key() != jt.key() || !identical(*it, *jt)) return false;
  } else if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!identical(a[i], b[i])) return false;
  }
  return true;
}

/// What read_stored_json gives for `text` agrees with json::parse. Returns whether it read it.
bool agrees(const std::string& text) {
  std::optional<json> fast = read_stored_json(text);
  json slow;
  bool parsed = true;
  try {
    slow = json::parse(text);
  } catch (const json::exception&) {
    parsed = false;
  }
  if (!fast) return false;
  EXPECT_TRUE(parsed) << "read a text json::parse rejects: " << testing::PrintToString(text);
  if (parsed) {
    EXPECT_TRUE(identical(*fast, slow)) << "read differently: " << testing::PrintToString(text);
  }
  return true;
}

TEST(StoredJson, ReadsWhatDumpWritesExactlyAsParseDoes) {
  const std::vector<std::string> read = {
      R"(null)", R"(true)", R"(false)", R"(0)", R"(-0)", R"(7)", R"(-7)", R"(18446744073709551615)",
      R"(-9223372036854775808)", R"("")", R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u0000\u001f\u00e9\u20ac")",
      "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"", R"([])", R"({})", R"([1,[2,[3,{}]],{"a":[]}])",
      R"({"b":1,"a":2})", R"({"a":1,"a":2})",
      R"({"channel_versions":{"branch:to:n98":102,"count":102},"id":"1f1e","v":4,"versions_seen":{"n98":{"x":101}}})"};
  for (const auto& text : read) EXPECT_TRUE(agrees(text)) << "not read: " << text;
  // A repeated key keeps the last value, as json::parse does.
  EXPECT_EQ(*read_stored_json(R"({"a":1,"a":2})"), json({{"a", 2}}));
  EXPECT_TRUE(read_stored_json(R"(-9223372036854775808)")->is_number_integer());
  EXPECT_TRUE(read_stored_json(R"(7)")->is_number_unsigned());
  EXPECT_TRUE(read_stored_json(R"(-0)")->is_number_integer());
}

TEST(StoredJson, LeavesEverythingElseToParse) {
  // Valid JSON it does not read itself, and malformed text (which json::parse rejects).
  const std::vector<std::string> left = {
      "", " 1", "1 ", "[1, 2]", "{\"a\": 1}", "1.5", "1e3", "-1E-3", "18446744073709551616", "-9223372036854775809",
      R"("\ud83d\ude00")", "01", "-", "--1", "+1", ".5", "1.", "tru", "nul", "falsey", "[1,]", "[,1]", "{\"a\":}",
      "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "[1", "{\"a\":1", "\"abc", "\"a\\", "\"a\\x\"", "\"\\u12\"", "\"\\u12g4\"",
      "\"tab\there\"", "\"\x80\"", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xE2\x82\"", "1]",
      "[]]", "{}x", std::string("\"a\0b\"", 5), std::string(300, '[') + std::string(300, ']')};
  for (const auto& text : left) EXPECT_FALSE(agrees(text)) << "read: " << testing::PrintToString(text);
}

json random_value(std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  auto random_string = [&] {
    static const std::vector<std::string> pieces = {"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", std::string(1, '\0'),
                                                    "\x1f", "\x7f", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "n98"};
    std::string s;
    for (int i = pick(8); i > 0; --i) s += pieces[static_cast<std::size_t>(pick(static_cast<int>(pieces.size())))];
    return s;
  };
  switch (depth > 3 ? pick(6) : pick(8)) {
    case 0: return nullptr;
    case 1: return pick(2) == 0;
    case 2: return static_cast<std::int64_t>(rng()) >> pick(64);
    case 3: return rng() >> pick(64);
    case 4: return random_string();
    case 5: return pick(4) == 0 ? json(static_cast<double>(pick(1000)) / 8) : json(pick(100));
    case 6: {
      json a = json::array();
      for (int i = pick(5); i > 0; --i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (int i = pick(5); i > 0; --i) o[random_string()] = random_value(rng, depth + 1);
      return o;
    }
  }
}

bool has_float(const json& j) {
  if (j.is_number_float()) return true;
  for (const auto& e : j)
    if ((e.is_structured() || e.is_number_float()) && has_float(e)) return true;
  return false;
}

TEST(StoredJson, RandomDumpsAndTheirCorruptionsAgreeWithParse) {
  std::mt19937_64 rng(20261124);
  int read = 0, corrupt_read = 0;
  for (int i = 0; i < 3000; ++i) {
    json v = random_value(rng, 0);
    const std::string text = v.dump();
    const bool fast = agrees(text);
    if (!has_float(v)) {
      EXPECT_TRUE(fast) << "a dump without floats must be read: " << text;
    }
    read += fast;
    // Cut it anywhere, or change one byte: read exactly as json::parse reads it, or left to it.
    for (int k = 0; k < 4 && !text.empty(); ++k) {
      std::string cut = text.substr(0, rng() % text.size());
      corrupt_read += agrees(cut);
      std::string changed = text;
      changed[rng() % changed.size()] = static_cast<char>(rng());
      corrupt_read += agrees(changed);
    }
  }
  EXPECT_GT(read, 2000);
  EXPECT_GT(corrupt_read, 0);  // some corruptions are still JSON (a digit changed): read alike
}

}  // namespace
