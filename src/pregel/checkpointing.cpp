// Saving a checkpointed run (docs/persistence.md): each task's writes as it finishes, a
// checkpoint per superstep (the durability modes), interrupts and their answers, pausing, and
// releasing the thread at the end. Runs on the consumer's thread except save_task_writes and
// interrupt, which run on the task's thread.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"

namespace superstep {

json interrupt(Runtime& rt, json value) {
  auto& task = static_cast<internal::ExecutableTask&>(rt.context());
  return task.run->interrupt(task, std::move(value));
}

namespace internal {
namespace {

std::string interrupt_id(const std::string& ns, std::size_t answered) {
  std::string id = hash_id({answered == 0 ? ns : ns + "|" + std::to_string(answered)});
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  return id;
}

}  // namespace

// --- writes as stored ---

json PregelRun::encode_writes(const ExecutableTask& t) const {
  json out = json::array();
  for (const auto& [c, v] : t.writes) out.push_back(json::array({g_->state_keys[c], v.to_json()}));
  for (int c : t.control) {
    const ChannelData& cd = g_->channels[c];
    out.push_back(json::array({cd.name, cd.role == ChannelRole::join ? json(t.node->name) : json(nullptr)}));
  }
  for (const Send& s : t.sends)
    out.push_back(json::array(
        {kTasksChannel, json{{"node", s.node}, {"arg", s.typed_arg ? g_->typed->to_json(s.typed_arg.get()) : s.arg}}}));
  return out;
}

void PregelRun::decode_write(ExecutableTask& t, const std::string& channel, const json& value) {
  auto fail = [&](const std::string& what) {
    throw CheckpointError("graph '" + g_->name + "', thread '" + config_.thread_id + "': a pending write " + what);
  };
  if (channel == kTasksChannel) {
    if (!value.is_object() || !value.contains("node") || !value["node"].is_string())
      fail("holds a malformed Send: " + preview(value));
    if (g_->typed) fail("holds a Send of typed state, which cannot be restored");
    if (g_->find_node(value["node"].get<std::string>()) <= 0)
      fail("sends to node '" + value["node"].get<std::string>() + "', which this graph does not have");
    t.sends.push_back(Send{value["node"].get<std::string>(), value.value("arg", json(nullptr)), nullptr});
    return;
  }
  int id = g_->find_channel(channel);
  if (id < 0) fail("writes channel '" + channel + "', which this graph does not have");
  if (id < g_->num_state_keys) {
    if (g_->typed) {
      for (auto& w : g_->typed->writes_from_json(json{{channel, value}})) t.writes.push_back(std::move(w));
    } else {
      t.writes.emplace_back(id, value);
    }
    return;
  }
  const ChannelRole role = g_->channels[id].role;
  if (role == ChannelRole::branch || role == ChannelRole::join) t.control.push_back(id);
}

void PregelRun::save_task_writes(ExecutableTask& t) {
  if (!cp_ || t.cached || t.synthetic) return;
  std::vector<std::pair<std::string, json>> w;
  if (t.error && holds<ParentCommand>(t.error)) return;  // not a failure: the parent graph takes it over
  if (t.error) {
    w.emplace_back(kErrorChannel, describe(t.error));
  } else if (t.paused) {
    w.emplace_back(kInterruptChannel, interrupts_json(t.interrupts));
    if (!t.resume.empty()) w.emplace_back(kResumeChannel, json(t.resume));
  } else {
    for (json& pair : encode_writes(t)) w.emplace_back(pair[0].get<std::string>(), std::move(pair[1]));
    if (!t.resume.empty()) w.emplace_back(kResumeChannel, json(t.resume));
  }
  if (w.empty()) return;
  cp_->put_writes(checkpoint_id(), t.id(), std::move(w));
}

void PregelRun::match_pending_writes() {
  Persist& p = *cp_;
  if (p.pending.empty()) return;
  for (auto& t : tasks_) {
    const std::string& id = t->id();
    for (const PendingWrite& w : p.pending) {
      if (w.task_id != id) continue;
      if (w.channel == kResumeChannel) {
        if (w.value.is_array()) t->resume = w.value.get<std::vector<json>>();
      } else if (w.channel == kErrorChannel) {
        t->saved_error = w.value.is_string() ? w.value.get<std::string>() : w.value.dump();
      } else if (w.channel == kInterruptChannel) {
        t->interrupts = interrupts_from(w.value);
      } else if (w.channel != kScheduledChannel) {
        t->cached = true;
        decode_write(*t, w.channel, w.value);
      }
    }
    // What it asked before (a task that runs again asks anew; snapshot() shows them, as
    // LangGraph, for a finished task too).
    t->asked = std::move(t->interrupts);
    t->interrupts.clear();
    if (t->cached) {
      json update = json::object();
      for (const auto& [c, v] : t->writes) update[g_->state_keys[c]] = v.to_json();
      t->stream_update = update.empty() ? json(nullptr) : std::move(update);
    }
  }
}

bool PregelRun::should_interrupt(const std::vector<std::string>& nodes, const std::vector<ExecutableTask*>& tasks) const {
  if (nodes.empty()) return false;
  bool changed = false;
  for (std::size_t c = 0; c < cs_.channels.size() && !changed; ++c) changed = cs_.versions[c] > cp_->interrupt_seen[c];
  if (!changed) return false;
  const bool all = std::find(nodes.begin(), nodes.end(), "*") != nodes.end();
  for (const ExecutableTask* t : tasks) {
    if (t->node->is_start) continue;
    if (all || std::find(nodes.begin(), nodes.end(), t->node->name) != nodes.end()) return true;
  }
  return false;
}

json PregelRun::interrupt(ExecutableTask& t, json value) {
  if (!cp_)
    throw GraphValueError("graph '" + g_->name + "': node '" + t.node->name +
                          "' called interrupt(), which needs a checkpointer (CompileOptions::checkpointer) and a thread_id");
  std::size_t call = t.interrupt_calls++;
  if (call < t.resume.size()) return t.resume[call];
  {
    std::lock_guard lock(cp_->resume_mutex);
    if (cp_->null_resume) {
      json v = std::move(*cp_->null_resume);
      cp_->null_resume.reset();
      t.resume.push_back(v);
      return v;
    }
  }
  std::string ns = t.node->name + ":" + t.id();
  throw GraphInterrupt({Interrupt{std::move(value), interrupt_id(ns, t.resume.size())}});
}

void PregelRun::store_null_resume() {
  Persist& p = *cp_;
  std::lock_guard lock(p.resume_mutex);
  if (!p.null_resume || !p.current.checkpoint_id) return;
  p.pending.push_back(PendingWrite{kNullTask, kResumeChannel, *p.null_resume});
  p.put_writes(*p.current.checkpoint_id, kNullTask, {{kResumeChannel, *p.null_resume}});
}

json PregelRun::subgraph_resume(ExecutableTask& t) {
  if (!cp_) return nullptr;
  std::lock_guard lock(cp_->resume_mutex);
  if (cp_->null_resume) {
    json v = std::move(*cp_->null_resume);
    cp_->null_resume.reset();
    return v;
  }
  json mine = json::object();
  for (const Interrupt& i : t.asked)
    if (auto it = cp_->resume_map.find(i.id); it != cp_->resume_map.end()) mine[i.id] = *it;
  return mine.empty() ? json(nullptr) : mine;
}

// --- checkpoints ---

void PregelRun::save_checkpoint(const char* source) {
  Persist& p = *cp_;
  json meta = config_.metadata.is_object() ? config_.metadata : json::object();
  meta.update(json{{"source", source}, {"step", step_}, {"parents", parent_ ? parent_->parents : json::object()},
                   {"thread_id", config_.thread_id}, {"run_id", p.run_id}});
  std::string id = uuid6();
  if (p.durability == Durability::exit) {
    // Only the last checkpoint is stored, as a child of the one the run started from.
    if (!p.exit_dirty) p.exit_parent = p.current;
    p.exit_dirty = true;
    p.parent = p.exit_parent.checkpoint_id ? std::optional(p.exit_parent) : std::nullopt;
  } else {
    p.parent = p.current.checkpoint_id ? std::optional(p.current) : std::nullopt;
  }
  p.metadata = std::move(meta);
  p.created_at = now_iso8601();
  {
    std::lock_guard lock(checkpoint_id_mutex_);
    checkpoint_id_ = id;
  }
  p.pending.clear();
  {
    std::lock_guard lock(p.exit_mutex);
    p.exit_writes.clear();
  }
  p.checkpoint_to_emit = true;
  if (p.durability != Durability::exit) store_checkpoint();
  p.current.checkpoint_id = id;
}

void PregelRun::put_versions_seen(Checkpoint& c, bool maps_delta) {
  Persist& p = *cp_;
  // After a step only the nodes that ran changed; otherwise rebuild all.
  auto seen_of = [&](const NodeData& node) {
    json seen = json::object();
    auto& obj = seen.get_ref<json::object_t&>();
    for (std::size_t j = 0; j < node.triggers.size(); ++j)  // triggers are in name order
      if (cs_.seen[node.id][j]) obj.emplace_hint(obj.end(), g_->channels[node.triggers[j]].name, cs_.seen[node.id][j]);
    return seen;
  };
  if (!p.seen_cache_valid) {
    p.seen_cache = json::object();
    auto& obj = p.seen_cache.get_ref<json::object_t&>();
    for (int n : g_->nodes_by_name)
      if (json seen = seen_of(g_->nodes[n]); !seen.empty()) obj.emplace_hint(obj.end(), g_->nodes[n].name, std::move(seen));
    p.seen_cache_valid = true;
  } else {
    for (const auto& t : tasks_)
      if (!t->push && !t->synthetic) {
        json seen = seen_of(*t->node);
        if (maps_delta) c.versions_seen[t->node->name] = seen;
        p.seen_cache[t->node->name] = std::move(seen);
      }
  }
  if (!maps_delta) c.versions_seen = p.seen_cache;
  if (!maps_delta || p.interrupt_seen != p.saved_interrupt_seen) {
    json iseen = json::object();
    auto& obj = iseen.get_ref<json::object_t&>();
    for (int i : g_->channels_by_name)
      if (p.interrupt_seen[i]) obj.emplace_hint(obj.end(), g_->channels[i].name, p.interrupt_seen[i]);
    c.versions_seen[kInterruptChannel] = std::move(iseen);
  }
}

void PregelRun::store_checkpoint() {
  Persist& p = *cp_;
  Checkpoint c;
  c.id = checkpoint_id_;
  c.ts = p.created_at;
  // Delta storage: a channel that only appended since its stored version sends just the new
  // elements, and the version maps send only what changed since the checkpoint this run stored
  // last (a whole one every kMaxChain, so a reader walks a bounded chain). Neither with
  // durability exit, whose one put may not follow the versions it would name.
  constexpr int kMaxChain = 64;
  const bool deltas_ok = p.deltas && p.durability != Durability::exit;
  const bool maps_delta = deltas_ok && p.seen_cache_valid && p.maps_id && p.parent &&
                          p.parent->checkpoint_id == p.maps_id && p.maps_chain < kMaxChain;
  json new_versions = json::object();
  json updated = json::array();
  // Keys arrive in name order: each insert into nlohmann's sorted objects is O(1) with a hint.
  auto& versions = c.channel_versions.get_ref<json::object_t&>();
  auto& values = c.channel_values.get_ref<json::object_t&>();
  auto& fresh = new_versions.get_ref<json::object_t&>();
  PutDeltas deltas;
  for (int i : g_->channels_by_name) {
    const ChannelData& cd = g_->channels[i];
    if (!cs_.channels[i]->tracked()) continue;
    if (cs_.versions[i] == 0) {
      if (maps_delta && p.saved_version[i] != 0) versions.emplace_hint(versions.end(), cd.name, nullptr);
      continue;
    }
    if (!maps_delta || cs_.versions[i] != p.saved_version[i]) versions.emplace_hint(versions.end(), cd.name, cs_.versions[i]);
    if (cs_.versions[i] == cs_.max_version) updated.push_back(cd.name);
    if (cs_.versions[i] == p.saved_version[i]) continue;
    fresh.emplace_hint(fresh.end(), cd.name, cs_.versions[i]);
    std::optional<std::size_t> from;
    if (deltas_ok && !p.stored_version[i].is_null()) from = cs_.channels[i]->appended_from();
    if (from) {
      const json& all = *json_channel(i)->peek();  // appended_from() implies an array value
      json appended = json::array();
      for (std::size_t k = *from; k < all.size(); ++k) appended.push_back(all[k]);
      deltas.appends.push_back(ChannelDelta{cd.name, p.stored_version[i], std::move(appended)});
      p.stored_version[i] = cs_.versions[i];
    } else if (std::optional<json> v = cs_.channels[i]->checkpoint()) {
      values.emplace_hint(values.end(), cd.name, std::move(*v));
      p.stored_version[i] = cs_.versions[i];
    } else {
      p.stored_version[i] = nullptr;
    }
    cs_.channels[i]->mark_stored();
  }
  if (!cs_.pending_sends.empty()) {
    json sends = json::array();
    for (const Send& s : cs_.pending_sends)
      sends.push_back(json{{"node", s.node}, {"arg", s.typed_arg ? g_->typed->to_json(s.typed_arg.get()) : s.arg}});
    c.channel_values[kTasksChannel] = std::move(sends);
    c.channel_versions[kTasksChannel] = cs_.max_version;
    new_versions[kTasksChannel] = cs_.max_version;
  } else if (maps_delta && p.tasks_versioned) {
    c.channel_versions[kTasksChannel] = nullptr;
  }
  p.tasks_versioned = !cs_.pending_sends.empty();
  c.updated_channels = std::move(updated);
  put_versions_seen(c, maps_delta);
  p.saved_version = cs_.versions;
  p.saved_interrupt_seen = p.interrupt_seen;
  if (maps_delta) {
    deltas.versions_root = p.maps_root;
    ++p.maps_chain;
  } else if (deltas_ok) {
    p.maps_root = c.id;
    p.maps_chain = 0;
  }
  p.maps_id = deltas_ok ? std::optional(c.id) : std::nullopt;

  CheckpointConfig parent{p.current.thread_id, p.current.checkpoint_ns,
                          p.parent ? p.parent->checkpoint_id : std::nullopt};
  if (p.durability == Durability::async) {
    p.queue->push([s = p.saver, parent = std::move(parent), c = std::move(c), m = p.metadata, nv = std::move(new_versions),
                   d = std::move(deltas)] { s->put_with_deltas(parent, c, m, nv, d); });
  } else {
    p.saver->put_with_deltas(parent, c, p.metadata, new_versions, deltas);
  }
}

void PregelRun::emit_checkpoint_part() {
  Persist& p = *cp_;
  if (!p.checkpoint_to_emit) return;
  p.checkpoint_to_emit = false;
  if (!wants(StreamMode::checkpoints) && !wants(StreamMode::debug)) return;
  json next = json::array();
  json tasks = json::array();
  for (const auto& t : tasks_) {
    next.push_back(t->node->name);
    tasks.push_back(json{{"id", t->id()}, {"name", t->node->name}, {"path", task_path(*t)}, {"interrupts", json::array()}});
  }
  json payload = {{"config", p.current.to_json()},
                  {"metadata", p.metadata},
                  {"values", state_json()},
                  {"next", std::move(next)},
                  {"parent_config", p.parent ? p.parent->to_json() : json(nullptr)},
                  {"tasks", std::move(tasks)}};
  // As LangGraph: `debug` wraps each checkpoint too (after the `checkpoints` part), at its step.
  if (wants(StreamMode::debug)) {
    json step = p.metadata.is_object() ? p.metadata.value("step", json(step_ - 1)) : json(step_ - 1);
    json event = {{"step", std::move(step)}, {"type", "checkpoint"}, {"timestamp", now_iso8601()}, {"payload", payload}};
    if (wants(StreamMode::checkpoints)) ready_.push_back(StreamPart{StreamMode::checkpoints, {}, std::move(payload)});
    ready_.push_back(StreamPart{StreamMode::debug, {}, std::move(event)});
    return;
  }
  ready_.push_back(StreamPart{StreamMode::checkpoints, {}, std::move(payload)});
}

void PregelRun::pause(std::vector<Interrupt> interrupts, bool from_tasks) {
  Persist& p = *cp_;
  p.paused = true;
  p.interrupts = std::move(interrupts);
  json list = interrupts_json(p.interrupts);
  if (!from_tasks && wants(StreamMode::updates))
    ready_.push_back(StreamPart{StreamMode::updates, {}, json{{kInterruptChannel, list}}});
  // (A task that paused on interrupts streamed them as it finished, `values` included.)
  if (wants(StreamMode::values) && (!from_tasks || p.interrupts.empty()))
    ready_.push_back(StreamPart{StreamMode::values, {}, json{{kInterruptChannel, list}}});
  phase_ = Phase::done;
  finish_run_or_throw();
  if (!from_tasks) return;
  // The final state shows what the step's finished tasks wrote (nothing more is stored).
  std::vector<TaskPtr> done;
  for (auto& t : tasks_)
    if (!t->paused && !t->error) done.push_back(std::move(t));
  if (done.empty()) return;
  std::swap(tasks_, done);
  const bool wrote = step_wrote_state();
  try {
    apply_writes(*g_, cs_, tasks_, step_);
  } catch (const Error&) {
    // The writes of the finished tasks conflict with each other; the stored state is intact.
  }
  if (wrote && wants(StreamMode::values)) ready_.push_back(StreamPart{StreamMode::values, {}, state_json()});
  for (auto& t : done)
    if (t) tasks_.push_back(std::move(t));
}

void PregelRun::finish_run() noexcept {
  try {
    finish_run_or_throw();
  } catch (...) {  // the run already fails with its own error
  }
}

void PregelRun::finish_run_or_throw() {
  if (!cp_ || cp_->finished) return;
  Persist& p = *cp_;
  p.finished = true;
  struct Unlock {
    Persist& p;
    ~Unlock() {
      p.claim.reset();
      if (p.locked) ThreadLocks::release(p.saver.get(), p.current.thread_id, p.current.checkpoint_ns);
      p.locked = false;
    }
  } unlock{p};
  if (p.durability == Durability::exit) {
    if (p.exit_dirty) store_checkpoint();
    p.exit_dirty = false;
    std::lock_guard lock(p.exit_mutex);
    for (auto& [task, writes] : p.exit_writes)
      p.saver->put_writes(CheckpointConfig{p.current.thread_id, p.current.checkpoint_ns, checkpoint_id_}, writes, task);
    p.exit_writes.clear();
  }
  p.queue->drain();
}

json PregelRun::result(bool take) {
  json out = g_->typed || !take ? state_json() : take_state();
  if (cp_ && cp_->paused) out[kInterruptChannel] = interrupts_json(cp_->interrupts);
  return out;
}

}  // namespace internal
}  // namespace superstep
