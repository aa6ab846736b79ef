#include "superstep/llm/chat_model.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>

#include "messages/message_chunks.hpp"
#include "superstep/errors.hpp"
#include "superstep/stream.hpp"

namespace superstep {

json ChatChunk::to_json() const {
  // As LangChain's chunks: the tool calls its pieces make so far (arguments read as partial JSON).
  json calls = json::array(), invalid = json::array();
  if (!tool_call_chunks.empty()) {
    json collapsed = internal::collapse_tool_call_chunks(tool_call_chunks);
    calls = std::move(collapsed["tool_calls"]);
    invalid = std::move(collapsed["invalid_tool_calls"]);
  }
  return json{{"type", "AIMessageChunk"},      {"id", id},
              {"content", content},            {"tool_call_chunks", tool_call_chunks},
              {"tool_calls", std::move(calls)}, {"invalid_tool_calls", std::move(invalid)},
              {"additional_kwargs", json::object()}, {"response_metadata", response_metadata},
              {"name", nullptr}};
}

std::vector<Message> to_messages(const json& list) {
  std::vector<Message> out;
  if (list.is_null()) return out;
  if (!list.is_array()) {
    out.push_back(Message::from_json(list));
    return out;
  }
  out.reserve(list.size());
  for (const json& m : list) out.push_back(Message::from_json(m));
  return out;
}

ChatRequest ChatModel::request(std::vector<Message> messages, bool stream) const {
  ChatRequest r;
  r.messages = std::move(messages);
  r.options = options_;
  r.tools = tools_;
  r.stream = stream;
  return r;
}

namespace {

/// Waits for one reply on the calling thread.
struct Waiter {
  std::mutex mutex;  // guards the rest
  std::condition_variable cv;
  std::optional<Message> message;
  std::exception_ptr error;
  bool done = false;

  ChatCallbacks callbacks(std::shared_ptr<Waiter> self) {
    ChatCallbacks cb;
    cb.on_message = [self](Message m) {
      std::lock_guard lock(self->mutex);
      self->message.emplace(std::move(m));
      self->done = true;
      self->cv.notify_all();
    };
    cb.on_error = [self](std::exception_ptr e) {
      std::lock_guard lock(self->mutex);
      self->error = std::move(e);
      self->done = true;
      self->cv.notify_all();
    };
    return cb;
  }
  Message wait() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return done; });
    if (error) std::rethrow_exception(error);
    return std::move(*message);
  }
};

json stream_metadata(const ChatModel& m) {
  json meta = {{"ls_provider", m.provider()}, {"ls_model_type", "chat"}};
  if (!m.model_name().empty()) meta["ls_model_name"] = m.model_name();
  if (m.options().temperature) meta["ls_temperature"] = *m.options().temperature;
  return meta;
}

}  // namespace

Message ChatModel::invoke(const std::vector<Message>& messages) const {
  auto w = std::make_shared<Waiter>();
  start(request(messages, false), w->callbacks(w));
  return w->wait();
}

Message ChatModel::invoke(const std::vector<Message>& messages, const Runtime& rt) const {
  const bool streaming = rt.streams(StreamMode::messages);
  auto w = std::make_shared<Waiter>();
  ChatCallbacks cb = w->callbacks(w);
  if (streaming)
    cb.on_chunk = [&rt, meta = stream_metadata(*this)](const ChatChunk& c) { rt.emit_message(c.to_json(), meta); };
  start(request(messages, streaming), std::move(cb));
  return w->wait();
}

Task<Message> ChatModel::ainvoke(std::vector<Message> messages, const Runtime& rt) const {
  const bool streaming = rt.streams(StreamMode::messages);
  ChatRequest req = request(std::move(messages), streaming);
  json meta = streaming ? stream_metadata(*this) : json();
  // (The awaiter is named: GCC 12 mishandles temporaries in a co_await operand.)
  auto reply = await_callback<Message>(rt, [&](Completion<Message> done) {
    ChatCallbacks cb;
    if (streaming)
      cb.on_chunk = [&rt, meta = std::move(meta)](const ChatChunk& c) { rt.emit_message(c.to_json(), meta); };
    cb.on_message = [done](Message m) { done.complete(std::move(m)); };
    cb.on_error = [done](std::exception_ptr e) { done.fail(std::move(e)); };
    start(std::move(req), std::move(cb));
  });
  co_return co_await reply;
}

// --- ChatStream ---

struct ChatStream::Shared {
  std::mutex mutex;  // guards the rest
  std::condition_variable cv;
  std::deque<ChatChunk> chunks;
  std::optional<Message> message;
  std::exception_ptr error;
  bool done = false;
};

ChatStream ChatModel::stream(const std::vector<Message>& messages) const {
  auto s = std::make_shared<ChatStream::Shared>();
  ChatCallbacks cb;
  cb.on_chunk = [s](const ChatChunk& c) {
    std::lock_guard lock(s->mutex);
    s->chunks.push_back(c);
    s->cv.notify_all();
  };
  cb.on_message = [s](Message m) {
    std::lock_guard lock(s->mutex);
    s->message.emplace(std::move(m));
    s->done = true;
    s->cv.notify_all();
  };
  cb.on_error = [s](std::exception_ptr e) {
    std::lock_guard lock(s->mutex);
    s->error = std::move(e);
    s->done = true;
    s->cv.notify_all();
  };
  start(request(messages, true), std::move(cb));
  return ChatStream(s);
}

ChatStream::iterator ChatStream::begin() {
  advance();
  return iterator(this);
}

void ChatStream::advance() {
  std::unique_lock lock(shared_->mutex);
  shared_->cv.wait(lock, [&] { return !shared_->chunks.empty() || shared_->done; });
  if (!shared_->chunks.empty()) {
    current_ = std::move(shared_->chunks.front());
    shared_->chunks.pop_front();
    return;
  }
  current_.reset();
  if (shared_->error) std::rethrow_exception(shared_->error);
}

const Message& ChatStream::message() const {
  std::lock_guard lock(shared_->mutex);
  if (!shared_->message) throw Error("ChatStream::message(): the stream has not ended (iterate it to the end first)");
  return *shared_->message;
}

// --- binding ---

std::shared_ptr<ChatModel> ChatModel::bind_tools(std::vector<Tool> tools, json tool_choice) const {
  for (std::size_t i = 0; i < tools.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (tools[i].name() == tools[j].name())
        throw Error("bind_tools: two tools are named '" + tools[i].name() + "'");
  auto m = clone();
  m->tools_ = std::move(tools);
  if (!tool_choice.is_null()) m->options_.tool_choice = std::move(tool_choice);
  return m;
}

std::shared_ptr<ChatModel> ChatModel::with_options(ChatOptions o) const {
  auto m = clone();
  ChatOptions& mine = m->options_;
  if (o.temperature) mine.temperature = o.temperature;
  if (o.max_tokens) mine.max_tokens = o.max_tokens;
  if (!o.stop.empty()) mine.stop = std::move(o.stop);
  if (!o.response_format.is_null()) mine.response_format = std::move(o.response_format);
  if (!o.tool_choice.is_null()) mine.tool_choice = std::move(o.tool_choice);
  if (o.extra.is_object()) {
    if (!mine.extra.is_object()) mine.extra = json::object();
    mine.extra.update(o.extra);
  }
  return m;
}

StructuredOutput ChatModel::with_structured_output(json schema, std::string name) const {
  if (!schema.is_object()) throw Error("with_structured_output: the schema must be a JSON object");
  ChatOptions o;
  o.response_format = {{"type", "json_schema"},
                       {"json_schema", {{"name", std::move(name)}, {"schema", std::move(schema)}, {"strict", true}}}};
  return StructuredOutput(with_options(std::move(o)));
}

namespace {
json parse_structured(const Message& m) {
  std::string text = m.text();
  json out = json::parse(text, nullptr, false);
  if (out.is_discarded() || !out.is_object())
    throw OutputParserError("structured output: the model's reply is not a JSON object: " +
                            (text.size() > 200 ? text.substr(0, 200) + "..." : text));
  return out;
}
}  // namespace

json StructuredOutput::invoke(const std::vector<Message>& messages) const {
  return parse_structured(model_->invoke(messages));
}

Task<json> StructuredOutput::ainvoke(std::vector<Message> messages, const Runtime& rt) const {
  Task<Message> call = model_->ainvoke(std::move(messages), rt);
  Message m = co_await std::move(call);
  co_return parse_structured(m);
}

}  // namespace superstep
