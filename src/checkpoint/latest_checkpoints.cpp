#include "checkpoint/latest_checkpoints.hpp"

#include <algorithm>

namespace superstep::internal {

namespace {

/// The keys a stored checkpoint names itself (Checkpoint's own fields and the marks of a version
/// chain); anything else in `extra` is read back as extra.
bool own_key(const std::string& k) {
  return k == "v" || k == "id" || k == "ts" || k == "channel_values" || k == "channel_versions" ||
         k == "versions_seen" || k == "updated_channels" || k == kVersionsFrom || k == kVersionsRoot;
}

/// Whether two stored versions name the same row (as stored: version_text).
bool same_version(const json& a, const json& b) {
  return (a.type() == b.type() && a == b) || version_text(a) == version_text(b);
}

}  // namespace

LatestCheckpoints::Entry* LatestCheckpoints::entry(const Key& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  used_.splice(used_.begin(), used_, it->second.used);
  return &it->second;
}

LatestCheckpoints::Entry& LatestCheckpoints::make(const Key& key) {
  if (Entry* e = entry(key)) return *e;
  while (!used_.empty() && entries_.size() >= capacity_) drop(entries_.find(used_.back()));
  used_.push_front(key);
  Entry& e = entries_[key];
  e.used = used_.begin();
  return e;
}

void LatestCheckpoints::drop(std::map<Key, Entry>::iterator it) {
  if (it == entries_.end()) return;
  used_.erase(it->second.used);
  entries_.erase(it);
}

void LatestCheckpoints::touched(const Key& key) {
  if (in_batch_) batch_touched_.insert(key);
}

std::optional<std::optional<CheckpointTuple>> LatestCheckpoints::find(const CheckpointConfig& config) {
  Entry* e = entry({config.thread_id, config.checkpoint_ns});
  if (!e) return std::nullopt;
  if (!e->tuple) {
    if (config.checkpoint_id) return std::nullopt;
    return std::optional<CheckpointTuple>{};
  }
  if (config.checkpoint_id && *config.checkpoint_id != e->tuple->checkpoint.id) return std::nullopt;
  CheckpointTuple out = *e->tuple;
  out.pending_writes.reserve(e->writes.size());
  for (const auto& [key, w] : e->writes) out.pending_writes.push_back(PendingWrite{w.task_id, w.channel, w.value});
  return std::optional<CheckpointTuple>{std::move(out)};
}

void LatestCheckpoints::filled(const std::string& thread, const std::string& ns,
                               const std::optional<CheckpointTuple>& newest) {
  Key key{thread, ns};
  // Pending writes read back lack their index and task path, which later writes are ordered and
  // merged by; a format-3 checkpoint reads its parent's writes: neither is kept.
  if (capacity_ == 0 || (newest && (!newest->pending_writes.empty() || newest->checkpoint.v < 4))) {
    drop(entries_.find(key));
    return;
  }
  Entry& e = make(key);
  e.tuple = newest;
  e.writes.clear();
  e.paths.clear();
}

void LatestCheckpoints::put(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                            const json& new_versions, const PutDeltas& deltas) {
  Key key{config.thread_id, config.checkpoint_ns};
  touched(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  auto lost = [&] { drop(it); };
  // The put must follow the entry: its parent is the entry's checkpoint (or, on a thread known to
  // have none, it has no parent), and its id sorts after it, so it is the newest now.
  if (checkpoint.v < 4 || !new_versions.is_object()) return lost();
  if (e.tuple ? !config.checkpoint_id || *config.checkpoint_id != e.tuple->checkpoint.id ||
                    checkpoint.id <= e.tuple->checkpoint.id
              : config.checkpoint_id.has_value())
    return lost();
  std::optional<CheckpointTuple> base = std::move(e.tuple);
  e.tuple.reset();
  e.writes.clear();
  e.paths.clear();

  // An append grows the value the entry holds at the append's base version.
  for (const ChannelDelta& d : deltas.appends) {
    if (!base || !d.appended.is_array()) return lost();
    auto had = base->checkpoint.channel_versions.find(d.channel);
    auto value = base->checkpoint.channel_values.find(d.channel);
    if (had == base->checkpoint.channel_versions.end() || !same_version(*had, d.base_version) ||
        value == base->checkpoint.channel_values.end() || !value->is_array())
      return lost();
  }
  // Version maps: whole, or (versions_root) the changes to the entry's, which it then moves on.
  const bool changes = deltas.versions_root.has_value();
  if (changes && !base) return lost();
  json versions, seen;
  if (changes) {
    versions = std::move(base->checkpoint.channel_versions);
    seen = std::move(base->checkpoint.versions_seen);
    for (auto v = checkpoint.channel_versions.begin(); v != checkpoint.channel_versions.end(); ++v) {
      if (v->is_null()) versions.erase(v.key());
      else versions[v.key()] = *v;
    }
    for (auto s = checkpoint.versions_seen.begin(); s != checkpoint.versions_seen.end(); ++s) seen[s.key()] = *s;
  } else {
    versions = checkpoint.channel_versions;
    seen = checkpoint.versions_seen;
  }
  if (!versions.is_object() || !seen.is_object()) return lost();

  // Each channel's value at its version: new ones from this put, the others kept from the entry,
  // which held them at the same version.
  json values = json::object();
  for (auto v = versions.begin(); v != versions.end(); ++v) {
    const std::string& ch = v.key();
    auto changed = new_versions.find(ch);
    if (changed != new_versions.end()) {
      if (!same_version(*changed, *v)) return lost();
      auto append = std::find_if(deltas.appends.begin(), deltas.appends.end(),
                                 [&](const ChannelDelta& d) { return d.channel == ch; });
      if (append != deltas.appends.end()) {
        json grown = std::move(base->checkpoint.channel_values[ch]);  // checked above
        for (const json& element : append->appended) grown.push_back(element);
        values[ch] = std::move(grown);
      } else if (auto value = checkpoint.channel_values.find(ch); value != checkpoint.channel_values.end()) {
        values[ch] = *value;
      }
      continue;
    }
    // Not stored by this put: the entry's value, if the version is the entry's.
    if (!base) return lost();
    if (changes) {
      if (checkpoint.channel_versions.contains(ch)) return lost();  // a new version with no value stored
    } else {
      auto had = base->checkpoint.channel_versions.find(ch);
      if (had == base->checkpoint.channel_versions.end() || !same_version(*had, *v)) return lost();
    }
    auto value = base->checkpoint.channel_values.find(ch);
    if (value != base->checkpoint.channel_values.end()) values[ch] = std::move(*value);
  }

  CheckpointTuple t;
  t.config = CheckpointConfig{config.thread_id, config.checkpoint_ns, checkpoint.id};
  t.checkpoint.v = checkpoint.v;
  t.checkpoint.id = checkpoint.id;
  t.checkpoint.ts = checkpoint.ts;
  t.checkpoint.channel_values = std::move(values);
  t.checkpoint.channel_versions = std::move(versions);
  t.checkpoint.versions_seen = std::move(seen);
  t.checkpoint.updated_channels = checkpoint.updated_channels;
  if (checkpoint.extra.is_object())
    for (auto x = checkpoint.extra.begin(); x != checkpoint.extra.end(); ++x)
      if (!own_key(x.key())) t.checkpoint.extra[x.key()] = *x;
  t.metadata = metadata.is_null() ? json::object() : metadata;
  if (config.checkpoint_id) t.parent_config = CheckpointConfig{config.thread_id, config.checkpoint_ns, *config.checkpoint_id};
  e.tuple = std::move(t);
}

void LatestCheckpoints::wrote(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                              const std::string& task_id, const std::string& task_path) {
  Key key{config.thread_id, config.checkpoint_ns};
  touched(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  // Writes on an older checkpoint leave the newest as it was.
  if (!e.tuple || !config.checkpoint_id || *config.checkpoint_id != e.tuple->checkpoint.id) return;
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const auto& [channel, value] = writes[i];
    const int idx = write_index(channel, static_cast<int>(i));
    auto [at, added] = e.paths.try_emplace({task_id, idx}, task_path);
    if (!added) {
      if (idx >= 0) continue;  // other writes stay as first stored; special channels are upserted
      e.writes.erase({at->second, task_id, idx});
      at->second = task_path;
    }
    e.writes.insert_or_assign({task_path, task_id, idx}, StoredWrite{task_id, idx, channel, value, task_path, config.run_id});
  }
}

void LatestCheckpoints::forget(const std::string& thread, const std::string& ns) { drop(entries_.find({thread, ns})); }

void LatestCheckpoints::forget(const std::string& thread) {
  for (auto it = entries_.lower_bound({thread, std::string()}); it != entries_.end() && it->first.first == thread;)
    drop(it++);
}

void LatestCheckpoints::clear() {
  entries_.clear();
  used_.clear();
}

void LatestCheckpoints::begin_batch() {
  in_batch_ = true;
  batch_touched_.clear();
}

void LatestCheckpoints::end_batch(bool committed) {
  in_batch_ = false;
  if (!committed)
    for (const Key& key : batch_touched_) forget(key.first, key.second);
  batch_touched_.clear();
}

}  // namespace superstep::internal
