// Message conversion: a message from its LangChain/OpenAI JSON forms (Message::from_json, as
// inputs, stored state and model replies reach it), back to OpenAI's form and to JSON, and
// add_messages over lists of them. Bad shapes are superstep::Errors naming the problem.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <superstep/messages/add_messages.hpp>
#include <superstep/messages/message.hpp>

#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using superstep::json;
  json j = json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (j.is_discarded()) return 0;
  fuzz::named_errors_only([&] {
    superstep::Message m = superstep::Message::from_json(j);
    json back = m.to_json();
    superstep::Message again = superstep::Message::from_json(back);
    if (again.to_json() != back) fuzz::fail("a message does not survive to_json -> from_json");
    (void)m.to_openai();
  });
  fuzz::named_errors_only([&] {
    // add_messages folding each element of a list (or the value) into an empty list.
    auto reducer = superstep::reducers::add_messages.instantiate();
    json value = json::array();
    if (j.is_array()) {
      for (const json& update : j) reducer->reduce(value, json(update));
    } else {
      reducer->reduce(value, json(j));
    }
  });
  return 0;
}
