// dump_json and friends write json::dump()'s text byte for byte: checked on the tricky values
// (escapes, UTF-8, invalid UTF-8, floats, extremes, nesting) and on random documents.
#include "internal/json_text.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace superstep::internal {
namespace {

void same(const json& v) {
  EXPECT_EQ(dump_json(v), v.dump()) << v.dump();
  EXPECT_EQ(dump_json_replacing(v), v.dump(-1, ' ', false, json::error_handler_t::replace));
  std::string appended = "x";
  append_json(appended, v);
  EXPECT_EQ(appended, "x" + v.dump());
}

TEST(JsonText, WritesWhatDumpWrites) {
  same(nullptr);
  same(true);
  same(false);
  same(0);
  same(-1);
  same(std::numeric_limits<std::int64_t>::min());
  same(std::numeric_limits<std::int64_t>::max());
  same(std::numeric_limits<std::uint64_t>::max());
  same(0.1);
  same(-0.0);
  same(1e300);
  same(3.0);
  same(std::numeric_limits<double>::quiet_NaN());  // dump writes null
  same("");
  same("plain ascii: ids, 2026-11-27T12:00:00.000Z, 00000000000000000000000000000002.0.5");
  same("quote \" backslash \\ slash / tab \t newline \n cr \r bs \b ff \f nul " + std::string(1, '\0') + " unit \x1f del \x7f");
  same("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  same(json::array());
  same(json::object());
  same(json::parse(R"({"b":[1,2.5,{"z":null,"a":"x"}],"a":{"":"","\n":"\u0001"},"c":[[],{}]})"));
  same(json::binary({1, 2, 3}));
}

// Text is checked eight bytes at a time: every byte that needs escaping (or is not ASCII), and
// the bytes either side of each limit, at every place in a word and in the tail after the words.
TEST(JsonText, EveryByteToEscapeIsFoundWhereverItStands) {
  const std::string probes[] = {std::string(1, '\0'), "\x01", "\x1f", " ", "!", "\"", "#", "[", "\\", "]", "~", "\x7f", "\xc3\xa9"};
  for (const std::string& probe : probes)
    for (std::size_t len = 1; len <= 19; ++len)
      for (std::size_t at = 0; at < len; ++at) {
        std::string text(len, 'a');
        text.replace(at, 1, probe);
        same(text);
        same(json::object({{text, 1}}));
      }
}

TEST(JsonText, InvalidUtf8ThrowsAsDumpDoesOrIsReplaced) {
  const json bad = json::object({{"k", std::string("ok \xff\xfe end")}});
  EXPECT_THROW(bad.dump(), json::type_error);
  EXPECT_THROW(dump_json(bad), json::type_error);
  EXPECT_EQ(dump_json_replacing(bad), bad.dump(-1, ' ', false, json::error_handler_t::replace));
  const json bad_key = json::object({{std::string("\xc3"), 1}});
  EXPECT_THROW(dump_json(bad_key), json::type_error);
  EXPECT_EQ(dump_json_replacing(bad_key), bad_key.dump(-1, ' ', false, json::error_handler_t::replace));
  // The thread's serializer is fine after a throw.
  same(json::object({{"after", "\xc3\xa9"}}));
}

TEST(JsonText, StringLiterals) {
  std::string out;
  append_json_string(out, "channel_versions");
  append_json_string(out, "a\"b");
  append_json_string(out, std::string_view("\0x", 2));
  EXPECT_EQ(out, "\"channel_versions\"" + json("a\"b").dump() + json(std::string("\0x", 2)).dump());
}

json random_value(std::mt19937_64& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  static const std::string alphabet = std::string("abcXYZ019 _-:.\"\\/\n\t\x01\x7f") + "\xc3\xa9" + "\xe2\x82\xac";
  auto text = [&] {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int i = 0; i < n; ++i) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng);
      // multi-byte characters whole
      if (static_cast<unsigned char>(alphabet[at]) >= 0x80) s += at < alphabet.size() - 3 ? "\xc3\xa9" : "\xe2\x82\xac";
      else s += alphabet[at];
    }
    return s;
  };
  switch (kind(rng)) {
    case 0: return nullptr;
    case 1: return std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    case 2: return std::uniform_int_distribution<std::int64_t>(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max())(rng);
    case 3: return std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
    case 4: return text();
    case 5: return std::uniform_int_distribution<std::uint64_t>()(rng);
    case 6: {
      json a = json::array();
      const int n = std::uniform_int_distribution<int>(0, 5)(rng);
      for (int i = 0; i < n; ++i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      const int n = std::uniform_int_distribution<int>(0, 5)(rng);
      for (int i = 0; i < n; ++i) o[text()] = random_value(rng, depth + 1);
      return o;
    }
  }
}

TEST(JsonText, RandomDocumentsMatchDump) {
  std::mt19937_64 rng(21);
  for (int i = 0; i < 3000; ++i) {
    const json v = random_value(rng, 0);
    ASSERT_EQ(dump_json(v), v.dump());
  }
}

}  // namespace
}  // namespace superstep::internal
