#include "internal/json_text.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>

namespace superstep::internal {
namespace {

// An output that appends to whichever string the thread's serializer writes now.
class Target final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  std::string* out = nullptr;
  void write_character(char c) override { out->push_back(c); }
  void write_characters(const char* s, std::size_t n) override { out->append(s, n); }
};

// json's own serializer, kept per thread: what the walk below does not write itself (floats,
// strings with something to escape or bytes above ASCII, binary) it writes, so every byte is
// dump()'s.
struct Serializer {
  explicit Serializer(json::error_handler_t on_invalid) : serializer(target, ' ', on_invalid) {}
  std::shared_ptr<Target> target = std::make_shared<Target>();
  nlohmann::detail::serializer<json> serializer;
  void write(std::string& out, const json& value) {
    target->out = &out;
    serializer.dump(value, false, false, 0);  // nothing it calls can come back here
  }
};

Serializer& strict() {
  thread_local Serializer s(json::error_handler_t::strict);
  return s;
}

Serializer& replacing() {
  thread_local Serializer s(json::error_handler_t::replace);
  return s;
}

/// Whether `text` is printable ASCII with nothing to escape: written between quotes as it is.
bool plain(std::string_view text) {
  // Eight bytes at a time: a byte below 0x20, above 0x7e, '"' or '\\' in the word sets its top
  // bit in `bad` (each test is exact as a whole: a borrow only follows a byte that tested true).
  constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    const std::uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
    const std::uint64_t bad = ((w - ones * 0x20) & ~w) |  // below 0x20
                              ((w + ones * 1) | w) |      // above 0x7e
                              ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash);
    if (bad & highs) return false;
  }
  for (const char c : text.substr(i)) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

void quoted(std::string& out, std::string_view text) {
  out += '"';
  out.append(text);
  out += '"';
}

template <typename Int>
void integer(std::string& out, Int v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

void walk(std::string& out, const json& v, Serializer& s) {
  switch (v.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : v.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        if (plain(key)) quoted(out, key);
        else s.write(out, json(key));
        out += ':';
        walk(out, value, s);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& value : v.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        walk(out, value, s);
      }
      out += ']';
      return;
    }
    case json::value_t::string: {
      const std::string& text = v.get_ref<const std::string&>();
      if (plain(text)) quoted(out, text);
      else s.write(out, v);
      return;
    }
    case json::value_t::number_integer:
      integer(out, v.get<json::number_integer_t>());
      return;
    case json::value_t::number_unsigned:
      integer(out, v.get<json::number_unsigned_t>());
      return;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case json::value_t::null:
      out += "null";
      return;
    default:  // floats, binary, discarded
      s.write(out, v);
      return;
  }
}

}  // namespace

void append_json(std::string& out, const json& value) { walk(out, value, strict()); }

std::string dump_json(const json& value) {
  std::string out;
  if (value.is_structured()) out.reserve(256);  // past a few doublings of the buffer
  walk(out, value, strict());
  return out;
}

std::string dump_json_replacing(const json& value) {
  std::string out;
  walk(out, value, replacing());
  return out;
}

void append_json_string(std::string& out, std::string_view text) {
  if (plain(text)) quoted(out, text);
  else strict().write(out, json(std::string(text)));
}

}  // namespace superstep::internal
