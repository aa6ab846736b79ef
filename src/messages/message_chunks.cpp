#include "messages/message_chunks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace superstep::internal {
namespace {

struct Malformed {};  // thrown inside the parser: the text goes wrong before its end

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// A recursive-descent reader that accepts a value cut off anywhere (LangChain.js'
/// strictParsePartialJson): what is open at the end is closed.
class Partial {
 public:
  explicit Partial(std::string_view s) : s_(s) {}

  json document() {
    json v = value();
    skip();
    if (pos_ < s_.size()) throw Malformed{};
    return v;
  }

 private:
  bool end() const { return pos_ >= s_.size(); }
  void skip() {
    while (!end() && space(s_[pos_])) ++pos_;
  }

  json value() {
    skip();
    if (end()) throw Malformed{};
    const char c = s_[pos_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    // A prefix of a literal (up to its length) is that literal.
    for (auto [word, v] : {std::pair<std::string_view, json>{"null", nullptr}, {"true", true}, {"false", false}}) {
      std::string_view have = s_.substr(pos_, word.size());
      if (word.starts_with(have)) {
        pos_ += have.size();
        return v;
      }
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    throw Malformed{};
  }

  json string() {
    if (s_[pos_] != '"') throw Malformed{};
    ++pos_;
    std::string out;
    std::uint32_t high = 0;  // a high surrogate escape waiting for its low half
    auto flush_high = [&] {
      if (high) append_utf8(out, 0xFFFD);
      high = 0;
    };
    bool escaped = false;
    while (!end()) {
      const char c = s_[pos_];
      if (escaped) {
        escaped = false;
        if (c == 'u') {
          std::size_t n = 0;
          while (n < 4 && pos_ + 1 + n < s_.size() && hex_digit(s_[pos_ + 1 + n])) ++n;
          if (n < 4 && pos_ + 1 + n < s_.size()) throw Malformed{};  // a non-hex character inside
          if (n == 4) {
            auto unit = static_cast<std::uint32_t>(std::strtoul(std::string(s_.substr(pos_ + 1, 4)).c_str(), nullptr, 16));
            if (unit >= 0xDC00 && unit <= 0xDFFF && high) {
              append_utf8(out, 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
              high = 0;
            } else {
              flush_high();
              if (unit >= 0xD800 && unit <= 0xDBFF) high = unit;
              else append_utf8(out, unit >= 0xDC00 && unit <= 0xDFFF ? 0xFFFD : unit);
            }
          } else {
            flush_high();
            out += 'u';  // cut off inside the escape: kept as text, as LangChain.js does
            out.append(s_.substr(pos_ + 1, n));
          }
          pos_ += n;
        } else {
          flush_high();
          switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case '\\': out += '\\'; break;
            case '"': out += '"'; break;
            case '/': out += '/'; break;
            default: throw Malformed{};
          }
        }
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        flush_high();
        ++pos_;
        return out;
      } else {
        flush_high();
        out += c;
      }
      ++pos_;
    }
    flush_high();
    if (escaped) out += '\\';
    return out;
  }

  json number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      while (!end() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    };
    if (s_[pos_] == '-') ++pos_;
    if (!end() && s_[pos_] == '0') {
      ++pos_;
      if (!end() && s_[pos_] >= '0' && s_[pos_] <= '9') throw Malformed{};
    }
    if (!end() && s_[pos_] >= '1' && s_[pos_] <= '9') digits();
    bool integral = true;
    if (!end() && s_[pos_] == '.') {
      integral = false;
      ++pos_;
      digits();
    }
    if (!end() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (!end() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      digits();
    }
    const std::string text(s_.substr(start, pos_ - start));
    if (text == "-") return 0;  // -0, which JSON writes as 0
    char* stop = nullptr;
    const double d = std::strtod(text.c_str(), &stop);
    if (stop == text.c_str()) throw Malformed{};  // "-." and the like
    if (integral) {
      errno = 0;
      const long long i = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == 0) return i;
    }
    // A whole number cut before its fraction or exponent ("1.", "1e") is that number, as a
    // JavaScript number would print.
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0) return static_cast<std::int64_t>(d);
    return d;
  }

  json array() {
    ++pos_;  // '['
    json out = json::array();
    skip();
    if (end()) return out;
    if (s_[pos_] == ']') {
      ++pos_;
      return out;
    }
    while (!end()) {
      skip();
      if (end()) return out;
      out.push_back(value());
      skip();
      if (end()) return out;
      if (s_[pos_] == ']') {
        ++pos_;
        return out;
      }
      if (s_[pos_] != ',') throw Malformed{};
      ++pos_;
    }
    return out;
  }

  json object() {
    ++pos_;  // '{'
    json out = json::object();
    skip();
    if (end()) return out;
    if (s_[pos_] == '}') {
      ++pos_;
      return out;
    }
    while (!end()) {
      skip();
      if (end()) return out;
      if (s_[pos_] != '"') throw Malformed{};
      std::string key = string().get<std::string>();
      skip();
      if (end()) return out;
      if (s_[pos_] != ':') throw Malformed{};
      ++pos_;
      skip();
      if (end()) return out;
      out[key] = value();
      skip();
      if (end()) return out;
      if (s_[pos_] == '}') {
        ++pos_;
        return out;
      }
      if (s_[pos_] != ',') throw Malformed{};
      ++pos_;
    }
    return out;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

bool present(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && !it->is_null();
}

bool nonempty_string(const json& v) { return v.is_string() && !v.get_ref<const std::string&>().empty(); }

/// A non-empty string id (LangChain's "mergeable" id).
bool has_id(const json& c) {
  auto it = c.find("id");
  return it != c.end() && nonempty_string(*it);
}

bool has_index(const json& c) {
  auto it = c.find("index");
  return it != c.end() && (it->is_number() || it->is_string());
}

/// LangChain's _mergeDicts for two tool-call pieces: a field the left lacks is taken; `id` and
/// `name` take the right's when it has one; `index` and `type` stay; other texts are joined.
void merge_piece(json& left, const json& right) {
  for (auto it = right.begin(); it != right.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_null()) continue;
    json& l = left[key];
    if (l.is_null()) {
      l = *it;
    } else if (l.is_string() && it->is_string()) {
      if (key == "type" || key == "index") continue;
      if (key == "id" || key == "name") {
        if (!it->get_ref<const std::string&>().empty()) l = *it;
      } else {
        l = l.get<std::string>() + it->get<std::string>();
      }
    }
  }
}

}  // namespace

std::optional<json> parse_partial_json(std::string_view text) {
  json whole = json::parse(text, nullptr, false);
  if (!whole.is_discarded()) return whole;
  std::string_view s = trimmed(text);
  if (s.empty()) return std::nullopt;
  try {
    return Partial(s).document();
  } catch (const Malformed&) {
    return std::nullopt;
  }
}

json collapse_tool_call_chunks(const json& chunks) {
  json calls = json::array(), invalid = json::array();
  if (!chunks.is_array()) return json{{"tool_calls", calls}, {"invalid_tool_calls", invalid}};
  // Pieces of one call: the group whose first piece has this piece's id and index (both, when
  // the piece has both), else its id, else its index.
  std::vector<std::vector<const json*>> groups;
  for (const json& c : chunks) {
    if (!c.is_object()) continue;
    std::vector<const json*>* match = nullptr;
    for (auto& g : groups) {
      const json& first = *g.front();
      bool same;
      if (has_id(c) && has_index(c)) same = first.value("id", json()) == c["id"] && first.value("index", json()) == c["index"];
      else if (has_id(c)) same = first.value("id", json()) == c["id"];
      else if (has_index(c)) same = first.value("index", json()) == c["index"];
      else same = false;
      if (same) {
        match = &g;
        break;
      }
    }
    if (match) match->push_back(&c);
    else groups.push_back({&c});
  }
  for (const auto& g : groups) {
    const json& first = *g.front();
    std::string name = present(first, "name") && first["name"].is_string() ? first["name"].get<std::string>() : "";
    std::string joined;
    for (const json* c : g)
      if (auto a = c->find("args"); a != c->end() && a->is_string()) joined += a->get<std::string>();
    std::string args(trimmed(joined));
    if (args.empty()) args = "{}";
    json id;
    for (const json* c : g)
      if (has_id(*c)) {
        id = (*c)["id"];
        break;
      }
    if (id.is_null() && present(first, "id")) id = first["id"];
    std::optional<json> parsed = parse_partial_json(args);
    if (!nonempty_string(id) || !parsed || !parsed->is_object()) {
      json bad{{"name", name}, {"args", args}, {"error", "Malformed args."}, {"type", "invalid_tool_call"}};
      if (!id.is_null()) bad["id"] = id;
      invalid.push_back(std::move(bad));
      continue;
    }
    calls.push_back(json{{"name", name}, {"args", std::move(*parsed)}, {"id", id}, {"type", "tool_call"}});
  }
  return json{{"tool_calls", std::move(calls)}, {"invalid_tool_calls", std::move(invalid)}};
}

void concat_message_chunk(json& acc, const json& chunk) {
  if (acc.is_null() || !acc.is_object() || !chunk.is_object()) {
    acc = chunk;
    return;
  }
  for (auto it = chunk.begin(); it != chunk.end(); ++it) {
    const std::string& key = it.key();
    json& mine = acc[key];
    if (key == "content" && mine.is_string() && it->is_string()) {
      mine = mine.get<std::string>() + it->get<std::string>();
    } else if (key == "content" && mine.is_array() && it->is_array()) {
      for (const json& part : *it) mine.push_back(part);
    } else if (key == "tool_call_chunks" && mine.is_array() && it->is_array()) {
      // LangChain's _mergeLists: a piece merges into the piece of the same index (and the same
      // id, when both have one), else it is added.
      for (const json& piece : *it) {
        json* target = nullptr;
        for (json& have : mine) {
          if (!has_index(have) || !has_index(piece) || have["index"] != piece["index"]) continue;
          if (has_id(have) && has_id(piece) && have["id"] != piece["id"]) continue;
          target = &have;
          break;
        }
        if (target) merge_piece(*target, piece);
        else mine.push_back(piece);
      }
    } else if (key == "id") {
      if (mine.is_null()) mine = *it;  // the first chunk's
    } else if (key == "tool_calls" || key == "invalid_tool_calls") {
      // read again from the merged pieces below
    } else if (!it->is_null()) {
      mine = *it;
    }
  }
  if (acc.contains("tool_call_chunks") && acc["tool_call_chunks"].is_array() && !acc["tool_call_chunks"].empty()) {
    json collapsed = collapse_tool_call_chunks(acc["tool_call_chunks"]);
    acc["tool_calls"] = std::move(collapsed["tool_calls"]);
    acc["invalid_tool_calls"] = std::move(collapsed["invalid_tool_calls"]);
  }
}

}  // namespace superstep::internal
