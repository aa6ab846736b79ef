// A run's persistence (docs/persistence.md): loading a thread's checkpoint, Command inputs, a checkpoint
// per superstep and each task's writes as it finishes, interrupts, and the inspection runs
// behind get_state and update_state. Runs on the consumer's thread except save_task_writes and
// interrupt, which run on the task's thread.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <tuple>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"

namespace superstep {

json interrupt(Runtime& rt, json value) {
  auto& task = static_cast<internal::ExecutableTask&>(rt.context());
  return task.run->interrupt(task, std::move(value));
}

json PregelTask::to_json() const {
  json j = {{"id", id}, {"name", name}, {"path", path}, {"interrupts", json::array()}};
  for (const Interrupt& i : interrupts) j["interrupts"].push_back(i.to_json());
  if (error) j["error"] = *error;
  if (!result.is_null()) j["result"] = result;
  if (state) j["state"] = state->to_json();
  else if (state_config) j["state"] = state_config->to_json();
  return j;
}

json StateSnapshot::to_json() const {
  json j = {{"values", values},         {"next", next},   {"config", config.to_json()},
            {"metadata", metadata},     {"created_at", created_at},
            {"parent_config", parent_config ? parent_config->to_json() : json(nullptr)},
            {"tasks", json::array()},   {"interrupts", json::array()}};
  for (const auto& t : tasks) j["tasks"].push_back(t.to_json());
  for (const auto& i : interrupts) j["interrupts"].push_back(i.to_json());
  return j;
}

namespace internal {
namespace {

constexpr const char* kNullTask = "00000000-0000-0000-0000-000000000000";

bool special_channel(const std::string& c) {
  return c == kErrorChannel || c == kInterruptChannel || c == kScheduledChannel || c == kResumeChannel;
}

uint64_t parse_version(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) return static_cast<uint64_t>(std::max<int64_t>(0, v.get<int64_t>()));
  if (v.is_number_float()) return static_cast<uint64_t>(std::max(0.0, v.get<double>()));
  if (v.is_string()) return std::strtoull(v.get_ref<const std::string&>().c_str(), nullptr, 10);
  return 0;
}

/// Threads with a run in progress, per saver: a second concurrent run on a thread is refused
/// (in this process; see docs/persistence.md).
class ThreadLocks {
 public:
  static bool acquire(const void* saver, const std::string& thread, const std::string& ns) {
    std::lock_guard lock(mutex());
    return held().insert({saver, thread, ns}).second;
  }
  static void release(const void* saver, const std::string& thread, const std::string& ns) {
    std::lock_guard lock(mutex());
    held().erase({saver, thread, ns});
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::set<std::tuple<const void*, std::string, std::string>>& held() {  // guarded by mutex()
    static std::set<std::tuple<const void*, std::string, std::string>> s;
    return s;
  }
};

std::string interrupt_id(const std::string& ns, std::size_t answered) {
  std::string id = hash_id({answered == 0 ? ns : ns + "|" + std::to_string(answered)});
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  return id;
}

/// Whether `key` has the form of interrupt_id's ids (32 lowercase hex digits).
bool looks_like_interrupt_id(const std::string& key) {
  return key.size() == 32 &&
         std::all_of(key.begin(), key.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<Interrupt> interrupts_from(const json& v) {
  std::vector<Interrupt> out;
  if (!v.is_array()) return out;
  for (const json& i : v)
    if (i.is_object()) out.push_back(Interrupt{i.value("value", json(nullptr)), i.value("id", std::string())});
  return out;
}

}  // namespace

// --- set-up ---

PregelRun::PregelRun(std::shared_ptr<const Program> graph, const Command& input, RunConfig config,
                     const std::vector<StreamMode>& modes, const ParentLink* link)
    : g_(std::move(graph)), config_(std::move(config)), parent_(link) {
  if (saver()) {
    init(modes);
    first(nullptr, &input);
    return;
  }
  // As LangGraph: without a checkpointer a Command's update and go_to are the run's input (there
  // is no interrupt to resume).
  if (!input.resume.is_null())
    throw Error("graph '" + g_->name + "': Command.resume needs a checkpointer (CompileOptions::checkpointer) "
                "and a thread_id: without one nothing can be waiting to be resumed");
  std::vector<std::pair<std::string, json>> writes = command_writes(input);
  init(modes);
  if (g_->typed) cs_.channels[g_->start_channel]->restore(std::nullopt);
  cs_.versions[g_->start_channel] = 0;  // no __start__ step: the writes are the input step
  cs_.updated.clear();
  cs_.live_volatile.clear();
  ExecutableTask t;
  t.run = this;
  for (const auto& [c, v] : writes) decode_write(t, c, v);
  apply_input_writes(*g_, cs_, t);
  if (wants(StreamMode::values)) ready_.push_back(StreamPart{StreamMode::values, {}, state_json()});
}

PregelRun::PregelRun(std::shared_ptr<const Program> graph, RunConfig config, const CheckpointTuple* tuple, Inspect,
                     const ParentLink* link)
    : g_(std::move(graph)), config_(std::move(config)), parent_(link) {
  config_.durability = Durability::sync;
  init({});
  start_persist();
  if (g_->typed) cs_.channels[g_->start_channel]->restore(std::nullopt);
  cs_.versions[g_->start_channel] = 0;
  cs_.updated.clear();
  cs_.live_volatile.clear();
  if (tuple) {
    restore(*tuple);
  } else {
    step_ = 0;
  }
}

void PregelRun::start_persist() {
  cp_ = std::make_unique<Persist>();
  Persist& p = *cp_;
  p.saver = saver();
  p.durability = config_.durability;
  // Not owning: batch runs only around queued jobs, each of which holds the saver. A pool
  // thread can hold the queue's state a moment after the run ended; owning the saver there
  // could make that thread destroy it, possibly while the process exits.
  p.queue = std::make_unique<SaveQueue>(g_->executor, [s = p.saver.get()](const std::function<void()>& run) {
    if (s) s->batch(run);
    else run();
  });
  p.interrupt_before = config_.interrupt_before ? *config_.interrupt_before : g_->interrupt_before;
  p.interrupt_after = config_.interrupt_after ? *config_.interrupt_after : g_->interrupt_after;
  p.run_id = config_.run_id.empty() ? uuid4() : config_.run_id;
  p.current = CheckpointConfig{config_.thread_id, config_.checkpoint_ns, std::nullopt};
  p.saved_version.assign(cs_.channels.size(), 0);
  p.stored_version.assign(cs_.channels.size(), nullptr);
  p.deltas = p.saver && p.saver->stores_deltas();
  p.interrupt_seen.assign(cs_.channels.size(), 0);
}

void PregelRun::load_sends(const std::function<void(const std::string&)>& fail) {
  const json& sends = cp_->sends;
  cs_.pending_sends.clear();
  if (sends.is_null()) return;
  if (!sends.is_array()) fail("stored '__pregel_tasks' is not a list");
  for (const json& s : sends) {
    if (!s.is_object() || !s.contains("node") || !s["node"].is_string()) fail("stored Send is malformed: " + preview(s));
    const std::string& node = s["node"].get_ref<const std::string&>();
    if (g_->find_node(node) <= 0) fail("stored Send targets node '" + node + "', which this graph does not have");
    if (g_->typed) {
      // A typed Send's argument is the state struct, stored through to_json.
      std::shared_ptr<const void> arg;
      try {
        arg = g_->typed->from_json(s.value("arg", json::object()));
      } catch (const std::exception& e) {
        fail("stored Send to '" + node + "' has an argument that does not load: " + e.what());
      }
      cs_.pending_sends.push_back(Send{node, nullptr, std::move(arg)});
      continue;
    }
    cs_.pending_sends.push_back(Send{node, s.value("arg", json(nullptr)), nullptr});
  }
}

void PregelRun::load_seen(const json& versions_seen) {
  Persist& p = *cp_;
  for (auto it = versions_seen.begin(); it != versions_seen.end(); ++it) {
    if (!it.value().is_object()) continue;
    if (it.key() == kInterruptChannel) {
      std::fill(p.interrupt_seen.begin(), p.interrupt_seen.end(), 0);
      for (auto ch = it.value().begin(); ch != it.value().end(); ++ch) {
        int id = g_->find_channel(ch.key());
        if (id >= 0) p.interrupt_seen[id] = parse_version(ch.value());
      }
      continue;
    }
    int n = g_->find_node(it.key());
    if (n < 0) continue;
    const NodeData& node = g_->nodes[n];
    for (std::size_t j = 0; j < node.triggers.size(); ++j) {
      auto v = it.value().find(g_->channels[node.triggers[j]].name);
      cs_.seen[n][j] = v != it.value().end() ? parse_version(*v) : 0;
    }
  }
}

void PregelRun::restore(const CheckpointTuple& tuple) {
  Persist& p = *cp_;
  const Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  cs_.channels[g_->start_channel]->restore(std::nullopt);
  p.sends = nullptr;
  for (auto it = c.channel_values.begin(); it != c.channel_values.end(); ++it) {
    const std::string& name = it.key();
    if (name == kTasksChannel) {
      p.sends = it.value();
      continue;
    }
    int id = g_->find_channel(name);
    if (id < 0) continue;  // a channel this version of the graph no longer has
    try {
      cs_.channels[id]->restore(it.value());
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
  }
  std::fill(cs_.versions.begin(), cs_.versions.end(), 0);
  cs_.max_version = 0;
  std::fill(p.stored_version.begin(), p.stored_version.end(), nullptr);
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    uint64_t v = parse_version(it.value());
    cs_.max_version = std::max(cs_.max_version, v);
    int id = g_->find_channel(it.key());
    if (id < 0) continue;
    cs_.versions[id] = v;
    if (c.channel_values.contains(it.key())) p.stored_version[id] = it.value();
  }
  p.interrupt_seen.assign(cs_.channels.size(), 0);
  for (auto& s : cs_.seen) std::fill(s.begin(), s.end(), 0);
  load_seen(c.versions_seen);
  load_sends(fail);
  restored(tuple, tuple.metadata, tuple.pending_writes);
}

void PregelRun::continue_versions_after_latest() {
  std::optional<CheckpointTuple> latest =
      cp_->saver->get_tuple(CheckpointConfig{config_.thread_id, config_.checkpoint_ns, std::nullopt});
  if (!latest || latest->checkpoint.id == checkpoint_id_) return;
  // Each run continues after the newest checkpoint, so the newest holds the thread's highest version.
  for (const json& v : latest->checkpoint.channel_versions) cs_.version_floor = std::max(cs_.version_floor, parse_version(v));
}

bool PregelRun::restore_changes(CheckpointTuple& tuple) {
  Persist& p = *cp_;
  Checkpoint& c = tuple.checkpoint;
  auto fail = [&](const std::string& what) {
    throw CheckpointError("thread '" + tuple.config.thread_id + "', checkpoint '" + c.id + "': " + what);
  };
  // Appends apply only to the value they were stored against: check them all before changing anything.
  json appended = json::object();
  if (auto found = c.extra.find(kValuesAppended); found != c.extra.end() && found->is_object())
    appended = std::move(*found);
  for (auto it = appended.begin(); it != appended.end(); ++it) {
    int id = g_->find_channel(it.key());
    if (id < 0) continue;
    const json* base = it->is_object() && it->contains("base") ? &(*it)["base"] : nullptr;
    if (!base || !(*it)["elements"].is_array() || !cs_.channels[id]->is_available() || parse_version(*base) != cs_.versions[id])
      return false;
  }
  // A channel whose version changed has the value stored at its new version, or none.
  for (auto it = c.channel_versions.begin(); it != c.channel_versions.end(); ++it) {
    const std::string& name = it.key();
    auto value = c.channel_values.find(name);
    const bool has_value = value != c.channel_values.end();
    if (!it->is_null()) cs_.max_version = std::max(cs_.max_version, parse_version(*it));
    if (name == kTasksChannel) {
      p.sends = has_value ? std::move(*value) : json(nullptr);
      continue;
    }
    int id = g_->find_channel(name);
    if (id < 0) continue;
    auto append = appended.find(name);
    try {
      if (append != appended.end()) {
        // The value so far, then the elements appended: no copy of what was there.
        std::optional<json> whole;
        if (!g_->typed) whole = static_cast<JsonChannel*>(cs_.channels[id])->take();
        else whole = cs_.channels[id]->checkpoint();
        if (!whole || !whole->is_array()) fail("channel '" + name + "' holds no list to append the stored elements to");
        for (json& e : (*append)["elements"]) whole->push_back(std::move(e));
        cs_.channels[id]->restore_moved(std::move(*whole));
      } else if (has_value) {
        cs_.channels[id]->restore_moved(std::move(*value));
      } else {
        cs_.channels[id]->restore(std::nullopt);
      }
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::exception& e) {
      fail("channel '" + name + "' cannot be restored: " + e.what());
    }
    cs_.versions[id] = it->is_null() ? 0 : parse_version(*it);
    p.stored_version[id] = has_value || append != appended.end() ? *it : json(nullptr);
  }
  load_seen(c.versions_seen);  // a node whose map changed has its whole map here
  load_sends(fail);  // every snapshot takes them: load them again even when unchanged
  restored(tuple, std::move(tuple.metadata), std::move(tuple.pending_writes));
  return true;
}

void PregelRun::restored(const CheckpointTuple& tuple, json metadata, std::vector<PendingWrite> pending) {
  Persist& p = *cp_;
  const Checkpoint& c = tuple.checkpoint;
  cs_.updated.clear();
  if (c.updated_channels.is_array()) {
    for (const json& name : c.updated_channels)
      if (name.is_string()) {
        int id = g_->find_channel(name.get_ref<const std::string&>());
        if (id >= 0 && (g_->channels[id].is_trigger || g_->channels[id].is_volatile)) cs_.updated.push_back(id);
      }
  } else {
    for (std::size_t i = 0; i < cs_.channels.size(); ++i)
      if (g_->channels[i].is_trigger) cs_.updated.push_back(static_cast<int>(i));
  }
  cs_.live_volatile.clear();
  for (int id : g_->volatile_channels)
    if (cs_.channels[id]->is_available()) cs_.live_volatile.push_back(id);

  p.has_checkpoint = true;
  p.seen_cache_valid = false;
  p.maps_id.reset();
  p.inspected_writes = false;
  p.current = tuple.config;
  p.parent = tuple.parent_config;
  p.metadata = std::move(metadata);
  p.pending = std::move(pending);
  p.created_at = c.ts;
  p.saved_version = cs_.versions;
  const json& step = p.metadata.is_object() ? p.metadata.value("step", json(-1)) : json(-1);
  p.loaded_step = step.is_number_integer() ? step.get<int64_t>() : -1;
  step_ = p.loaded_step + 1;
  stop_ = step_ + config_.recursion_limit;
  checkpoint_id_ = c.id;
}

namespace {
/// Whether tuple `k` of a listing (newest first) is stored as changes to tuple `k + 1`.
bool continues_next(const std::vector<CheckpointTuple>& tuples, std::size_t k) {
  auto from = tuples[k].checkpoint.extra.find(kVersionsFrom);
  return from != tuples[k].checkpoint.extra.end() && from->is_string() && k + 1 < tuples.size() &&
         tuples[k + 1].config.checkpoint_id == from->get_ref<const std::string&>();
}
}  // namespace

void PregelRun::walk_history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                             std::vector<CheckpointTuple>& tuples, std::vector<StateSnapshot>& out, std::size_t newest,
                             std::size_t oldest, const ParentLink* link) {
  std::unique_ptr<PregelRun> run;
  for (std::size_t k = oldest + 1; k-- > newest;) {
    CheckpointTuple& t = tuples[k];
    if (t.checkpoint.extra.contains(kVersionsFrom)) {
      // Changes to the tuple after it, which the run holds unless the last snapshot wrote to it.
      if (run && k < oldest && !run->cp_->inspected_writes && continues_next(tuples, k) && run->restore_changes(t)) {
        out[k] = run->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
        tuples[k + 1] = CheckpointTuple{};  // read for the last time (continues_next): freed on this thread
        continue;
      }
      const std::shared_ptr<CheckpointSaver>& saver = graph->checkpointer ? graph->checkpointer : link->saver;
      std::optional<CheckpointTuple> whole = saver->get_tuple(t.config);
      if (!whole)
        throw CheckpointError("graph '" + graph->name + "': thread '" + t.config.thread_id + "' has no checkpoint '" +
                              t.checkpoint.id + "'");
      t = std::move(*whole);
    }
    run = std::make_unique<PregelRun>(graph, config, &t, Inspect{}, link);
    out[k] = run->snapshot(/*apply_pending=*/false, /*subgraphs=*/false, /*take=*/true);
  }
}

std::vector<StateSnapshot> PregelRun::history(const std::shared_ptr<const Program>& graph, const RunConfig& config,
                                              std::vector<CheckpointTuple> tuples, const ParentLink* link) {
  std::vector<StateSnapshot> out(tuples.size());
  // Oldest first on this thread: each tuple stored as changes to the one listed after it is applied
  // to the run that read that one. (Walked on the pool's threads as well, in spans from one whole
  // tuple to the next, the snapshots came from their malloc arenas and every history was slower
  // on this project's 2-core machine kind: docs/performance.md, "History reads, fourth round".)
  if (!tuples.empty()) walk_history(graph, config, tuples, out, 0, tuples.size() - 1, link);
  return out;
}

void PregelRun::first(const json* input, const Command* command) {
  start_persist();
  Persist& p = *cp_;
  if (config_.thread_id.empty())
    throw Error("graph '" + g_->name + "' has a checkpointer: RunConfig::thread_id must name the thread");
  if (!ThreadLocks::acquire(p.saver.get(), config_.thread_id, config_.checkpoint_ns))
    throw Error("graph '" + g_->name + "': thread '" + config_.thread_id +
                "' already has a run in progress; wait for it to end before starting another");
  p.locked = true;
  try {
    p.claim = p.saver->claim_thread(config_.thread_id, config_.checkpoint_ns);
    if (!p.claim)
      throw Error("graph '" + g_->name + "': thread '" + config_.thread_id +
                  "' already has a run in progress in another process (or through another saver on the same store); "
                  "wait for it to end before starting another");
    load_and_apply_input(input, command);
  } catch (...) {
    finish_run();  // releases the thread; what was stored stays
    throw;
  }
}

void PregelRun::load_and_apply_input(const json* input, const Command* command) {
  Persist& p = *cp_;
  CheckpointConfig address{config_.thread_id, config_.checkpoint_ns, config_.checkpoint_id};
  std::optional<CheckpointTuple> tuple = p.saver->get_tuple(address);
  if (config_.checkpoint_id && !tuple)
    throw CheckpointError("graph '" + g_->name + "': thread '" + config_.thread_id + "' has no checkpoint '" +
                          *config_.checkpoint_id + "'");
  if (g_->typed) cs_.channels[g_->start_channel]->restore(std::nullopt);
  if (tuple) restore(*tuple);
  if (tuple && config_.checkpoint_id) continue_versions_after_latest();

  const bool resume_cmd = command && !command->resume.is_null();
  const bool resuming = tuple && ((input && input->is_null()) || resume_cmd);
  const bool time_travel = config_.checkpoint_id.has_value() && !resume_cmd;
  bool command_writes_given = false;

  if (command) {
    std::vector<std::pair<std::string, json>> null_writes = command_writes(*command);
    command_writes_given = !null_writes.empty();
    if (resume_cmd && !tuple)
      throw InvalidUpdateError("graph '" + g_->name + "': Command.resume given, but thread '" + config_.thread_id +
                                   "' has no checkpoint, so nothing is waiting to be resumed");
    if (resume_cmd) {
      // Pending interrupts: those of tasks that did not finish since.
      std::set<std::string> finished;
      for (const PendingWrite& w : p.pending)
        if (!special_channel(w.channel) && w.task_id != kNullTask) finished.insert(w.task_id);
      std::vector<std::pair<Interrupt, std::string>> open;  // interrupt, task id
      for (const PendingWrite& w : p.pending)
        if (w.channel == kInterruptChannel && !finished.count(w.task_id))
          for (Interrupt& i : interrupts_from(w.value)) open.emplace_back(std::move(i), w.task_id);
      const json& r = command->resume;
      auto find_open = [&](const std::string& id) -> const std::string* {
        for (const auto& [i, task] : open)
          if (i.id == id) return &task;
        return nullptr;
      };
      // As LangGraph: an object whose keys all look like interrupt ids answers interrupts by id;
      // anything else is one value. An id answered before is skipped (get_state still lists the
      // interrupts of finished tasks, as LangGraph does); an id of no interrupt is an error.
      bool by_id = r.is_object() && !r.empty();
      for (auto it = r.begin(); by_id && it != r.end(); ++it) by_id = looks_like_interrupt_id(it.key());
      if (open.empty()) {
        // As LangGraph: no interrupt is pending, but the thread may still have tasks to run
        // (paused before a node, or changed by update_state since it paused): the value answers
        // the first interrupt() the run reaches. With nothing to run, the thread has finished:
        // the run returns its state and stores nothing (a client may retry a resume). The
        // first plan tells which (resume_needs_task).
        p.null_resume = r;
        p.resume_needs_task = true;  // stored then, as a write of no task
        p.resume_by_id_unmatched = by_id;
      } else if (by_id) {
        std::set<std::string> answered;
        for (const PendingWrite& w : p.pending)
          if (w.channel == kInterruptChannel && finished.count(w.task_id))
            for (Interrupt& i : interrupts_from(w.value)) answered.insert(std::move(i.id));
        std::string ids;
        for (const auto& [i, task] : open) ids += (ids.empty() ? "" : ", ") + i.id;
        bool any = false;
        for (auto it = r.begin(); it != r.end(); ++it) {
          if (find_open(it.key())) any = true;
          else if (!answered.count(it.key()))
            throw InvalidUpdateError("graph '" + g_->name + "': Command.resume answers interrupt '" + it.key() +
                                     "', which is not pending on thread '" + config_.thread_id + "' (pending: " + ids + ")");
        }
        if (!any)
          throw InvalidUpdateError("graph '" + g_->name + "': Command.resume answers only interrupts answered before on thread '" +
                                   config_.thread_id + "' (pending: " + ids + ")");
        p.resume_map = r;
        for (auto it = r.begin(); it != r.end(); ++it) {
          if (!find_open(it.key())) continue;  // answered before
          const std::string task = *find_open(it.key());
          json answers = json::array();
          for (const PendingWrite& w : p.pending)
            if (w.task_id == task && w.channel == kResumeChannel && w.value.is_array()) answers = w.value;
          answers.push_back(it.value());
          std::erase_if(p.pending, [&](const PendingWrite& w) { return w.task_id == task && w.channel == kResumeChannel; });
          p.pending.push_back(PendingWrite{task, kResumeChannel, answers});
          p.put_writes(*p.current.checkpoint_id, task, {{kResumeChannel, answers}});
        }
      } else {
        if (open.size() > 1) {
          std::string ids;
          for (const auto& [i, task] : open) ids += (ids.empty() ? "" : ", ") + i.id;
          throw InvalidUpdateError("graph '" + g_->name + "': " + std::to_string(open.size()) +
                                   " interrupts are pending on thread '" + config_.thread_id +
                                   "'; resume them by id with Command.resume = {id: value, ...} (ids: " + ids + ")");
        }
        p.null_resume = r;
        null_writes.emplace_back(kResumeChannel, r);
      }
    }
    if (!null_writes.empty()) {
      for (const auto& [c, v] : null_writes) p.pending.push_back(PendingWrite{kNullTask, c, v});
      if (tuple) p.put_writes(*p.current.checkpoint_id, kNullTask, std::move(null_writes));
    }
  }

  apply_null_writes();
  if (resuming || command_writes_given) {
    p.interrupt_seen = cs_.versions;
    const std::string source = p.metadata.is_object() ? p.metadata.value("source", std::string()) : std::string();
    if (time_travel) {
      // Replaying a past checkpoint: its steps run again, as a fork of it.
      std::erase_if(p.pending, [](const PendingWrite& w) { return w.channel == kResumeChannel || w.channel == kInterruptChannel; });
      if (source != "update" && source != "fork") {
        // As LangGraph (Python and JS): the fork is the next step, and the replayed steps follow it.
        step_ = p.loaded_step + 1;
        save_checkpoint("fork");
        step_ = p.loaded_step + 2;
      }
    }
    if (wants(StreamMode::values)) ready_.push_back(StreamPart{StreamMode::values, {}, state_json()});
    if (!resuming) {
      step_ = tuple ? p.loaded_step + 1 : -1;
      save_checkpoint("input");
      ++step_;
    }
    p.match_pending = !time_travel;
  } else {
    if (!input || input->is_null())
      throw EmptyInputError("graph '" + g_->name + "': received no input, and thread '" + config_.thread_id +
                            "' has no checkpoint to continue from");
    if (!input->is_object())
      throw InvalidUpdateError("graph '" + g_->name + "': input must be an object of state keys, got " + preview(*input));
    if (tuple) discard_tasks();
    Value in = *input;
    cs_.channels[g_->start_channel]->update_values(std::span<Value>(&in, 1));
    cs_.versions[g_->start_channel] = cs_.next_version();
    cs_.updated = {g_->start_channel};
    cs_.live_volatile = {g_->start_channel};
    step_ = tuple ? p.loaded_step + 1 : -1;
    save_checkpoint("input");
    ++step_;
  }
  stop_ = step_ + config_.recursion_limit;
}

std::vector<std::pair<std::string, json>> PregelRun::command_writes(const Command& command) const {
  if (command.graph == Command::PARENT)
    throw InvalidUpdateError("graph '" + g_->name + "': a Command with graph=PARENT was given as input, but this graph has no parent");
  if (command.resume.is_null() && command.update.is_null() && command.go_to.empty())
    throw EmptyInputError("graph '" + g_->name + "': received an empty Command (no resume, update or go_to)");
  std::vector<std::pair<std::string, json>> null_writes;
  if (!command.update.is_null()) {
    if (!command.update.is_object())
      throw InvalidUpdateError("graph '" + g_->name + "': Command.update must be an object of state keys, got " +
                               preview(command.update));
    for (auto it = command.update.begin(); it != command.update.end(); ++it) {
      g_->key_of(it.key(), [] { return std::string("Command.update has"); });
      null_writes.emplace_back(it.key(), it.value());
    }
  }
  for (const Destination& d : command.go_to.items()) {
    if (const Send* s = std::get_if<Send>(&d)) {
      if (s->node == END) continue;
      g_->node_of(s->node, [] { return std::string("Command.go_to sends to"); });
      null_writes.emplace_back(kTasksChannel, json{{"node", s->node}, {"arg", s->arg}});
    } else if (int id = g_->node_of(std::get<std::string>(d), [] { return std::string("Command.go_to names"); })) {
      null_writes.emplace_back(g_->channels[g_->branch_channel[id]].name, nullptr);
    }
  }
  return null_writes;
}

bool PregelRun::apply_null_writes() {
  Persist& p = *cp_;
  ExecutableTask t;
  t.run = this;
  for (const PendingWrite& w : p.pending)
    if (w.task_id == kNullTask && !special_channel(w.channel)) decode_write(t, w.channel, w.value);
  return apply_input_writes(*g_, cs_, t);
}

void PregelRun::discard_tasks() {
  // New input on a thread with unfinished tasks: they will not run (LangGraph's discard).
  prepare_next_tasks();
  const uint64_t version = cs_.next_version();
  for (auto& t : tasks_) {
    if (t->push) continue;
    const NodeData& node = *t->node;
    for (std::size_t j = 0; j < node.triggers.size(); ++j) cs_.seen[node.id][j] = cs_.versions[node.triggers[j]];
    for (int c : node.triggers)
      if (cs_.channels[c]->consume()) cs_.versions[c] = version;
  }
  for (int c : cs_.live_volatile)
    if (cs_.channels[c]->update_values(std::span<Value>())) cs_.versions[c] = version;
  cs_.live_volatile.clear();
  cs_.updated.clear();
  recycle_tasks();
  cp_->pending.clear();
  cp_->seen_cache_valid = false;
}

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
  // versions_seen: after a step only the nodes that ran changed; otherwise rebuild all.
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

// --- inspection: get_state and update_state ---

StateSnapshot PregelRun::snapshot(bool apply_pending, bool subgraphs, bool take) {
  Persist& p = *cp_;
  StateSnapshot s;
  s.config = p.current;
  if (!p.has_checkpoint) return s;
  if (apply_null_writes()) p.inspected_writes = true;
  prepare_next_tasks();
  match_pending_writes();
  if (!apply_pending)
    for (auto& t : tasks_)
      if (t->cached) {
        // A past checkpoint: its step was applied in its child; show the state as it was.
        json result = std::move(t->stream_update);
        t->clear_results();
        t->cached = false;
        t->stream_update = std::move(result);
      }
  // match_pending_writes clears what re-running tasks asked; read it again for the snapshot.
  for (auto& t : tasks_) {
    superstep::PregelTask info;
    info.id = t->id();
    info.name = t->node->name;
    info.path = task_path(*t);
    // As LangGraph: a task shows the interrupts and error stored for it (match_pending_writes),
    // answered or not (a finished task keeps the interrupt it was resumed from), and on the
    // latest checkpoint a task holding an answer (a node paused at its second interrupt) is not
    // in `next`.
    info.interrupts = t->asked;
    info.error = t->saved_error;
    if (!t->cached) {
      if (!t->stream_update.is_null()) info.result = std::move(t->stream_update);  // not applied: not needed again
      if (!(apply_pending && !t->resume.empty())) s.next.push_back(info.name);
      if (const auto& child = t->node->subgraph) {
        info.state_config = CheckpointConfig{config_.thread_id, task_ns(*t), std::nullopt};
        ParentLink link;
        link.saver = child->checkpointer ? child->checkpointer : p.saver;
        if (subgraphs)
          if (auto tuple = link.saver->get_tuple(*info.state_config)) {
            RunConfig cfg = config_;
            cfg.checkpoint_ns = info.state_config->checkpoint_ns;
            cfg.checkpoint_id.reset();
            PregelRun sub(child, cfg, &*tuple, Inspect{}, &link);
            info.state = std::make_shared<StateSnapshot>(sub.snapshot(/*apply_pending=*/true, /*subgraphs=*/true));
          }
      }
    } else {
      info.result = t->stream_update.is_null() ? json::object() : t->stream_update;
    }
    for (const Interrupt& i : info.interrupts) s.interrupts.push_back(i);
    s.tasks.push_back(std::move(info));
  }
  std::vector<TaskPtr> rest;
  for (auto& t : tasks_)
    if (!t->cached) rest.push_back(std::move(t));
  std::erase_if(tasks_, [](const TaskPtr& t) { return !t; });
  if (!tasks_.empty()) {
    apply_writes(*g_, cs_, tasks_, step_);
    p.inspected_writes = true;
  }
  for (auto& t : rest) tasks_.push_back(std::move(t));
  s.values = state_json();
  if (take) {
    s.metadata = std::move(p.metadata);
    s.created_at = std::move(p.created_at);
    s.parent_config = std::move(p.parent);
  } else {
    s.metadata = p.metadata;
    s.created_at = p.created_at;
    s.parent_config = p.parent;
  }
  return s;
}

std::string PregelRun::last_node_seen() const {
  // As LangGraph: every (version, node) a node has seen; none yet -> START (the update is the
  // thread's input); else the node that saw the newest version, unless the newest two share it.
  uint64_t best = 0;
  int count = 0;
  std::string name = START;
  for (const NodeData& nd : g_->nodes)
    for (uint64_t v : cs_.seen[nd.id]) {
      if (v == 0 || v < best) continue;
      count = v == best ? count + 1 : 1;
      best = v;
      name = nd.name;
    }
  if (count > 1)
    throw InvalidUpdateError("graph '" + g_->name + "': update_state cannot tell which node the update is from "
                             "(the last step ran several); pass as_node (nodes: " + g_->node_list() + ")");
  return name;
}

CheckpointConfig PregelRun::update(const json& values, const std::string& as_node) {
  Persist& p = *cp_;
  const int64_t step = p.loaded_step;
  if (config_.checkpoint_id && p.has_checkpoint) continue_versions_after_latest();
  if (as_node == "__copy__") {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as '__copy__' forks a checkpoint and takes no values");
    step_ = step;
    save_checkpoint("fork");
    return p.current;
  }
  // Writes of tasks that finished in a pending step are applied first (on the latest checkpoint).
  if (!config_.checkpoint_id && p.has_checkpoint && !p.pending.empty()) {
    apply_null_writes();
    prepare_next_tasks();
    match_pending_writes();
    std::erase_if(tasks_, [](const TaskPtr& t) { return !t->cached; });
    if (!tasks_.empty()) apply_writes(*g_, cs_, tasks_, step_);
    recycle_tasks();
    p.seen_cache_valid = false;
    // The tasks that did not finish are planned again from the new versions.
    cs_.updated.clear();
    for (std::size_t i = 0; i < cs_.channels.size(); ++i)
      if (g_->channels[i].is_trigger) cs_.updated.push_back(static_cast<int>(i));
  }
  if (as_node == END) {
    if (!values.is_null())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as END takes no values (it ends the pending tasks)");
    discard_tasks();
    step_ = step + 1;
    save_checkpoint("update");
    return p.current;
  }
  if (as_node == "__input__") {
    if (!values.is_object())
      throw InvalidUpdateError("graph '" + g_->name + "': update_state as '__input__' needs an object of state keys");
    discard_tasks();
    Value in = values;
    cs_.channels[g_->start_channel]->update_values(std::span<Value>(&in, 1));
    cs_.versions[g_->start_channel] = cs_.next_version();
    step_ = p.has_checkpoint ? step + 1 : -1;  // a thread's first checkpoint is its input, at step -1
    save_checkpoint("input");
    return p.current;
  }
  std::string node_name = as_node.empty() ? last_node_seen() : as_node;
  int n = g_->find_node(node_name);  // __start__ too: the values as input, START's edges taken
  if (n < 0)
    throw InvalidUpdateError("graph '" + g_->name + "': update_state as_node '" + node_name +
                             "' is not a node (nodes: " + g_->node_list() + ")");
  recycle_tasks();
  TaskPtr t(new ExecutableTask());
  t->run = this;
  t->node = &g_->nodes[n];
  t->step = step_;
  t->synthetic = true;
  t->runtime.emplace(*t);
  if (g_->typed) {
    if (!values.is_null()) {
      if (!values.is_object())
        throw InvalidUpdateError("graph '" + g_->name + "': update_state values must be an object of state keys");
      for (auto it = values.begin(); it != values.end(); ++it) g_->key_of(it.key(), [] { return std::string("update_state has"); });
      t->writes = g_->typed->writes_from_json(values);
    }
    const NodeData& nd = *t->node;
    t->control.insert(t->control.end(), nd.edge_writes.begin(), nd.edge_writes.end());
    t->control.insert(t->control.end(), nd.join_writes.begin(), nd.join_writes.end());
  } else {
    process_result(*t, NodeResult(values));
  }
  tasks_.push_back(std::move(t));
  apply_writes(*g_, cs_, tasks_, step_);
  recycle_tasks();
  step_ = step + 1;
  save_checkpoint("update");
  return p.current;
}

}  // namespace internal
}  // namespace superstep
