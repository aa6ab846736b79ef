#include "llm/openai_stream.hpp"

#include <cstdint>
#include <optional>

#include "internal/ids.hpp"
#include "messages/message_chunks.hpp"
#include "superstep/errors.hpp"

namespace superstep::internal {
namespace {

std::string text_preview(std::string_view text, std::size_t max = 200) {
  std::string s(text.substr(0, max));
  if (text.size() > max) s += "...";
  return s;
}

/// The arguments of a tool call, parsed; nullopt when they are not JSON (the call is then an
/// invalid tool call, as LangChain makes it).
std::optional<json> parse_args(const std::string& text) {
  if (text.empty()) return json::object();
  json args = json::parse(text, nullptr, false);
  if (args.is_discarded()) return std::nullopt;
  return args;
}

/// The arguments of a streamed tool call, as LangChain reads the pieces joined: trimmed, "{}"
/// when empty, a text cut off at its end closed (partial JSON); nullopt unless an object.
std::optional<json> parse_streamed_args(const std::string& text) {
  std::optional<json> args = parse_partial_json(text.find_first_not_of(" \t\n\r\v\f") == std::string::npos ? "{}" : text);
  if (!args || !args->is_object()) return std::nullopt;
  return args;
}

/// LangChain's InvalidToolCall dict.
json invalid_call(const std::string& name, const std::string& id, const std::string& args) {
  return json{{"type", "invalid_tool_call"}, {"id", id}, {"name", name}, {"args", args}, {"error", "Malformed args."}};
}

/// LangChain's tool-call chunk dict: `id` and `name` only in the piece that has them.
json tool_call_piece(int index, std::string id, std::string name, std::string args) {
  json piece{{"index", index}, {"args", std::move(args)}, {"type", "tool_call_chunk"}};
  if (!id.empty()) piece["id"] = std::move(id);
  if (!name.empty()) piece["name"] = std::move(name);
  return piece;
}

std::string str(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json metadata(const std::string& model, const std::string& finish_reason, const json& usage) {
  json meta = json::object();
  meta["model_provider"] = "openai";
  if (!model.empty()) meta["model_name"] = model;
  if (!finish_reason.empty()) meta["finish_reason"] = finish_reason;
  if (usage.is_object()) meta["usage"] = usage;
  return meta;
}

/// LangChain's UsageMetadata from OpenAI's `usage` (null when it has no token counts).
json usage_metadata(const json& usage) {
  if (!usage.is_object()) return nullptr;
  auto count = [](const json& obj, const char* key) -> std::optional<std::int64_t> {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
  };
  auto in = count(usage, "prompt_tokens");
  auto out = count(usage, "completion_tokens");
  if (!in && !out) return nullptr;
  json meta = {{"input_tokens", in.value_or(0)},
               {"output_tokens", out.value_or(0)},
               {"total_tokens", count(usage, "total_tokens").value_or(in.value_or(0) + out.value_or(0))},
               {"input_token_details", json::object()},
               {"output_token_details", json::object()}};
  if (auto d = usage.find("prompt_tokens_details"); d != usage.end() && d->is_object()) {
    if (auto n = count(*d, "audio_tokens")) meta["input_token_details"]["audio"] = *n;
    if (auto n = count(*d, "cached_tokens")) meta["input_token_details"]["cache_read"] = *n;
  }
  if (auto d = usage.find("completion_tokens_details"); d != usage.end() && d->is_object()) {
    if (auto n = count(*d, "audio_tokens")) meta["output_token_details"]["audio"] = *n;
    if (auto n = count(*d, "reasoning_tokens")) meta["output_token_details"]["reasoning"] = *n;
  }
  return meta;
}

}  // namespace

Message parse_completion(const json& body) {
  if (!body.is_object()) throw ChatModelError("the reply is not a chat completion: " + text_preview(body.dump()));
  if (auto e = body.find("error"); e != body.end() && !e->is_null())
    throw ChatModelError("the server reported an error: " + (e->is_object() ? str(*e, "message") : e->dump()));
  auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object() ||
      !(*choices)[0].contains("message"))
    throw ChatModelError("the reply has no choices[0].message: " + text_preview(body.dump()));
  const json& choice = (*choices)[0];
  const json& msg = choice["message"];
  std::vector<ToolCall> calls;
  json invalid = json::array();
  if (auto tc = msg.find("tool_calls"); tc != msg.end() && tc->is_array()) {
    for (const json& c : *tc) {
      const json& fn = c.value("function", json::object());
      ToolCall call;
      call.id = str(c, "id");
      if (call.id.empty()) call.id = "call_" + uuid4();
      call.name = str(fn, "name");
      if (call.name.empty()) throw ChatModelError("the reply has a tool call without a name: " + text_preview(c.dump()));
      const json& a = fn.value("arguments", json(""));
      std::optional<json> args = a.is_string() ? parse_args(a.get<std::string>()) : std::optional<json>(a);
      if (!args) {
        invalid.push_back(invalid_call(call.name, call.id, a.get<std::string>()));
        continue;
      }
      call.args = std::move(*args);
      calls.push_back(std::move(call));
    }
  }
  const json& content = msg.value("content", json(nullptr));
  Message m = Message::ai(content.is_null() ? json("") : content, std::move(calls));
  m.id = str(body, "id");
  if (m.id.empty()) m.id = "run-" + uuid4();
  m.invalid_tool_calls = std::move(invalid);
  m.response_metadata = metadata(str(body, "model"), str(choice, "finish_reason"), body.value("usage", json()));
  m.usage_metadata = usage_metadata(body.value("usage", json()));
  return m;
}

void OpenAIStreamReader::feed(std::string_view bytes, const std::function<void(const ChatChunk&)>& on_chunk) {
  sse_.feed(bytes, [&](std::string_view, std::string_view data) { event(data, on_chunk); });
}

namespace {

/// The fields of a chat.completion.chunk, read without building a DOM (a chunk is mostly
/// boilerplate around a few bytes of text). Anything unusual (usage, error, a content that is
/// not a string) sets `unusual`, and the reader falls back to the full parse.
struct ChunkSax {
  struct Frame {
    bool array = false;
    std::string key;  // objects: the current key
    int elem = -1;    // arrays: the current element's index
  };
  struct Piece {
    int index = -1;
    std::string id, name, args;
  };
  std::vector<Frame> frames;
  std::string id, model, finish_reason, content;
  std::vector<Piece> pieces;
  bool unusual = false;

  // Where a value lands: 0 top, then the path choices[0].delta.tool_calls[k].function.
  bool at(std::size_t depth) const { return frames.size() == depth; }
  bool in_choice0() const { return frames.size() >= 3 && frames[0].key == "choices" && frames[1].array && frames[1].elem == 0; }
  bool in_delta() const { return frames.size() >= 4 && in_choice0() && frames[2].key == "delta"; }
  bool in_call() const { return frames.size() >= 6 && in_delta() && frames[3].key == "tool_calls" && frames[4].array; }
  Piece& piece() {
    std::size_t k = static_cast<std::size_t>(frames[4].elem);
    if (pieces.size() <= k) pieces.resize(k + 1);
    return pieces[k];
  }
  void element() {
    if (!frames.empty() && frames.back().array) ++frames.back().elem;
  }
  bool scalar(bool non_null) {
    element();
    if (non_null && at(1) && (frames[0].key == "usage" || frames[0].key == "error")) unusual = true;
    if (non_null && in_delta() && at(4) && frames[3].key == "content") unusual = true;  // content blocks
    return true;
  }

  bool null() { return scalar(false); }
  bool boolean(bool) { return scalar(true); }
  bool number_integer(json::number_integer_t v) { return number(static_cast<int64_t>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<int64_t>(v)); }
  bool number_float(json::number_float_t, const std::string&) { return scalar(true); }
  bool number(int64_t v) {
    if (in_call() && at(6) && frames[5].key == "index") {
      element();
      piece().index = static_cast<int>(v);
      return true;
    }
    return scalar(true);
  }
  bool string(std::string& v) {
    element();
    if (at(1)) {
      if (frames[0].key == "id") id = std::move(v);
      else if (frames[0].key == "model") model = std::move(v);
      else if (frames[0].key == "error") unusual = true;
    } else if (at(3) && in_choice0() && frames[2].key == "finish_reason") {
      finish_reason = std::move(v);
    } else if (at(4) && in_delta() && frames[3].key == "content") {
      content = std::move(v);
    } else if (at(6) && in_call() && frames[5].key == "id") {
      piece().id = std::move(v);
    } else if (at(7) && in_call() && frames[5].key == "function") {
      if (frames[6].key == "name") piece().name = std::move(v);
      else if (frames[6].key == "arguments") piece().args = std::move(v);
    }
    return true;
  }
  bool binary(json::binary_t&) { return scalar(true); }
  bool start_object(std::size_t) {
    element();
    if (at(1) && (frames[0].key == "usage" || frames[0].key == "error")) unusual = true;
    frames.push_back({});
    if (frames.size() == 6 && in_call()) piece();  // a call piece without fields still counts
    return true;
  }
  bool end_object() {
    frames.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    element();
    if (in_delta() && at(4) && frames[3].key == "content") unusual = true;
    frames.push_back({true, {}, -1});
    return true;
  }
  bool end_array() {
    frames.pop_back();
    return true;
  }
  bool key(std::string& k) {
    frames.back().key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

}  // namespace

void OpenAIStreamReader::event(std::string_view data, const std::function<void(const ChatChunk&)>& on_chunk) {
  if (done_) return;
  if (data == "[DONE]") {
    done_ = true;
    return;
  }
  ChunkSax sax;
  sax.frames.reserve(8);
  if (!json::sax_parse(data, &sax) || sax.unusual || !sax.frames.empty()) return event_dom(data, on_chunk);
  if (id_.empty()) id_ = sax.id.empty() ? "run-" + uuid4() : std::move(sax.id);
  if (model_.empty()) model_ = std::move(sax.model);
  if (!sax.finish_reason.empty()) finish_reason_ = std::move(sax.finish_reason);
  ChatChunk chunk;
  chunk.id = id_;
  chunk.content = std::move(sax.content);
  for (ChunkSax::Piece& p : sax.pieces) {
    int index = p.index >= 0 ? p.index : static_cast<int>(calls_.size());
    PartialCall& call = calls_[index];
    if (!p.id.empty()) call.id = p.id;
    call.name += p.name;
    call.args += p.args;
    chunk.tool_call_chunks.push_back(tool_call_piece(index, std::move(p.id), std::move(p.name), std::move(p.args)));
  }
  if (!finish_reason_.empty()) chunk.response_metadata["finish_reason"] = finish_reason_;
  content_ += chunk.content;
  if (!chunk.content.empty() || !chunk.tool_call_chunks.empty()) on_chunk(chunk);
}

void OpenAIStreamReader::event_dom(std::string_view data, const std::function<void(const ChatChunk&)>& on_chunk) {
  json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw ChatModelError("the stream sent an event that is not JSON: " + text_preview(data));
  if (auto e = j.find("error"); e != j.end() && !e->is_null())
    throw ChatModelError("the server reported an error mid-stream: " +
                         (e->is_object() ? str(*e, "message") : e->is_string() ? e->get<std::string>() : e->dump()));
  if (id_.empty()) {
    id_ = str(j, "id");
    if (id_.empty()) id_ = "run-" + uuid4();
  }
  if (model_.empty()) model_ = str(j, "model");
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) usage_ = *u;
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return;  // e.g. the usage chunk
  const json& choice = (*choices)[0];
  if (std::string fr = str(choice, "finish_reason"); !fr.empty()) finish_reason_ = fr;
  auto delta = choice.find("delta");
  if (delta == choice.end() || !delta->is_object()) return;
  ChatChunk chunk;
  chunk.id = id_;
  if (auto c = delta->find("content"); c != delta->end() && c->is_string()) chunk.content = c->get<std::string>();
  if (auto tc = delta->find("tool_calls"); tc != delta->end() && tc->is_array()) {
    for (const json& piece : *tc) {
      int index = piece.value("index", static_cast<int>(calls_.size()));
      PartialCall& call = calls_[index];
      std::string id = str(piece, "id"), name, args;
      if (auto fn = piece.find("function"); fn != piece.end() && fn->is_object()) {
        name = str(*fn, "name");
        args = str(*fn, "arguments");
      }
      if (!id.empty()) call.id = id;
      call.name += name;
      call.args += args;
      chunk.tool_call_chunks.push_back(tool_call_piece(index, std::move(id), std::move(name), std::move(args)));
    }
  }
  if (!finish_reason_.empty()) chunk.response_metadata["finish_reason"] = finish_reason_;
  content_ += chunk.content;
  if (!chunk.content.empty() || !chunk.tool_call_chunks.empty()) on_chunk(chunk);
}

Message OpenAIStreamReader::finish() {
  if (!done_ && finish_reason_.empty())
    throw ChatModelError("the stream was cut before its end (no finish_reason and no [DONE]; " +
                         std::to_string(content_.size()) + " bytes of text received)", 0, /*transient=*/true);
  std::vector<ToolCall> calls;
  json invalid = json::array();
  for (auto& [index, c] : calls_) {
    if (c.name.empty()) throw ChatModelError("the stream sent tool call #" + std::to_string(index) + " without a name");
    ToolCall call;
    call.id = c.id.empty() ? "call_" + uuid4() : c.id;
    call.name = c.name;
    std::optional<json> args = parse_streamed_args(c.args);
    if (!args) {
      invalid.push_back(invalid_call(call.name, call.id, c.args));
      continue;
    }
    call.args = std::move(*args);
    calls.push_back(std::move(call));
  }
  Message m = Message::ai(content_, std::move(calls));
  m.id = id_.empty() ? "run-" + uuid4() : id_;
  m.invalid_tool_calls = std::move(invalid);
  m.response_metadata = metadata(model_, finish_reason_, usage_);
  m.usage_metadata = usage_metadata(usage_);
  return m;
}

}  // namespace superstep::internal
