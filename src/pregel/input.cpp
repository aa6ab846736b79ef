// A checkpointed run's input (docs/persistence.md): claiming the thread, loading its checkpoint,
// and the input as LangGraph reads it: new input (discarding unfinished tasks), null (continue),
// a Command (map_command, map_resume), or a replay or fork of a past checkpoint. Runs on the
// consumer's thread.
#include <algorithm>

#include "internal/ids.hpp"
#include "pregel/algo.hpp"
#include "pregel/command.hpp"
#include "pregel/persistence.hpp"
#include "pregel/stored_writes.hpp"

namespace superstep::internal {

void Persistence::first(const json* input, const Command* command) {
  if (s_.config.thread_id.empty())
    throw Error("graph '" + s_.g->name + "' has a checkpointer: RunConfig::thread_id must name the thread");
  if (!ThreadLocks::acquire(saver_.get(), s_.config.thread_id, s_.config.checkpoint_ns))
    throw Error("graph '" + s_.g->name + "': thread '" + s_.config.thread_id +
                "' already has a run in progress; wait for it to end before starting another");
  locked_ = true;
  try {
    claim_ = name_saver_failure(s_.g->name, s_.config.thread_id, [] { return "claiming the thread"; },
                                [&] { return saver_->claim_thread(s_.config.thread_id, s_.config.checkpoint_ns); });
    if (!claim_)
      throw Error("graph '" + s_.g->name + "': thread '" + s_.config.thread_id +
                  "' already has a run in progress in another process (or through another saver on the same store); "
                  "wait for it to end before starting another");
    load_and_apply_input(input, command);
  } catch (...) {
    finish();  // releases the thread; what was stored stays
    throw;
  }
}

void Persistence::load_and_apply_input(const json* input, const Command* command) {
  CheckpointConfig address{s_.config.thread_id, s_.config.checkpoint_ns, s_.config.checkpoint_id};
  std::optional<CheckpointTuple> tuple = name_saver_failure(
      s_.g->name, s_.config.thread_id,
      [&] {
        return s_.config.checkpoint_id ? "loading checkpoint '" + *s_.config.checkpoint_id + "'"
                                       : std::string("loading its latest checkpoint");
      },
      [&] { return saver_->get_tuple(address); });
  if (s_.config.checkpoint_id && !tuple)
    throw CheckpointError("graph '" + s_.g->name + "': thread '" + s_.config.thread_id + "' has no checkpoint '" +
                          *s_.config.checkpoint_id + "'");
  if (s_.g->typed) s_.cs.channels[s_.g->start_channel]->restore(std::nullopt);
  if (tuple) restore(*tuple);
  // As LangGraph (checkpointSuperseded in LangGraph.js; Python skips done tasks only without a
  // checkpoint_id): resuming a checkpoint the thread has moved past runs its finished tasks again.
  if (tuple && s_.config.checkpoint_id) rerun_done_tasks_ = continue_versions_after_latest();

  const bool resume_cmd = command && !command->resume.is_null();
  const bool resuming = tuple && ((input && input->is_null()) || resume_cmd);
  const bool time_travel = s_.config.checkpoint_id.has_value() && !resume_cmd;
  bool command_writes_given = false;

  if (command) {
    std::vector<std::pair<std::string, json>> null_writes = map_command(*s_.g, *command);
    command_writes_given = !null_writes.empty();
    if (resume_cmd && !tuple)
      throw InvalidUpdateError("graph '" + s_.g->name + "': Command.resume given, but thread '" + s_.config.thread_id +
                                   "' has no checkpoint, so nothing is waiting to be resumed");
    if (resume_cmd) {
      ResumeMapping m = map_resume(s_.g->name, s_.config.thread_id, pending_, command->resume);
      null_resume_ = std::move(m.null_resume);
      resume_needs_task_ = m.needs_task;  // stored once the first plan has a task, as a write of no task
      resume_by_id_unmatched_ = m.by_id_unmatched;
      resume_map_ = std::move(m.by_id);
      for (auto& entry : m.task_answers) {
        const auto& task = entry.first;  // a plain reference: the lambda below captures it
        auto& answers = entry.second;
        std::erase_if(pending_, [&](const PendingWrite& w) { return w.task_id == task && w.channel == kResumeChannel; });
        pending_.push_back(PendingWrite{task, kResumeChannel, answers});
        put_writes(*current_.checkpoint_id, task, {{kResumeChannel, std::move(answers)}});
      }
      if (m.resume_write) null_writes.emplace_back(kResumeChannel, command->resume);
    }
    if (!null_writes.empty()) {
      for (const auto& [c, v] : null_writes) pending_.push_back(PendingWrite{kNullTask, c, v});
      if (tuple) put_writes(*current_.checkpoint_id, kNullTask, std::move(null_writes));
    }
  }

  apply_null_writes();
  if (resuming || command_writes_given) {
    interrupt_seen_ = s_.cs.versions;
    // As LangGraph (which streams the checkpoint each step starts from): a run continuing a
    // stored checkpoint streams it as its first `checkpoints`/`debug` part, with the
    // interrupts, errors and results stored for its tasks.
    checkpoint_to_emit_ = true;
    // (update_metadata may have stored anything under "source": only a string counts.)
    const std::string source = metadata_.is_object() && metadata_.contains("source") && metadata_["source"].is_string()
                                   ? metadata_["source"].get<std::string>() : std::string();
    if (time_travel) {
      // Replaying a past checkpoint: its steps run again, as a fork of it.
      std::erase_if(pending_, [](const PendingWrite& w) { return w.channel == kResumeChannel || w.channel == kInterruptChannel; });
      if (source != "update" && source != "fork") {
        // As LangGraph (Python and JS): the fork is the next step, and the replayed steps follow it.
        s_.step = loaded_step_ + 1;
        save_checkpoint("fork");
        s_.step = loaded_step_ + 2;
      }
    }
    s_.output_shown = true;  // as LangGraph: a resume or a Command's writes show the output
    if (s_.wants(StreamMode::values)) s_.yield(StreamPart{StreamMode::values, {}, s_.values_json()});
    if (!resuming) {
      s_.step = tuple ? loaded_step_ + 1 : -1;
      save_checkpoint("input");
      ++s_.step;
    }
    match_pending_ = !time_travel;
  } else {
    if (!input || input->is_null())
      throw EmptyInputError("graph '" + s_.g->name + "': received no input, and thread '" + s_.config.thread_id +
                            "' has no checkpoint to continue from");
    if (!input->is_object())
      throw InvalidUpdateError("graph '" + s_.g->name + "': input must be an object of state keys, got " + preview(*input));
    if (tuple) discard_tasks();
    Value in = *input;
    s_.cs.channels[s_.g->start_channel]->update_values(std::span<Value>(&in, 1));
    s_.cs.versions[s_.g->start_channel] = s_.cs.next_version();
    s_.cs.updated = {s_.g->start_channel};
    s_.cs.live_volatile = {s_.g->start_channel};
    s_.step = tuple ? loaded_step_ + 1 : -1;
    // With durability sync, stored with step 0's checkpoint (the __start__ step: no node of the
    // user's runs before it), in one batch.
    hold_next_checkpoint_ = durability_ == Durability::sync;
    save_checkpoint("input");
    ++s_.step;
  }
  // As LangGraph (Python and JS): counted from the step after the loaded checkpoint plus one,
  // whatever the input (a fresh thread: step 0, the __start__ step; a new input: the step after
  // its input checkpoint; a resume: one step more than the steps it runs from there).
  s_.stop = (tuple ? loaded_step_ + 2 : 0) + s_.config.recursion_limit;
}

bool Persistence::apply_null_writes() {
  ExecutableTask t;
  t.run = &loop_;
  for (const PendingWrite& w : pending_)
    if (w.task_id == kNullTask && !special_channel(w.channel)) decode_write(*s_.g, s_.config, t, w.channel, w.value);
  return apply_input_writes(*s_.g, s_.cs, t);
}

void Persistence::discard_tasks() {
  // New input on a thread with unfinished tasks: they will not run (LangGraph's discard).
  s_.prepare_next_tasks(&loop_);
  const uint64_t version = s_.cs.next_version();
  for (auto& t : s_.tasks) {
    if (t->push) continue;
    const NodeData& node = *t->node;
    for (std::size_t j = 0; j < node.triggers.size(); ++j) s_.cs.seen[node.id][j] = s_.cs.versions[node.triggers[j]];
    for (int c : node.triggers)
      if (s_.cs.channels[c]->consume()) s_.cs.versions[c] = version;
  }
  for (int c : s_.cs.live_volatile)
    if (s_.cs.channels[c]->update_values(std::span<Value>())) s_.cs.versions[c] = version;
  s_.cs.live_volatile.clear();
  s_.cs.updated.clear();
  s_.recycle_tasks();
  pending_.clear();
  seen_cache_valid_ = false;
}

}  // namespace superstep::internal
