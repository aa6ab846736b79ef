#include "checkpoint/stored_json.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace superstep::internal {

namespace {

/// A recursive-descent reader over [p, end). Every function returns false where json::parse
/// might read the text differently (or reject it); the caller then gives up on the whole text.
class Reader {
 public:
  Reader(const char* p, const char* end) : p_(p), end_(end) {}

  bool document(json& out) { return value(out, 0) && p_ == end_; }

 private:
  static constexpr int kMaxDepth = 256;

  bool value(json& out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        return literal("true", 4, out, json(true));
      case 'f':
        return literal("false", 5, out, json(false));
      case 'n':
        return literal("null", 4, out, json(nullptr));
      default:
        return number(out);
    }
  }

  bool literal(const char* word, std::size_t n, json& out, json v) {
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    out = std::move(v);
    return true;
  }

  bool object(json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '{'
    out = json::object();
    auto& obj = out.get_ref<json::object_t&>();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      std::string key;
      if (p_ == end_ || *p_ != '"' || !string(key) || p_ == end_ || *p_ != ':') return false;
      ++p_;
      // Keys come sorted from json::dump, so the hint is right; a repeated key keeps the last
      // value, as json::parse does.
      auto it = obj.emplace_hint(obj.end(), std::move(key), nullptr);
      if (!value(it->second, depth)) return false;
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  bool array(json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '['
    out = json::array();
    auto& arr = out.get_ref<json::array_t&>();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      arr.emplace_back();
      if (!value(arr.back(), depth)) return false;
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  /// The length of the valid UTF-8 sequence at p (a lead byte >= 0x80), or 0 (RFC 3629, as
  /// json::parse checks it).
  std::size_t utf8(const unsigned char* p) const {
    const auto left = static_cast<std::size_t>(end_ - reinterpret_cast<const char*>(p));
    auto in = [&](std::size_t i, unsigned lo, unsigned hi) { return i < left && p[i] >= lo && p[i] <= hi; };
    const unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
    if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
    if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
    if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    return 0;
  }

  bool string(std::string& out) {
    ++p_;  // '"'
    for (;;) {
      const char* run = p_;
      while (p_ != end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20) break;
        if (c < 0x80) {
          ++p_;
          continue;
        }
        const std::size_t n = utf8(reinterpret_cast<const unsigned char*>(p_));
        if (!n) return false;
        p_ += n;
      }
      out.append(run, p_);
      if (p_ == end_) return false;
      const char c = *p_++;
      if (c == '"') return true;
      if (c != '\\' || p_ == end_) return false;  // a raw control character, or a cut escape
      switch (*p_++) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (end_ - p_ < 4) return false;
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = hex(p_[i]);
            if (h < 0) return false;
            cp = cp * 16 + static_cast<unsigned>(h);
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) return false;  // surrogates: left to json::parse
          p_ += 4;
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          return false;
      }
    }
  }

  /// -?(0|[1-9][0-9]*) as a 64-bit integer (unsigned when not negative, as json::parse reads it);
  /// fractions, exponents and integers out of range are left to json::parse.
  bool number(json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E' || (*p_ >= '0' && *p_ <= '9'))) return false;
    if (negative) {
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(start, p_, v);
      if (ec != std::errc() || end != p_) return false;
      out = v;
    } else {
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(start, p_, v);
      if (ec != std::errc() || end != p_) return false;
      out = v;
    }
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<json> read_stored_json(std::string_view text) {
  json out;
  Reader reader(text.data(), text.data() + text.size());
  if (!reader.document(out)) return std::nullopt;
  return out;
}

}  // namespace superstep::internal
