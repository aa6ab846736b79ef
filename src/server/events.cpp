// Core::emit: a run's stream parts as the SSE events of the LangGraph Platform API, appended to
// the run's event log. Event names are the modes' (`messages-tuple` is `messages`), with
// `|<namespace>` parts for subgraphs; checkpoint payloads gain `checkpoint` and
// `parent_checkpoint`; message metadata gains the run's ids; the legacy `messages` mode is
// made of `messages/metadata`, `messages/partial` (the message so far) and `messages/complete`.
#include <algorithm>

#include "messages/message_chunks.hpp"
#include "server/core.hpp"

namespace superstep::server {

namespace {

/// `{thread_id, checkpoint_ns, checkpoint_id, checkpoint_map}` of a `{configurable: ...}` config.
json checkpoint_of(const json& config) {
  if (!config.is_object() || !config.contains("configurable")) return nullptr;
  const json& c = config["configurable"];
  return json{{"thread_id", c.value("thread_id", json(nullptr))},
              {"checkpoint_ns", c.value("checkpoint_ns", json(""))},
              {"checkpoint_id", c.value("checkpoint_id", json(nullptr))},
              {"checkpoint_map", nullptr}};
}

}  // namespace

void Core::emit(RunSlot& run, const StreamPart& part) {
  const json& wanted = run.doc["kwargs"]["stream_mode"];
  auto asked = [&](std::string_view m) { return std::find(wanted.begin(), wanted.end(), m) != wanted.end(); };
  std::string suffix;
  for (const auto& ns : part.ns) suffix += "|" + ns;
  const bool root = part.ns.empty();

  if (part.mode == StreamMode::values && root) {
    run.last_values = part.data;
    run.has_values = true;
    run.paused = part.data.is_object() && part.data.contains("__interrupt__");
    if (!run.paused) run.last_state = part.data;
  }
  if (asked("messages") && part.mode == StreamMode::values && part.data.is_object() && part.data.contains("messages") &&
      part.data["messages"].is_array()) {
    // Legacy mode: each message of the state is completed once.
    json done = json::array();
    for (const json& m : part.data["messages"])
      if (m.is_object() && m.contains("id") && m["id"].is_string() && run.messages_completed.insert(m["id"]).second)
        done.push_back(m);
    if (!done.empty()) run.log->append("messages/complete" + suffix, dump_wire(done));
  }

  if (part.mode == StreamMode::messages) {
    if (!part.data.is_array() || part.data.size() != 2) return;
    json metadata = part.data[1].is_object() ? part.data[1] : json::object();
    // As LangGraph's server: the run's ids with the task's metadata.
    const json& config = run.doc["kwargs"]["config"];
    metadata["tags"] = config.contains("tags") && config["tags"].is_array() ? config["tags"] : json::array();
    metadata["thread_id"] = run.doc["thread_id"];
    metadata["run_id"] = run.doc["run_id"];
    metadata["assistant_id"] = run.doc["assistant_id"];
    metadata["run_attempt"] = run.attempt;
    if (asked("messages-tuple")) run.log->append("messages" + suffix, dump_wire(json::array({part.data[0], metadata})));
    if (asked("messages")) {
      const json& chunk = part.data[0];
      std::string id = chunk.is_object() && chunk.contains("id") && chunk["id"].is_string() ? chunk["id"].get<std::string>() : "";
      if (run.messages_described.insert(id).second)
        run.log->append("messages/metadata" + suffix, dump_wire(json{{id, {{"metadata", metadata}}}}));
      json& acc = run.messages_partial[id];
      internal::concat_message_chunk(acc, chunk);  // LangChain's AIMessageChunk.concat
      run.log->append("messages/partial" + suffix, dump_wire(json::array({acc})));
    }
    return;
  }

  std::string mode(to_string(part.mode));
  if (!asked(mode)) return;
  if (part.mode == StreamMode::checkpoints ||
      (part.mode == StreamMode::debug && part.data.is_object() && part.data.value("type", "") == "checkpoint")) {
    json data = part.data;
    json& payload = part.mode == StreamMode::debug ? data["payload"] : data;
    if (payload.is_object()) {
      payload["checkpoint"] = checkpoint_of(payload.value("config", json(nullptr)));
      payload["parent_checkpoint"] = checkpoint_of(payload.value("parent_config", json(nullptr)));
    }
    run.log->append(mode + suffix, dump_wire(data));
    return;
  }
  run.log->append(mode + suffix, dump_wire(part.data));
}

}  // namespace superstep::server
