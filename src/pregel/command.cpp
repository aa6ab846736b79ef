// A Command input as writes (command.hpp): map_command and map_resume, pure.
#include "pregel/command.hpp"

#include <algorithm>
#include <set>

#include "superstep/errors.hpp"

namespace superstep::internal {

bool special_channel(const std::string& c) {
  return c == kErrorChannel || c == kInterruptChannel || c == kScheduledChannel || c == kResumeChannel;
}

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

std::vector<std::pair<std::string, json>> map_command(const Program& g, const Command& command) {
  if (command.graph == Command::PARENT)
    throw InvalidUpdateError("graph '" + g.name + "': a Command with graph=PARENT was given as input, but this graph has no parent");
  if (command.resume.is_null() && command.update.is_null() && command.go_to.empty())
    throw EmptyInputError("graph '" + g.name + "': received an empty Command (no resume, update or go_to)");
  std::vector<std::pair<std::string, json>> writes;
  if (!command.update.is_null()) {
    if (!command.update.is_object())
      throw InvalidUpdateError("graph '" + g.name + "': Command.update must be an object of state keys, got " +
                               preview(command.update));
    for (auto it = command.update.begin(); it != command.update.end(); ++it) {
      g.key_of(it.key(), [] { return std::string("Command.update has"); });
      writes.emplace_back(it.key(), it.value());
    }
  }
  for (const Destination& d : command.go_to.items()) {
    if (const Send* s = std::get_if<Send>(&d)) {
      if (s->node == END) continue;
      g.node_of(s->node, [] { return std::string("Command.go_to sends to"); });
      writes.emplace_back(kTasksChannel, json{{"node", s->node}, {"arg", s->arg}});
    } else if (int id = g.node_of(std::get<std::string>(d), [] { return std::string("Command.go_to names"); })) {
      writes.emplace_back(g.channels[g.branch_channel[id]].name, nullptr);
    }
  }
  return writes;
}

ResumeMapping map_resume(const std::string& graph, const std::string& thread, const std::vector<PendingWrite>& pending,
                         const json& r) {
  ResumeMapping out;
  // Pending interrupts: those of tasks that did not finish since.
  std::set<std::string> finished;
  for (const PendingWrite& w : pending)
    if (!special_channel(w.channel) && w.task_id != kNullTask) finished.insert(w.task_id);
  std::vector<std::pair<Interrupt, std::string>> open;  // interrupt, task id
  for (const PendingWrite& w : pending)
    if (w.channel == kInterruptChannel && !finished.count(w.task_id))
      for (Interrupt& i : interrupts_from(w.value)) open.emplace_back(std::move(i), w.task_id);
  auto task_of = [&](const std::string& id) -> const std::string* {
    for (const auto& [i, task] : open)
      if (i.id == id) return &task;
    return nullptr;
  };
  std::string ids;
  for (const auto& [i, task] : open) ids += (ids.empty() ? "" : ", ") + i.id;
  bool by_id = r.is_object() && !r.empty();
  for (auto it = r.begin(); by_id && it != r.end(); ++it) by_id = looks_like_interrupt_id(it.key());

  if (open.empty()) {
    // No interrupt is pending, but the thread may still have tasks to run (paused before a
    // node, or changed by update_state since it paused): the value answers the first
    // interrupt() the run reaches. With nothing to run, the thread has finished.
    out.null_resume = r;
    out.needs_task = true;
    out.by_id_unmatched = by_id;
    return out;
  }
  if (!by_id) {
    if (open.size() > 1)
      throw InvalidUpdateError("graph '" + graph + "': " + std::to_string(open.size()) +
                               " interrupts are pending on thread '" + thread +
                               "'; resume them by id with Command.resume = {id: value, ...} (ids: " + ids + ")");
    out.null_resume = r;
    out.resume_write = true;
    return out;
  }
  // By id. An id answered before is skipped (get_state still lists the interrupts of finished
  // tasks, as LangGraph does); an id of no interrupt is an error.
  std::set<std::string> answered;
  for (const PendingWrite& w : pending)
    if (w.channel == kInterruptChannel && finished.count(w.task_id))
      for (Interrupt& i : interrupts_from(w.value)) answered.insert(std::move(i.id));
  bool any = false;
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (task_of(it.key())) any = true;
    else if (!answered.count(it.key()))
      throw InvalidUpdateError("graph '" + graph + "': Command.resume answers interrupt '" + it.key() +
                               "', which is not pending on thread '" + thread + "' (pending: " + ids + ")");
  }
  if (!any)
    throw InvalidUpdateError("graph '" + graph + "': Command.resume answers only interrupts answered before on thread '" +
                             thread + "' (pending: " + ids + ")");
  out.by_id = r;
  for (auto it = r.begin(); it != r.end(); ++it) {
    const std::string* task = task_of(it.key());
    if (!task) continue;  // answered before
    auto known = std::find_if(out.task_answers.begin(), out.task_answers.end(),
                              [&](const auto& a) { return a.first == *task; });
    if (known == out.task_answers.end()) {
      json answers = json::array();
      for (const PendingWrite& w : pending)
        if (w.task_id == *task && w.channel == kResumeChannel && w.value.is_array()) answers = w.value;
      out.task_answers.emplace_back(*task, std::move(answers));
      known = std::prev(out.task_answers.end());
    }
    known->second.push_back(it.value());
  }
  return out;
}

}  // namespace superstep::internal
