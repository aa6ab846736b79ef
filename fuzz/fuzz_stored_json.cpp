// The savers' fast reader of stored JSON (checkpoint/stored_json.hpp), differentially against
// json::parse: for every text it reads, json::parse reads the same value; it never accepts a
// text json::parse rejects (it may decline a text json::parse reads: the caller falls back).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checkpoint/stored_json.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<superstep::json> fast = superstep::internal::read_stored_json(text);
  superstep::json slow = superstep::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (fast) {
    if (slow.is_discarded()) fuzz::fail("read_stored_json accepted a text json::parse rejects");
    if (*fast != slow) fuzz::fail("read_stored_json read a different value than json::parse");
    if (fast->dump() != slow.dump()) fuzz::fail("read_stored_json's value dumps differently");
  }
  return 0;
}
