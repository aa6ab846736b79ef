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

std::optional<CheckpointTuple> LatestCheckpoints::find(const CheckpointConfig& config) {
  Entry* e = entry({config.thread_id, config.checkpoint_ns});
  if (!e) return std::nullopt;
  if (!e->tuple) return std::nullopt;
  if (config.checkpoint_id && *config.checkpoint_id != e->tuple->checkpoint.id) return std::nullopt;
  CheckpointTuple out = *e->tuple;
  if (e->metadata_text) out.metadata = parse_stored(*e->metadata_text, "metadata", config.thread_id, out.checkpoint.id);
  out.pending_writes.reserve(e->writes.size());
  for (const auto& [key, w] : e->writes) out.pending_writes.push_back(PendingWrite{w.task_id, w.channel, w.value});
  return out;
}

void LatestCheckpoints::filled(const std::string& thread, const std::string& ns,
                               const std::optional<CheckpointTuple>& newest) {
  Key key{thread, ns};
  // A thread with no checkpoint yet is not kept: most such threads are run once (a new thread
  // per request), and following their puts would cost every one of them for nothing; its next
  // read fills it. Pending writes read back lack their index and task path, which later writes
  // are ordered and merged by; a format-3 checkpoint reads its parent's writes: neither is kept.
  if (capacity_ == 0 || !newest || !newest->pending_writes.empty() || newest->checkpoint.v < 4) {
    drop(entries_.find(key));
    return;
  }
  Entry& e = make(key);
  e.tuple = newest;
  e.metadata_text.reset();
  e.writes.clear();
  e.paths.clear();
}

void LatestCheckpoints::put(const CheckpointConfig& config, const Checkpoint& checkpoint, std::string metadata_text,
                            const json& new_versions, const PutDeltas& deltas) {
  Key key{config.thread_id, config.checkpoint_ns};
  touched(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  auto lost = [&] { drop(it); };
  // The put must follow the entry: its parent is the entry's checkpoint, and its id sorts after
  // it, so it is the newest now.
  if (checkpoint.v < 4 || !new_versions.is_object() || !e.tuple || !config.checkpoint_id ||
      *config.checkpoint_id != e.tuple->checkpoint.id || checkpoint.id <= e.tuple->checkpoint.id)
    return lost();
  e.writes.clear();
  e.paths.clear();
  // The entry's tuple becomes the new checkpoint's in place (what a failure below leaves half
  // done is dropped with the entry).
  CheckpointTuple& t = *e.tuple;
  json& versions = t.checkpoint.channel_versions;
  json& seen = t.checkpoint.versions_seen;
  json& values = t.checkpoint.channel_values;

  // An append grows the value the entry holds at the append's base version.
  for (const ChannelDelta& d : deltas.appends) {
    if (!d.appended.is_array()) return lost();
    auto version = versions.find(d.channel);
    auto value = values.find(d.channel);
    if (version == versions.end() || !same_version(*version, d.base_version) || value == values.end() ||
        !value->is_array())
      return lost();
  }
  // Version maps: the changes to the entry's (versions_root), or whole; `before`: the entry's
  // versions, for the channels this put does not store.
  const bool changes = deltas.versions_root.has_value();
  json before;
  if (changes) {
    for (auto v = checkpoint.channel_versions.begin(); v != checkpoint.channel_versions.end(); ++v) {
      if (v->is_null()) versions.erase(v.key());
      else versions[v.key()] = *v;
    }
    for (auto n = checkpoint.versions_seen.begin(); n != checkpoint.versions_seen.end(); ++n) seen[n.key()] = *n;
  } else {
    before = std::move(versions);
    versions = checkpoint.channel_versions;
    seen = checkpoint.versions_seen;
  }
  if (!versions.is_object() || !seen.is_object() || !values.is_object()) return lost();

  // Each channel's value at its version: new ones from this put, the others kept from the entry,
  // which held them at the same version.
  for (auto v = versions.begin(); v != versions.end(); ++v) {
    const std::string& ch = v.key();
    auto changed = new_versions.find(ch);
    if (changed != new_versions.end()) {
      if (!same_version(*changed, *v)) return lost();
      auto append = std::find_if(deltas.appends.begin(), deltas.appends.end(),
                                 [&](const ChannelDelta& d) { return d.channel == ch; });
      if (append != deltas.appends.end()) {
        json& grown = values[ch];  // checked above
        for (const json& element : append->appended) grown.push_back(element);
      } else if (auto value = checkpoint.channel_values.find(ch); value != checkpoint.channel_values.end()) {
        values[ch] = *value;
      } else {
        values.erase(ch);
      }
      continue;
    }
    // Not stored by this put: the entry's value, if the version is the entry's.
    if (changes) {
      if (checkpoint.channel_versions.contains(ch)) return lost();  // a new version with no value stored
    } else {
      auto old = before.find(ch);
      if (old == before.end() || !same_version(*old, *v)) return lost();
    }
  }
  // Values of channels that have no version any more.
  for (auto value = values.begin(); value != values.end();) {
    if (versions.contains(value.key())) ++value;
    else value = values.erase(value);
  }

  t.config = CheckpointConfig{config.thread_id, config.checkpoint_ns, checkpoint.id};
  t.checkpoint.v = checkpoint.v;
  t.checkpoint.id = checkpoint.id;
  t.checkpoint.ts = checkpoint.ts;
  t.checkpoint.updated_channels = checkpoint.updated_channels;
  if (!t.checkpoint.extra.is_object() || !t.checkpoint.extra.empty()) t.checkpoint.extra = json::object();
  if (checkpoint.extra.is_object())
    for (auto x = checkpoint.extra.begin(); x != checkpoint.extra.end(); ++x)
      if (!own_key(x.key())) t.checkpoint.extra[x.key()] = *x;
  t.metadata = json();  // read from the text by find()
  e.metadata_text = std::move(metadata_text);
  if (config.checkpoint_id) t.parent_config = CheckpointConfig{config.thread_id, config.checkpoint_ns, *config.checkpoint_id};
  else t.parent_config.reset();
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
