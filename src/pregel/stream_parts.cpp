// What a task reaches of its run, and what the loop streams about tasks: Runtime's forwarding
// to the task's run, interrupt(), task ids and paths, and the `tasks`, `debug`, `updates` and
// `messages` parts of a task as LangGraph shows them.
#include "internal/ids.hpp"
#include "pregel/loop.hpp"
#include "pregel/persistence.hpp"

namespace superstep {

// --- Runtime: thin forwarding to the task context ---
void Runtime::stream_writer(json chunk) const { ctx_->run->emit(StreamMode::custom, std::move(chunk)); }
const RunConfig& Runtime::config() const { return ctx_->run->config(); }
int64_t Runtime::step() const { return ctx_->step; }
const std::string& Runtime::node() const { return ctx_->node->name; }
std::string Runtime::task_id() const { return ctx_->id(); }
bool Runtime::cancelled() const { return ctx_->run->cancelled(); }

namespace internal {
void throw_await_cancelled(const char* what) {
  throw RunCancelledError(std::string(what) + ": the run was stopped while the node waited");
}
}  // namespace internal
BaseStore* Runtime::store() const { return ctx_->run->store(); }
int64_t Runtime::remaining_steps() const { return ctx_->run->stop_step() - ctx_->step; }
bool Runtime::streams(StreamMode mode) const { return ctx_->run->wants(mode); }
void Runtime::emit_message(json chunk, const json& extra) const {
  ctx_->run->emit_message(static_cast<internal::ExecutableTask&>(*ctx_), std::move(chunk), extra);
}
void Runtime::post(std::function<void()> fn) const { ctx_->run->post(std::move(fn)); }
void Runtime::post_after(std::chrono::nanoseconds delay, std::function<void()> fn) const {
  ctx_->run->post_after(delay, std::move(fn));
}


json interrupt(const Runtime& rt, json value) {
  auto& task = static_cast<internal::ExecutableTask&>(rt.task_context());
  return task.run->interrupt(task, std::move(value));
}

namespace internal {

const std::string& TaskContext::id() const {
  if (id_.empty()) {
    const std::string& cp = run->checkpoint_id();
    std::string step_s = std::to_string(step);
    if (push) {
      std::string idx = std::to_string(push_index);
      id_ = hash_id({cp, run->config().checkpoint_ns, step_s, node->name, "__pregel_push", idx});
    } else {
      std::string triggers;
      for (int t : node->triggers) triggers += run->graph().channels[t].name + ",";
      id_ = hash_id({cp, run->config().checkpoint_ns, step_s, node->name, "__pregel_pull", triggers});
    }
  }
  return id_;
}

json task_path(const TaskContext& t) {
  return t.push ? json::array({"__pregel_push", t.push_index}) : json::array({"__pregel_pull", t.node->name});
}

void TaskDeleter::operator()(ExecutableTask* t) const noexcept { delete t; }


json PregelLoop::interrupt(ExecutableTask& t, json value) {
  if (!cp_)
    throw GraphValueError("graph '" + s_.g->name + "': node '" + t.node->name +
                          "' called interrupt(), which needs a checkpointer (CompileOptions::checkpointer) and a thread_id");
  return cp_->interrupt(t, std::move(value));
}

// --- RunnerHost: a finished task ---

void PregelLoop::save_task_writes(ExecutableTask& t) { cp_->save_task_writes(t); }

json PregelLoop::output_keys_of(json update) const {
  // As LangGraph: the run of a subgraph with an output schema shows its tasks' writes to the
  // output's keys only (an empty object when none).
  auto shown = [&](const std::string& key) {
    const int id = s_.g->find_key(key);
    return id >= 0 && s_.g->output_mask[id];
  };
  if (update.is_array()) {  // one object per write (a key written more than once)
    json out = json::array();
    for (json& one : update)
      if (one.is_object() && !one.empty() && shown(one.begin().key())) out.push_back(std::move(one));
    return out;
  }
  json out = json::object();
  if (update.is_object())
    for (auto it = update.begin(); it != update.end(); ++it)
      if (shown(it.key())) out[it.key()] = std::move(it.value());
  return out;
}

void PregelLoop::stream_task_result(ExecutableTask& t) {
  // LangGraph shows a node's returned messages (on_chain_end) before its update.
  if (!t.error && !t.paused && wants(StreamMode::messages)) emit_returned_messages(t);
  if (t.paused && !t.interrupts.empty()) {
    // As LangGraph: the task's interrupts as an `updates` part and, right after it (no other
    // task's part in between), a `values` part.
    json list = interrupts_json(t.interrupts);
    s_.out.emit_together({StreamPart{StreamMode::updates, {}, json{{kInterruptChannel, list}}},
                          StreamPart{StreamMode::values, {}, json{{kInterruptChannel, list}}}});
  } else if (!t.paused && !t.error && wants(StreamMode::updates)) {
    // (A task paused with no interrupts, a subgraph stopped at its own interrupt_before or
    // interrupt_after, streams nothing: the root announces the pause when the step is over.)
    if (s_.values_show_output()) t.stream_update = output_keys_of(std::move(t.stream_update));
    emit(StreamMode::updates, json{{t.node->name, std::move(t.stream_update)}});
  }
  emit_task_result(t);
}

// --- messages ---

json PregelLoop::message_metadata(const ExecutableTask& t) const {
  json path = task_path(t);
  std::string ns = s_.task_ns(t);
  return json{{"langgraph_step", t.step},          {"langgraph_node", t.node->name},
              {"langgraph_triggers", trigger_names(t)}, {"langgraph_path", std::move(path)},
              {"langgraph_checkpoint_ns", ns},     {"checkpoint_ns", ns}};
}

void PregelLoop::emit_message(const ExecutableTask& t, json chunk, const json& extra) {
  if (!wants(StreamMode::messages)) return;
  if (chunk.is_object())
    if (auto id = chunk.find("id"); id != chunk.end() && id->is_string() && !id->get_ref<const std::string&>().empty())
      s_.out.first_sent(id->get<std::string>());
  json meta = message_metadata(t);
  if (extra.is_object())
    for (const auto& [k, v] : extra.items()) meta[k] = v;
  emit(StreamMode::messages, json::array({std::move(chunk), std::move(meta)}));
}

namespace {
bool is_message_dict(const json& v) {
  if (!v.is_object()) return false;
  auto type = v.find("type");
  if (type == v.end() || !type->is_string() || !v.contains("content")) return false;
  const std::string& s = type->get_ref<const std::string&>();
  return s == "ai" || s == "human" || s == "system" || s == "tool" || s == "AIMessageChunk";
}
}  // namespace

void PregelLoop::mark_input_messages(const ExecutableTask& t) {
  // As LangGraph's messages handler when a node starts: the messages it is given count as sent,
  // so a node returning one of them (edited or not) does not show it again.
  auto mark = [&](const json& v) {
    auto one = [&](const json& m) {
      if (!is_message_dict(m)) return;
      if (auto id = m.find("id"); id != m.end() && id->is_string() && !id->get_ref<const std::string&>().empty())
        s_.out.first_sent(id->get<std::string>());
    };
    if (v.is_array())
      for (const json& m : v) one(m);
    else
      one(v);
  };
  if (t.send_arg || t.typed_arg || s_.g->typed) {
    json in = task_input_json(t);
    if (in.is_object())
      for (const auto& [key, v] : in.items()) mark(v);
    return;
  }
  for (const std::string& key : s_.g->state_keys)
    if (const json* v = t.input->find(key)) mark(*v);
}

void PregelLoop::emit_returned_messages(const ExecutableTask& t) {
  // LangGraph's messages mode also shows the messages a node returns that no model streamed.
  json meta;
  auto one = [&](const json& m) {
    if (!is_message_dict(m)) return;
    if (auto id = m.find("id"); id != m.end() && id->is_string() && !id->get_ref<const std::string&>().empty())
      if (!s_.out.first_sent(id->get<std::string>())) return;
    if (meta.is_null()) meta = message_metadata(t);
    emit(StreamMode::messages, json::array({m, meta}));
  };
  for (const auto& [cid, v] : t.writes) {
    if (!v.is_json()) continue;
    const json& j = v.as_json();
    if (j.is_array())
      for (const json& m : j) one(m);
    else
      one(j);
  }
}

// --- tasks and debug ---

std::vector<std::string> PregelLoop::trigger_names(const ExecutableTask& t) const {
  if (t.push) return {"__pregel_push"};
  std::vector<std::string> out;
  for (int c : t.node->triggers) out.push_back(s_.g->channels[c].name);
  return out;
}

json PregelLoop::task_input_json(const ExecutableTask& t) const {
  if (t.typed_arg) return s_.g->typed->to_json(t.typed_arg.get());
  if (s_.g->typed) return s_.state_json();
  if (t.send_arg) return *t.send_arg;
  return t.input->to_json();
}

void PregelLoop::emit_task_start(const ExecutableTask& t) {
  if (!wants(StreamMode::tasks) && !wants(StreamMode::debug)) return;
  json payload = {{"id", t.id()},
                  {"name", t.node->name},
                  {"input", task_input_json(t)},
                  {"triggers", trigger_names(t)},
                  {"interrupts", json::array()}};
  emit_task_parts(std::move(payload), "task");
}

void PregelLoop::emit_task_parts(json payload, const char* debug_type) {
  // Same order as LangGraph.js: the tasks part, then the debug part wrapping it, together (no
  // part of a task finishing at the same moment on another thread in between).
  std::vector<StreamPart> parts;
  if (wants(StreamMode::tasks)) parts.push_back(StreamPart{StreamMode::tasks, {}, payload});
  if (wants(StreamMode::debug))
    parts.push_back(StreamPart{StreamMode::debug, {},
                               json{{"step", s_.step}, {"type", debug_type}, {"timestamp", now_iso8601()},
                                    {"payload", std::move(payload)}}});
  s_.out.emit_together(std::move(parts));
}

void PregelLoop::emit_task_result(const ExecutableTask& t) {
  if (!wants(StreamMode::tasks) && !wants(StreamMode::debug)) return;
  json result = task_result_of(updates_of(*s_.g, t.writes));
  if (result.is_null()) result = json::object();
  json error = t.error ? json(describe(t.error)) : json(nullptr);
  json payload = {{"id", t.id()},
                  {"name", t.node->name},
                  {"error", error},
                  {"result", t.error ? json::object() : result},
                  {"interrupts", interrupts_json(t.interrupts)}};  // the task paused on these
  emit_task_parts(std::move(payload), "task_result");
}

}  // namespace superstep::internal
}  // namespace superstep
