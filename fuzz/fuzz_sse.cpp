// The chat model's stream decoders: SseParser (any split of the bytes gives the same events)
// and OpenAIStreamReader over those bytes (chunks, then the merged message, or a
// ChatModelError naming what was wrong; never another exception, never a crash).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.hpp"
#include "llm/openai_stream.hpp"
#include "llm/sse_parser.hpp"

namespace {
std::vector<std::string> events_of(std::string_view bytes, std::size_t split) {
  superstep::internal::SseParser p;
  std::vector<std::string> out;
  auto on = [&](std::string_view event, std::string_view data) {
    out.push_back(std::string(event) + '\0' + std::string(data));
  };
  if (split > bytes.size()) split = bytes.size();
  p.feed(bytes.substr(0, split), on);
  p.feed(bytes.substr(split), on);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::size_t split = data[0];
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (events_of(bytes, split) != events_of(bytes, bytes.size())) fuzz::fail("SseParser: the split changed the events");
  fuzz::named_errors_only([&] {
    superstep::internal::OpenAIStreamReader reader;
    std::size_t chunks = 0;
    reader.feed(bytes.substr(0, std::min(split, bytes.size())), [&](const superstep::ChatChunk&) { ++chunks; });
    reader.feed(bytes.substr(std::min(split, bytes.size())), [&](const superstep::ChatChunk&) { ++chunks; });
    superstep::Message m = reader.finish();
    (void)m.to_openai();
  });
  return 0;
}
