// Saving a checkpointed run (docs/persistence.md): each task's writes as it finishes, a
// checkpoint per superstep (the durability modes), interrupts and their answers, pausing, and
// releasing the thread at the end. Runs on the consumer's thread except save_task_writes and
// interrupt, which run on the task's thread.
#include <algorithm>
#include <utility>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/loop.hpp"
#include "pregel/command.hpp"
#include "pregel/limits.hpp"
#include "pregel/persistence.hpp"
#include "pregel/runner.hpp"
#include "pregel/stored_writes.hpp"

namespace superstep::internal {
namespace {

/// What a failed save was doing, for its error (name_saver_failure).
std::string saving_writes(const std::string& task_id, const std::string& checkpoint_id) {
  return "saving the writes of task '" + task_id + "' (checkpoint '" + checkpoint_id + "')";
}
std::string saving_checkpoint(const std::string& id, const json& metadata) {
  return "saving checkpoint '" + id + "' (step " + metadata.value("step", json(nullptr)).dump() + ")";
}

std::string interrupt_id(const std::string& ns, std::size_t answered) {
  std::string id = hash_id({answered == 0 ? ns : ns + "|" + std::to_string(answered)});
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  return id;
}

}  // namespace

void Persistence::save_task_writes(ExecutableTask& t) {
  if ((t.cached && !t.cache_hit) || t.synthetic) return;  // a node cache hit's writes are stored, as LangGraph
  std::vector<std::pair<std::string, json>> w;
  if (t.error && holds<ParentCommand>(t.error)) return;  // not a failure: the parent graph takes it over
  if (t.error) {
    w.emplace_back(kErrorChannel, describe(t.error));
  } else if (t.paused) {
    w.emplace_back(kInterruptChannel, interrupts_json(t.interrupts));
    if (!t.resume.empty()) w.emplace_back(kResumeChannel, json(t.resume));
  } else {
    // As LangGraph: what goes to an UntrackedValue key is never stored, nor in a Send's argument.
    bool any_untracked = false;
    for (int c = 0; c < s_.g->num_state_keys && !any_untracked; ++c) any_untracked = !s_.cs.channels[c]->tracked();
    json pairs = encode_writes(*s_.g, t);  // t.writes' first, in order
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      json& pair = pairs[i];
      if (any_untracked) {
        if (i < t.writes.size() && !s_.cs.channels[t.writes[i].first]->tracked()) continue;
        if (pair[0] == kTasksChannel && pair[1]["arg"].is_object())
          for (auto it = pair[1]["arg"].begin(); it != pair[1]["arg"].end();) {
            const int id = s_.g->find_channel(it.key());
            const bool drop = id >= 0 && id < s_.g->num_state_keys && !s_.cs.channels[id]->tracked();
            it = drop ? pair[1]["arg"].erase(it) : std::next(it);
          }
      }
      w.emplace_back(pair[0].get<std::string>(), std::move(pair[1]));
    }
    check_stored_update(s_, t, w);  // before anything is stored: a refusal fails the step
    if (!t.resume.empty()) w.emplace_back(kResumeChannel, json(t.resume));
    if (w.empty()) w.emplace_back(kNoWritesChannel, nullptr);  // finished, wrote nothing
  }
  if (w.empty()) return;
  if (durability_ == Durability::sync && !t.error && !t.paused && t.step_run && t.step_run->solo) {
    held_ = HeldWrites{{current_.thread_id, current_.checkpoint_ns, s_.checkpoint_id(), run_id_}, t.id(), std::move(w)};
    return;
  }
  put_writes(s_.checkpoint_id(), t.id(), std::move(w));
}

std::optional<Persistence::HeldCheckpoint> Persistence::take_held_checkpoint() {
  std::lock_guard lock(held_checkpoint_mutex_);
  return std::exchange(held_checkpoint_, std::nullopt);
}

void Persistence::flush_held_checkpoint() {
  std::optional<HeldCheckpoint> held = take_held_checkpoint();
  if (!held) return;
  HeldCheckpoint& h = *held;
  name_saver_failure(s_.g->name, h.parent.thread_id, [&] { return saving_checkpoint(h.checkpoint.id, h.metadata); },
                     [&] { saver_->put_with_deltas(h.parent, h.checkpoint, h.metadata, h.new_versions, h.deltas); });
}

void Persistence::flush_held() {
  flush_held_checkpoint();
  if (!held_) return;
  HeldWrites h = std::move(*held_);
  held_.reset();
  name_saver_failure(s_.g->name, h.config.thread_id, [&] { return saving_writes(h.task_id, *h.config.checkpoint_id); },
                     [&] { saver_->put_writes(h.config, h.writes, h.task_id); });
}

void Persistence::match_pending_writes() {
  if (pending_.empty()) return;
  for (auto& t : s_.tasks) {
    const std::string& id = t->id();
    for (const PendingWrite& w : pending_) {
      if (w.task_id != id) continue;
      if (w.channel == kResumeChannel) {
        if (w.value.is_array()) t->resume = w.value.get<std::vector<json>>();
      } else if (w.channel == kErrorChannel) {
        t->saved_error = w.value.is_string() ? w.value.get<std::string>() : w.value.dump();
      } else if (w.channel == kInterruptChannel) {
        t->interrupts = interrupts_from(w.value);
      } else if (rerun_done_tasks_) {
        // A resume of a superseded checkpoint: the task runs again (its answers above still count).
      } else if (w.channel == kNoWritesChannel) {
        t->cached = true;
      } else if (w.channel != kScheduledChannel) {
        t->cached = true;
        decode_write(*s_.g, s_.config, *t, w.channel, w.value);
      }
    }
    // What it asked before (a task that runs again asks anew; snapshot() shows them, as
    // LangGraph, for a finished task too).
    t->asked = std::move(t->interrupts);
    t->interrupts.clear();
    if (t->cached) {
      t->stream_update = updates_of(*s_.g, t->writes);
    }
  }
}

bool Persistence::should_interrupt(const std::vector<std::string>& nodes) const {
  if (nodes.empty()) return false;
  bool changed = false;
  for (std::size_t c = 0; c < s_.cs.channels.size() && !changed; ++c) changed = s_.cs.versions[c] > interrupt_seen_[c];
  if (!changed) return false;
  const bool all = std::find(nodes.begin(), nodes.end(), "*") != nodes.end();
  for (const TaskPtr& t : s_.tasks) {
    if (t->node->is_start) continue;
    if (all || std::find(nodes.begin(), nodes.end(), t->node->name) != nodes.end()) return true;
  }
  return false;
}

json Persistence::interrupt(ExecutableTask& t, json value) {
  std::size_t call = t.interrupt_calls++;
  if (call < t.resume.size()) return t.resume[call];
  {
    std::lock_guard lock(resume_mutex_);
    if (null_resume_) {
      json v = std::move(*null_resume_);
      null_resume_.reset();
      t.resume.push_back(v);
      return v;
    }
  }
  std::string ns = t.node->name + ":" + t.id();
  throw GraphInterrupt({Interrupt{std::move(value), interrupt_id(ns, t.resume.size())}});
}

void Persistence::store_null_resume() {
  std::lock_guard lock(resume_mutex_);
  if (!null_resume_ || !current_.checkpoint_id) return;
  pending_.push_back(PendingWrite{kNullTask, kResumeChannel, *null_resume_});
  put_writes(*current_.checkpoint_id, kNullTask, {{kResumeChannel, *null_resume_}});
}

json Persistence::subgraph_resume(ExecutableTask& t) {
  std::lock_guard lock(resume_mutex_);
  if (null_resume_) {
    json v = std::move(*null_resume_);
    null_resume_.reset();
    return v;
  }
  json mine = json::object();
  for (const Interrupt& i : t.asked)
    if (auto it = resume_map_.find(i.id); it != resume_map_.end()) mine[i.id] = *it;
  return mine.empty() ? json(nullptr) : mine;
}

// --- the loop's steps ---

void Persistence::after_plan() {
  match_pending_writes();
  if (std::exchange(resume_needs_task_, false) && !s_.tasks.empty()) {
    // (With no task, the thread has finished: the run ends with its state, storing nothing.)
    if (resume_by_id_unmatched_)
      throw InvalidUpdateError("graph '" + s_.g->name + "': Command.resume answers interrupts by id, but thread '" +
                               s_.config.thread_id + "' has no pending interrupt");
    store_null_resume();
  }
  emit_checkpoint_part();
}

Persistence::Planned Persistence::before_step() {
  bool all_cached = true;
  for (const auto& t : s_.tasks) all_cached = all_cached && t->cached;
  if (!all_cached && should_interrupt(interrupt_before_)) {
    pause({}, /*from_tasks=*/false);
    return Planned::paused;
  }
  if (s_.wants(StreamMode::updates))
    for (const auto& t : s_.tasks)
      if (t->cached && !t->node->is_start) s_.yield(StreamPart{StreamMode::updates, {}, loop_.cached_update_part(*t)});
  return all_cached ? Planned::all_cached : Planned::run;
}

void Persistence::save_step() { save_checkpoint("loop"); }

bool Persistence::pause_after_step() {
  if (!should_interrupt(interrupt_after_)) return false;
  emit_checkpoint_part();
  pause({}, /*from_tasks=*/false);
  return true;
}

void Persistence::put_writes(const std::string& checkpoint_id, const std::string& task_id,
                             std::vector<std::pair<std::string, json>> writes) {
  CheckpointConfig cfg{current_.thread_id, current_.checkpoint_ns, checkpoint_id, run_id_};
  switch (durability_) {
    case Durability::sync:
      flush_held_checkpoint();  // the checkpoint the writes belong to, first
      name_saver_failure(s_.g->name, cfg.thread_id, [&] { return saving_writes(task_id, checkpoint_id); },
                         [&] { saver_->put_writes(cfg, writes, task_id); });
      break;
    case Durability::async:
      queue_->push([s = saver_, g = s_.g, cfg = std::move(cfg), w = std::move(writes), task_id] {
        name_saver_failure(g->name, cfg.thread_id, [&] { return saving_writes(task_id, *cfg.checkpoint_id); },
                           [&] { s->put_writes(cfg, w, task_id); });
      });
      break;
    case Durability::exit: {
      std::lock_guard lock(exit_mutex_);
      exit_writes_.emplace_back(task_id, std::move(writes));
      break;
    }
  }
}

// --- checkpoints ---

void Persistence::save_checkpoint(const char* source) {
  json meta = s_.config.metadata.is_object() ? s_.config.metadata : json::object();
  // Key by key (an initializer list would build each pair as a temporary array first).
  json::object_t& m = meta.get_ref<json::object_t&>();
  m["source"] = source;
  m["step"] = s_.step;
  m["parents"] = s_.parent ? s_.parent->parents : json::object();
  m["thread_id"] = s_.config.thread_id;
  m["run_id"] = run_id_;
  std::string id = uuid6();
  if (durability_ == Durability::exit) {
    // Only the last checkpoint is stored, as a child of the one the run started from.
    if (!exit_dirty_) exit_parent_ = current_;
    exit_dirty_ = true;
    parent_ = exit_parent_.checkpoint_id ? std::optional(exit_parent_) : std::nullopt;
  } else {
    parent_ = current_.checkpoint_id ? std::optional(current_) : std::nullopt;
  }
  metadata_ = std::move(meta);
  created_at_ = now_iso8601();
  s_.set_checkpoint_id(id);
  pending_.clear();
  {
    std::lock_guard lock(exit_mutex_);
    exit_writes_.clear();
  }
  checkpoint_to_emit_ = true;
  if (durability_ != Durability::exit) store_checkpoint();
  current_.checkpoint_id = id;
}

void Persistence::put_versions_seen(Checkpoint& c, bool maps_delta) {
  // After a step only the nodes that ran changed; otherwise rebuild all.
  auto seen_of = [&](const NodeData& node) {
    json seen = json::object();
    auto& obj = seen.get_ref<json::object_t&>();
    for (std::size_t j = 0; j < node.triggers.size(); ++j)  // triggers are in name order
      if (s_.cs.seen[node.id][j]) obj.emplace_hint(obj.end(), s_.g->channels[node.triggers[j]].name, s_.cs.seen[node.id][j]);
    return seen;
  };
  if (!seen_cache_valid_) {
    seen_cache_ = json::object();
    auto& obj = seen_cache_.get_ref<json::object_t&>();
    for (int n : s_.g->nodes_by_name)
      if (json seen = seen_of(s_.g->nodes[n]); !seen.empty()) obj.emplace_hint(obj.end(), s_.g->nodes[n].name, std::move(seen));
    seen_cache_valid_ = true;
  } else {
    for (const auto& t : s_.tasks)
      if (!t->push && !t->synthetic) {
        json seen = seen_of(*t->node);
        if (maps_delta) c.versions_seen[t->node->name] = seen;
        seen_cache_[t->node->name] = std::move(seen);
      }
  }
  if (!maps_delta) c.versions_seen = seen_cache_;
  if (!maps_delta || interrupt_seen_ != saved_interrupt_seen_) {
    json iseen = json::object();
    auto& obj = iseen.get_ref<json::object_t&>();
    for (int i : s_.g->channels_by_name)
      if (interrupt_seen_[i]) obj.emplace_hint(obj.end(), s_.g->channels[i].name, interrupt_seen_[i]);
    c.versions_seen[kInterruptChannel] = std::move(iseen);
  }
}

void Persistence::store_checkpoint() {
  const bool hold = std::exchange(hold_next_checkpoint_, false);  // before anything here may throw
  Checkpoint c;
  c.id = s_.checkpoint_id();
  c.ts = created_at_;
  // Delta storage: a channel that only appended since its stored version sends just the new
  // elements, and the version maps send only what changed since the checkpoint this run stored
  // last (a whole one every kMaxChain, so a reader walks a bounded chain). Neither with
  // durability exit, whose one put may not follow the versions it would name.
  constexpr int kMaxChain = 64;
  const bool deltas_ok = deltas_ && durability_ != Durability::exit;
  const bool maps_delta = deltas_ok && seen_cache_valid_ && maps_id_ && parent_ &&
                          parent_->checkpoint_id == maps_id_ && maps_chain_ < kMaxChain;
  json new_versions = json::object();
  json updated = json::array();
  // Keys arrive in name order: each insert into nlohmann's sorted objects is O(1) with a hint.
  auto& versions = c.channel_versions.get_ref<json::object_t&>();
  auto& values = c.channel_values.get_ref<json::object_t&>();
  auto& fresh = new_versions.get_ref<json::object_t&>();
  PutDeltas deltas;
  // Limits: the bytes this put stores, and the state's size kept per channel from what is stored
  // (measured whole once per run, on its first put).
  const Limits& limits = s_.limits();
  const bool sized_now = state_size_.empty();
  if (sized_now) size_state();
  std::size_t put_bytes = 0;
  int biggest = -1;
  std::size_t biggest_bytes = 0;
  auto stored = [&](int i, std::size_t n) {
    put_bytes += n;
    if (n > biggest_bytes) biggest = i, biggest_bytes = n;
  };
  for (int i : s_.g->channels_by_name) {
    const ChannelData& cd = s_.g->channels[i];
    if (!s_.cs.channels[i]->tracked()) continue;
    if (s_.cs.versions[i] == 0) {
      if (maps_delta && saved_version_[i] != 0) versions.emplace_hint(versions.end(), cd.name, nullptr);
      state_bytes_ -= std::exchange(state_size_[i], 0);
      continue;
    }
    if (!maps_delta || s_.cs.versions[i] != saved_version_[i]) versions.emplace_hint(versions.end(), cd.name, s_.cs.versions[i]);
    if (s_.cs.versions[i] == s_.cs.max_version) updated.push_back(cd.name);
    if (s_.cs.versions[i] == saved_version_[i]) continue;
    fresh.emplace_hint(fresh.end(), cd.name, s_.cs.versions[i]);
    std::optional<std::size_t> from;
    if (deltas_ok && !stored_version_[i].is_null()) from = s_.cs.channels[i]->appended_from();
    if (from) {
      const json& all = *s_.json_channel(i)->peek();  // appended_from() implies an array value
      json appended = json::array();
      for (std::size_t k = *from; k < all.size(); ++k) appended.push_back(all[k]);
      const std::size_t n = measured_size(appended, limits.max_checkpoint_bytes);
      stored(i, n);
      if (!sized_now) state_size_[i] += n, state_bytes_ += n;
      deltas.appends.push_back(ChannelDelta{cd.name, stored_version_[i], std::move(appended)});
      stored_version_[i] = s_.cs.versions[i];
    } else if (std::optional<json> v = s_.cs.channels[i]->checkpoint()) {
      const std::size_t n = sized_now ? state_size_[i] : measured_size(*v, limits.max_checkpoint_bytes);
      stored(i, n);
      state_bytes_ += n - std::exchange(state_size_[i], n);
      values.emplace_hint(values.end(), cd.name, std::move(*v));
      stored_version_[i] = s_.cs.versions[i];
    } else {
      stored_version_[i] = nullptr;
      state_bytes_ -= std::exchange(state_size_[i], 0);
    }
    s_.cs.channels[i]->mark_stored();
  }
  std::size_t sends_bytes = 0;
  if (!s_.cs.pending_sends.empty()) {
    json sends = json::array();
    for (const Send& s : s_.cs.pending_sends)
      sends.push_back(json{{"node", s.node}, {"arg", s.typed_arg ? s_.g->typed->to_json(s.typed_arg.get()) : s.arg}});
    sends_bytes = measured_size(sends, limits.max_checkpoint_bytes);
    put_bytes += sends_bytes;
    c.channel_values[kTasksChannel] = std::move(sends);
    c.channel_versions[kTasksChannel] = s_.cs.max_version;
    new_versions[kTasksChannel] = s_.cs.max_version;
  } else if (maps_delta && tasks_versioned_) {
    c.channel_versions[kTasksChannel] = nullptr;
  }
  tasks_versioned_ = !s_.cs.pending_sends.empty();
  state_bytes_ += sends_bytes - std::exchange(sends_bytes_, sends_bytes);
  if (put_bytes > limits.max_checkpoint_bytes)
    throw_limit(s_, "max_checkpoint_bytes", limits.max_checkpoint_bytes, put_bytes, "",
                biggest >= 0 && biggest_bytes >= sends_bytes ? s_.g->channels[biggest].name : kTasksChannel);
  if (state_bytes_ > limits.max_state_bytes) {
    auto most = std::max_element(state_size_.begin(), state_size_.end());
    throw_limit(s_, "max_state_bytes", limits.max_state_bytes, state_bytes_, "",
                *most >= sends_bytes_ ? s_.g->channels[most - state_size_.begin()].name : kTasksChannel);
  }
  c.updated_channels = std::move(updated);
  put_versions_seen(c, maps_delta);
  saved_version_ = s_.cs.versions;
  saved_interrupt_seen_ = interrupt_seen_;
  if (maps_delta) {
    deltas.versions_root = maps_root_;
    ++maps_chain_;
  } else if (deltas_ok) {
    maps_root_ = c.id;
    maps_chain_ = 0;
  }
  maps_id_ = deltas_ok ? std::optional(c.id) : std::nullopt;

  CheckpointConfig parent{current_.thread_id, current_.checkpoint_ns,
                          parent_ ? parent_->checkpoint_id : std::nullopt};
  if (durability_ == Durability::async) {
    queue_->push(
        [s = saver_, g = s_.g, parent = std::move(parent), c = std::move(c), m = metadata_,
         nv = std::move(new_versions), d = std::move(deltas)] {
          name_saver_failure(g->name, parent.thread_id, [&] { return saving_checkpoint(c.id, m); },
                             [&] { s->put_with_deltas(parent, c, m, nv, d); });
        },
        /*bounded=*/true);
  } else {
    if (hold) {
      std::lock_guard lock(held_checkpoint_mutex_);
      held_checkpoint_ = HeldCheckpoint{std::move(parent), std::move(c), metadata_, std::move(new_versions), std::move(deltas)};
      return;
    }
    std::optional<HeldCheckpoint> input = take_held_checkpoint();
    if (held_ || input) {
      // The held input checkpoint, the step's writes, then its checkpoint: one unit of storage
      // work (each still succeeds or fails on its own: what was stored before a refusal stays).
      std::optional<HeldWrites> h = std::move(held_);
      held_.reset();
      name_saver_failure(
          s_.g->name, parent.thread_id,
          [&] {
            std::string what = input ? saving_checkpoint(input->checkpoint.id, input->metadata) + " and " : "";
            if (h) what += saving_writes(h->task_id, *h->config.checkpoint_id) + " and ";
            return what + saving_checkpoint(c.id, metadata_);
          },
          [&] {
            saver_->batch([&] {
              if (input)
                saver_->put_with_deltas(input->parent, input->checkpoint, input->metadata, input->new_versions,
                                        input->deltas);
              if (h) saver_->put_writes(h->config, h->writes, h->task_id);
              saver_->put_with_deltas(parent, c, metadata_, new_versions, deltas);
            });
          });
    } else {
      name_saver_failure(s_.g->name, parent.thread_id, [&] { return saving_checkpoint(c.id, metadata_); },
                         [&] { saver_->put_with_deltas(parent, c, metadata_, new_versions, deltas); });
    }
  }
}

void Persistence::size_state() {
  const Limits& limits = s_.limits();
  state_size_.assign(s_.cs.channels.size(), 0);
  state_bytes_ = 0;
  for (std::size_t i = 0; i < s_.cs.channels.size(); ++i) {
    const Channel& c = *s_.cs.channels[i];
    if (!c.tracked() || s_.cs.versions[i] == 0) continue;
    const bool json_key = !s_.g->typed && static_cast<int>(i) < s_.g->num_state_keys;
    if (json_key) {
      if (const json* v = s_.json_channel(static_cast<int>(i))->peek()) state_size_[i] = measured_size(*v, limits.max_state_bytes);
    } else if (std::optional<json> value = c.checkpoint()) {
      state_size_[i] = measured_size(*value, limits.max_state_bytes);
    }
    state_bytes_ += state_size_[i];
  }
}

void Persistence::emit_checkpoint_part() {
  if (!checkpoint_to_emit_) return;
  checkpoint_to_emit_ = false;
  if (!s_.wants(StreamMode::checkpoints) && !s_.wants(StreamMode::debug)) return;
  json next = json::array();
  json tasks = json::array();
  for (const auto& t : s_.tasks) {
    next.push_back(t->node->name);
    json task = {{"id", t->id()}, {"name", t->node->name}, {"path", task_path(*t)}, {"interrupts", json::array()}};
    // What is stored for it (a checkpoint a run continues from: match_pending_writes).
    for (const Interrupt& i : t->asked) task["interrupts"].push_back(i.to_json());
    if (t->saved_error) task["error"] = *t->saved_error;
    // As LangGraph: a finished task shows a result only when it wrote a state key (as get_state).
    if (t->cached && !t->stream_update.is_null()) task["result"] = task_result_of(t->stream_update);
    // As LangGraph: a subgraph task names where the subgraph's checkpoints live.
    if (t->node->subgraph)
      task["state"] = CheckpointConfig{s_.config.thread_id, s_.task_ns(*t), std::nullopt}.to_json();
    tasks.push_back(std::move(task));
  }
  json config = current_.to_json();
  json parent_config = parent_ ? parent_->to_json() : json(nullptr);
  if (durability_ == Durability::exit && exit_dirty_) {
    // As LangGraph.js: a checkpoint of this run, not stored (before the run's end), is named by
    // the newest one that is, the one the run started from (none on a new thread), with no
    // parent: no id a client could not read back.
    CheckpointConfig stored = current_;
    stored.checkpoint_id = exit_parent_.checkpoint_id;
    config = stored.to_json();
    parent_config = nullptr;
  }
  json payload = {{"config", std::move(config)},
                  {"metadata", metadata_},
                  {"values", s_.state_json()},
                  {"next", std::move(next)},
                  {"parent_config", std::move(parent_config)},
                  {"tasks", std::move(tasks)}};
  // As LangGraph: `debug` wraps each checkpoint too (after the `checkpoints` part), at its step.
  if (s_.wants(StreamMode::debug)) {
    json step = metadata_.is_object() ? metadata_.value("step", json(s_.step - 1)) : json(s_.step - 1);
    json event = {{"step", std::move(step)}, {"type", "checkpoint"}, {"timestamp", now_iso8601()}, {"payload", payload}};
    if (s_.wants(StreamMode::checkpoints)) s_.yield(StreamPart{StreamMode::checkpoints, {}, std::move(payload)});
    s_.yield(StreamPart{StreamMode::debug, {}, std::move(event)});
    return;
  }
  s_.yield(StreamPart{StreamMode::checkpoints, {}, std::move(payload)});
}

void Persistence::pause(std::vector<Interrupt> interrupts, bool from_tasks) {
  paused_ = true;
  interrupts_ = std::move(interrupts);
  // As LangGraph: the root graph announces a pause at interrupt_before/interrupt_after, or a
  // subgraph's there (its task paused with no interrupts of its own), once the step is over and
  // after the state its finished tasks wrote; a subgraph's run announces nothing (its pause
  // reaches the parent's step). A task that paused on interrupts streamed them as it finished,
  // `values` included.
  const bool announce = !s_.parent && (!from_tasks || interrupts_.empty());
  auto announce_pause = [&] {
    if (!announce) return;
    json list = interrupts_json(interrupts_);
    if (s_.wants(StreamMode::updates)) s_.yield(StreamPart{StreamMode::updates, {}, json{{kInterruptChannel, list}}});
    if (s_.wants(StreamMode::values)) s_.yield(StreamPart{StreamMode::values, {}, json{{kInterruptChannel, std::move(list)}}});
  };
  if (!from_tasks) {
    announce_pause();
    finish_or_throw();
    return;
  }
  finish_or_throw();
  // The final state shows what the step's finished tasks wrote (nothing more is stored).
  std::vector<TaskPtr> done;
  for (auto& t : s_.tasks)
    if (!t->paused && !t->error) done.push_back(std::move(t));
  if (done.empty()) return announce_pause();
  std::swap(s_.tasks, done);
  const bool wrote = s_.step_wrote_state();
  s_.note_output_step();
  try {
    apply_writes(*s_.g, s_.cs, s_.tasks, s_.step);
  } catch (const Error&) {
    // The writes of the finished tasks conflict with each other; the stored state is intact.
  }
  // As LangGraph: the root graph only (a paused subgraph's interrupt reaches its parent, which
  // streams its own).
  if (wrote && !s_.parent && s_.wants(StreamMode::values))
    s_.yield(StreamPart{StreamMode::values, {}, s_.state_json()});
  for (auto& t : done)
    if (t) s_.tasks.push_back(std::move(t));
  announce_pause();
}

void Persistence::finish() noexcept {
  try {
    finish_or_throw();
  } catch (...) {  // the run already fails with its own error
  }
}

void Persistence::finish_or_throw() {
  if (finished_) return;
  finished_ = true;
  struct Unlock {
    Persistence& p;
    ~Unlock() {
      p.claim_.reset();
      if (p.locked_) ThreadLocks::release(p.saver_.get(), p.current_.thread_id, p.current_.checkpoint_ns);
      p.locked_ = false;
    }
  } unlock{*this};
  flush_held();  // the run ends (or is dropped) between a held task's end and its step's checkpoint
  if (durability_ == Durability::exit) {
    if (exit_dirty_) store_checkpoint();
    exit_dirty_ = false;
    std::lock_guard lock(exit_mutex_);
    for (auto& entry : exit_writes_) {  // not a structured binding: clang 14 cannot capture one
      const std::string& task = entry.first;
      const auto& writes = entry.second;
      name_saver_failure(s_.g->name, current_.thread_id, [&] { return saving_writes(task, s_.checkpoint_id()); }, [&] {
        saver_->put_writes(CheckpointConfig{current_.thread_id, current_.checkpoint_ns, s_.checkpoint_id(), run_id_},
                           writes, task);
      });
    }
    exit_writes_.clear();
  }
  queue_->drain();
}

}  // namespace superstep::internal
