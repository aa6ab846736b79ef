#include "torture/torture_check.hpp"

#include <fstream>
#include <iterator>
#include <string_view>
#include <sstream>

#include <superstep/checkpoint/checkpoint.hpp>

namespace torture {

namespace {

bool runs_again_by_design(const std::string& channel) {
  return channel == sp::kErrorChannel || channel == sp::kInterruptChannel || channel == sp::kResumeChannel ||
         channel == sp::kScheduledChannel;
}

int64_t step_of(const sp::CheckpointTuple& t) {
  const auto& m = t.metadata;
  return m.is_object() && m.contains("step") && m["step"].is_number_integer() ? m["step"].get<int64_t>() : INT64_MIN;
}

}  // namespace

Snapshot take_snapshot(sp::CheckpointSaver& saver, const std::vector<std::string>& threads) {
  Snapshot s;
  for (const auto& thread : threads) {
    sp::CheckpointQuery q;
    q.thread_id = thread;
    for (const auto& t : saver.list(q)) {
      std::string ns = t.config.checkpoint_ns.empty() ? "-" : t.config.checkpoint_ns;
      auto [it, fresh] = s.newest_step.try_emplace(thread + "|" + ns, step_of(t));
      if (!fresh) it->second = std::max(it->second, step_of(t));
      for (const auto& w : t.pending_writes)
        if (!runs_again_by_design(w.channel)) s.saved.insert(thread + "|" + ns + "|" + w.task_id);
    }
  }
  return s;
}

std::vector<std::string> check_chain(sp::CheckpointSaver& saver, const std::string& thread) {
  std::vector<std::string> problems;
  sp::CheckpointQuery q;
  q.thread_id = thread;
  std::map<std::string, std::vector<sp::CheckpointTuple>> by_ns;
  for (auto& t : saver.list(q)) by_ns[t.config.checkpoint_ns].push_back(std::move(t));
  if (by_ns.empty()) problems.push_back(thread + ": no checkpoint stored");
  for (const auto& [ns, tuples] : by_ns) {
    std::string where = thread + (ns.empty() ? "" : " ns " + ns);
    std::map<std::string, const sp::CheckpointTuple*> by_id;
    for (const auto& t : tuples) {
      if (!t.config.checkpoint_id) {
        problems.push_back(where + ": a checkpoint without an id");
        continue;
      }
      if (!by_id.emplace(*t.config.checkpoint_id, &t).second)
        problems.push_back(where + ": checkpoint " + *t.config.checkpoint_id + " listed twice");
    }
    int firsts = 0;
    std::map<std::string, int> children;
    for (const auto& [id, t] : by_id) {
      if (!t->parent_config || !t->parent_config->checkpoint_id) {
        ++firsts;
        continue;
      }
      const std::string& parent = *t->parent_config->checkpoint_id;
      auto p = by_id.find(parent);
      if (p == by_id.end()) {
        problems.push_back(where + ": checkpoint " + id + " has parent " + parent + ", which is not stored");
        continue;
      }
      if (++children[parent] == 2) problems.push_back(where + ": checkpoint " + parent + " has two children (a fork)");
      if (step_of(*t) <= step_of(*p->second))
        problems.push_back(where + ": checkpoint " + id + " (step " + std::to_string(step_of(*t)) +
                           ") does not come after its parent (step " + std::to_string(step_of(*p->second)) + ")");
      if (parent >= id) problems.push_back(where + ": checkpoint " + id + " sorts before its parent " + parent);
    }
    if (firsts != 1) problems.push_back(where + ": " + std::to_string(firsts) + " checkpoints without a parent (want 1)");
  }
  return problems;
}

namespace {

/// The status a record's first field ends with ("ok", "fail" or "done"), or "" when it ends with
/// none. The field may carry, before the status, the start of a record torn by a kill.
std::string status_at_end(const std::string& field) {
  for (const char* s : {"done", "fail", "ok"}) {
    std::string_view st(s);
    if (field.size() >= st.size() && field.compare(field.size() - st.size(), st.size(), st) == 0) return s;
  }
  return "";
}

bool all_digits(const std::string& s, bool sign = false) {
  std::size_t i = sign && !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

}  // namespace

// Each record is one write(2) on an O_APPEND descriptor, but a SIGKILL that arrives while the
// kernel copies a record crossing a page boundary ends the write short: the record's start stays
// in the file without its newline, and the next record written continues that line. Such a line
// holds the torn start, then a whole record; the whole record is read and the torn start (a task
// the kill interrupted, so a lost execution either way) is counted in `torn`. A torn record at
// the end of the file has no newline and is counted the same.
std::vector<Record> read_records(const std::string& path, int* torn) {
  std::vector<Record> out;
  if (torn) *torn = 0;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {  // the last record, torn
      if (torn) ++*torn;
      break;
    }
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (!line.empty() && line.back() == '\t') f.emplace_back();
    if (f.size() < 8) throw std::runtime_error("torture: a record with too few fields in " + path + ": " + line);
    // A torn start before a whole record: the whole record is its last 8 fields, the first of
    // them the torn start's rest followed by the status.
    const std::size_t first = f.size() - 8;
    const std::string status = status_at_end(f[first]);
    const bool whole = first == 0 && f[0] == status;
    if (status.empty() || !all_digits(f[first + 1]) || !all_digits(f[first + 6], true) || !all_digits(f[first + 7]))
      throw std::runtime_error("torture: a record that does not parse in " + path + ": " + line);
    if (!whole && torn) ++*torn;
    Record r;
    r.ok = status == "ok";
    r.done = status == "done";
    r.pid = std::stol(f[first + 1]);
    r.thread = f[first + 2];
    r.ns = f[first + 3];
    r.task_id = f[first + 4];
    r.node = f[first + 5];
    r.step = std::stoll(f[first + 6]);
    r.attempt = std::stoi(f[first + 7]);
    out.push_back(std::move(r));
  }
  return out;
}

Findings analyse(const std::vector<Record>& records, const std::vector<WorkerRun>& workers, const std::string& prefix,
                 bool sync) {
  Findings f;
  std::map<long, const WorkerRun*> by_pid;
  for (const auto& w : workers) by_pid[w.pid] = &w;
  std::map<std::pair<long, std::string>, int> runs_in_process;
  std::map<std::pair<long, std::string>, std::set<int64_t>> lost_steps;  // (pid, thread|ns) -> steps
  std::map<std::string, long> finished;  // thread -> the process its run returned finished in
  std::vector<const Record*> lost_records;
  for (const auto& r : records) {
    if (r.thread.rfind(prefix, 0) != 0) continue;
    if (r.done) {  // written by a worker, or by the server's SDK client
      finished.emplace(r.thread, r.pid);
      continue;
    }
    auto w = by_pid.find(r.pid);
    if (w == by_pid.end()) {
      f.problems.push_back("a record of an unknown process " + std::to_string(r.pid));
      continue;
    }
    if (!r.ok) {
      ++f.failed_attempts;
      continue;
    }
    ++f.executions;
    const WorkerRun& run = *w->second;
    // Its thread's run already returned (in an earlier process): everything is stored, so
    // nothing may run again, whatever the durability.
    if (auto fin = finished.find(r.thread); fin != finished.end() && fin->second != r.pid) {
      ++f.after_return;
      f.problems.push_back("after return: " + r.key() + " (" + r.node + ") ran in process " + std::to_string(r.pid) +
                           " after the thread's run returned finished in process " + std::to_string(fin->second));
    }
    std::string key = r.key();
    if (run.before.saved.count(key)) {
      ++f.duplicates;
      f.problems.push_back("duplicate: " + key + " (" + r.node + ") ran in process " + std::to_string(r.pid) +
                           " although its writes were saved before it started");
    } else if (++runs_in_process[{r.pid, key}] > 1) {
      ++f.duplicates;
      f.problems.push_back("duplicate: " + key + " (" + r.node + ") ran twice in process " + std::to_string(r.pid));
    }
    if (!run.killed || run.after.saved.count(key)) continue;
    // Its writes were not saved when the process died: it runs again. What is stored must be
    // a prefix of what the run produced, so no later step of that thread may be stored.
    ++f.lost;
    lost_records.push_back(&r);
    std::string tn = r.thread + "|" + r.ns;
    lost_steps[{r.pid, tn}].insert(r.step);
    auto newest = run.after.newest_step.find(tn);
    if (newest != run.after.newest_step.end() && r.step <= newest->second) {
      ++f.holes;
      f.problems.push_back("hole: " + key + " (" + r.node + ", step " + std::to_string(r.step) +
                           ") ran but its writes were lost while step " + std::to_string(newest->second) +
                           " is stored");
    }
  }
  // A run that returned has stored everything (durability async included): a kill after that
  // must not lose any of its thread's executions.
  for (const Record* r : lost_records)
    if (auto fin = finished.find(r->thread); fin != finished.end() && fin->second == r->pid) {
      ++f.after_return;
      f.problems.push_back("after return: " + r->key() + " (" + r->node + ") was lost to a kill of process " +
                           std::to_string(r->pid) + " after the thread's run returned there");
    }
  for (const auto& [k, steps] : lost_steps) {
    f.max_lost_steps = std::max(f.max_lost_steps, static_cast<int>(steps.size()));
    if (sync && steps.size() > 1) {
      ++f.sync_violations;
      f.problems.push_back("durability sync lost " + std::to_string(steps.size()) + " steps of " + k.second +
                           " to one kill");
    }
  }
  return f;
}

}  // namespace torture
