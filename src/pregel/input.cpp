// A checkpointed run's input (docs/persistence.md): claiming the thread, loading its checkpoint,
// and the input as LangGraph reads it: new input (discarding unfinished tasks), null (continue),
// a Command (map_command, map_resume), or a replay or fork of a past checkpoint. Also a Command
// input without a checkpointer. Runs on the consumer's thread.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persist.hpp"
#include "pregel/run.hpp"

namespace superstep::internal {

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
  std::vector<std::pair<std::string, json>> writes = map_command(*g_, input);
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
    std::vector<std::pair<std::string, json>> null_writes = map_command(*g_, *command);
    command_writes_given = !null_writes.empty();
    if (resume_cmd && !tuple)
      throw InvalidUpdateError("graph '" + g_->name + "': Command.resume given, but thread '" + config_.thread_id +
                                   "' has no checkpoint, so nothing is waiting to be resumed");
    if (resume_cmd) {
      ResumeMapping m = map_resume(g_->name, config_.thread_id, p.pending, command->resume);
      p.null_resume = std::move(m.null_resume);
      p.resume_needs_task = m.needs_task;  // stored once the first plan has a task, as a write of no task
      p.resume_by_id_unmatched = m.by_id_unmatched;
      p.resume_map = std::move(m.by_id);
      for (auto& [task, answers] : m.task_answers) {
        std::erase_if(p.pending, [&](const PendingWrite& w) { return w.task_id == task && w.channel == kResumeChannel; });
        p.pending.push_back(PendingWrite{task, kResumeChannel, answers});
        p.put_writes(*p.current.checkpoint_id, task, {{kResumeChannel, std::move(answers)}});
      }
      if (m.resume_write) null_writes.emplace_back(kResumeChannel, command->resume);
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

}  // namespace superstep::internal
