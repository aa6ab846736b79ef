// Checkpoint data: JSON forms and the parts every saver shares.
#include "superstep/checkpoint/checkpoint.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "checkpoint/saver_common.hpp"
#include "checkpoint/stored_json.hpp"
#include "internal/json_text.hpp"
#include "superstep/errors.hpp"

namespace superstep {

json CheckpointConfig::to_json() const {
  json c = {{"thread_id", thread_id}, {"checkpoint_ns", checkpoint_ns}};
  if (checkpoint_id) c["checkpoint_id"] = *checkpoint_id;
  return json{{"configurable", std::move(c)}};
}

CheckpointConfig CheckpointConfig::from_json(const json& config) {
  if (!config.is_object() || !config.contains("configurable") || !config["configurable"].is_object())
    throw CheckpointError("config has no 'configurable' object");
  const json& c = config["configurable"];
  CheckpointConfig out;
  auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  if (!c.contains("thread_id") || c["thread_id"].is_null()) throw CheckpointError("config has no thread_id");
  out.thread_id = text(c["thread_id"]);
  if (c.contains("checkpoint_ns") && !c["checkpoint_ns"].is_null()) out.checkpoint_ns = text(c["checkpoint_ns"]);
  if (c.contains("checkpoint_id") && !c["checkpoint_id"].is_null()) out.checkpoint_id = text(c["checkpoint_id"]);
  return out;
}

json Checkpoint::to_json() const {
  json j = internal::stored_checkpoint(*this);
  j["channel_values"] = channel_values;
  return j;
}

Checkpoint Checkpoint::from_json(const json& j) { return from_json(json(j)); }

Checkpoint Checkpoint::from_json(json&& j) {
  if (!j.is_object()) throw CheckpointError("a checkpoint must be a JSON object, got " + j.dump().substr(0, 80));
  Checkpoint c;
  c.extra = json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    json& v = it.value();
    if (k == "v") c.v = v.is_number_integer() ? v.get<int>() : 4;
    else if (k == "id") c.id = v.is_string() ? v.get<std::string>() : v.dump();
    else if (k == "ts") c.ts = v.is_string() ? v.get<std::string>() : v.dump();
    else if (k == "channel_values") c.channel_values = v.is_object() ? std::move(v) : json::object();
    else if (k == "channel_versions") c.channel_versions = v.is_object() ? std::move(v) : json::object();
    else if (k == "versions_seen") c.versions_seen = v.is_object() ? std::move(v) : json::object();
    else if (k == "updated_channels") c.updated_channels = std::move(v);
    else c.extra[k] = std::move(v);
  }
  if (c.id.empty()) throw CheckpointError("a checkpoint needs an id");
  return c;
}

json CheckpointTuple::to_json() const {
  json writes = json::array();
  for (const auto& w : pending_writes) writes.push_back(json::array({w.task_id, w.channel, w.value}));
  return json{{"config", config.to_json()},
              {"checkpoint", checkpoint.to_json()},
              {"metadata", metadata},
              {"parent_config", parent_config ? parent_config->to_json() : json(nullptr)},
              {"pending_writes", std::move(writes)}};
}

std::size_t CheckpointSaver::delete_run_checkpoints(const std::string& thread_id, const std::string&) {
  throw CheckpointError("delete_run_checkpoints: this saver does not support it (thread '" + thread_id + "')");
}

CheckpointConfig CheckpointSaver::update_metadata(const CheckpointConfig& config, const json&) {
  throw CheckpointError("update_metadata: this saver does not support it (thread '" + config.thread_id + "')");
}

std::unique_ptr<ThreadClaim> CheckpointSaver::claim_thread(const std::string&, const std::string&) {
  return std::make_unique<ThreadClaim>();
}

CheckpointConfig CheckpointSaver::put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                                  const json& metadata, const json& new_versions,
                                                  const PutDeltas& deltas) {
  if (!deltas.empty())
    throw CheckpointError("put_with_deltas: this saver stores whole values only (stores_deltas() is false)");
  return put(config, checkpoint, metadata, new_versions);
}

namespace internal {

std::string version_text(const json& version) {
  if (version.is_number_unsigned()) return std::to_string(version.get<std::uint64_t>());
  if (version.is_number_integer()) return std::to_string(version.get<std::int64_t>());
  return version.dump();
}

json parse_stored(std::string_view text, const std::string& what, const std::string& thread, const std::string& id) {
  // Most stored values and writes of a run are null or small integers: no parser for those.
  if (text == "null") return json(nullptr);
  if (!text.empty() && text.size() < 18 && (text[0] != '0' || text.size() == 1)) {
    uint64_t n = 0;  // unsigned, as json::parse reads a non-negative integer
    bool digits = true;
    for (char ch : text) {
      if (ch < '0' || ch > '9') {
        digits = false;
        break;
      }
      n = n * 10 + static_cast<uint64_t>(ch - '0');
    }
    if (digits) return json(n);
  }
  if (std::optional<json> read = read_stored_json(text)) return std::move(*read);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    throw CheckpointError("thread '" + thread + "', checkpoint '" + id + "': stored " + what +
                          " is corrupt or truncated (" + e.what() + ")");
  }
}

std::optional<json> BlobResolver::resolve(const std::string& channel, const std::string& version) {
  std::vector<std::pair<std::string, json>> chain;  // newest first: version, appended elements
  std::unordered_set<std::string> on_chain;           // its versions, to find a loop in O(1)
  std::string v = version;
  json base;
  for (;;) {
    if (auto hit = known_.find(std::tie(channel, v)); hit != known_.end()) {
      if (!hit->second.value) {  // known to be missing
        if (chain.empty()) return std::nullopt;
        throw CheckpointError(where_ + ": stored value of channel '" + channel + "' at version " + chain.back().first +
                              " is an append to version " + v + ", which is missing");
      }
      const json& full = *hit->second.value;
      if (!full.is_array() || hit->second.length == full.size()) base = full;
      else base = json(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(hit->second.length));
      break;
    }
    std::optional<StoredBlob> blob = fetch_(channel, v);
    if (!blob) {
      known_.emplace(std::tuple{channel, v}, Known{nullptr, 0});
      if (chain.empty()) return std::nullopt;
      throw CheckpointError(where_ + ": stored value of channel '" + channel + "' at version " + chain.back().first +
                            " is an append to version " + v + ", which is missing");
    }
    if (!blob->delta_base) {
      base = std::move(blob->value);
      break;
    }
    if (!blob->value.is_array())
      throw CheckpointError(where_ + ": stored append of channel '" + channel + "' at version " + v + " is not a list");
    std::string next = std::move(*blob->delta_base);
    on_chain.insert(v);
    if (on_chain.count(next))
      throw CheckpointError(where_ + ": stored appends of channel '" + channel + "' loop back to version " + next);
    chain.emplace_back(v, std::move(blob->value));
    v = std::move(next);
  }
  if (chain.empty()) {
    if (!known_.count(std::tie(channel, v)))
      known_.emplace(std::tuple{channel, v}, Known{std::make_shared<const json>(base), base.is_array() ? base.size() : 0});
    return base;
  }
  if (!base.is_array())
    throw CheckpointError(where_ + ": stored append of channel '" + channel + "' extends version " + v +
                          ", which is not a list");
  // Every version on the chain is a prefix of the newest: remember each one's length.
  std::vector<std::pair<std::string, std::size_t>> lengths{{v, base.size()}};
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    for (json& e : it->second) base.push_back(std::move(e));
    lengths.emplace_back(it->first, base.size());
  }
  auto shared = std::make_shared<const json>(base);
  for (const auto& [ver, len] : lengths) known_.insert_or_assign(std::tuple{channel, ver}, Known{shared, len});
  return base;
}

int write_index(const std::string& channel, int i) {
  if (channel == kErrorChannel) return -1;
  if (channel == kScheduledChannel) return -2;
  if (channel == kInterruptChannel) return -3;
  if (channel == kResumeChannel) return -4;
  return i;
}

void sort_writes(std::vector<StoredWrite>& writes) {
  std::stable_sort(writes.begin(), writes.end(), [](const StoredWrite& a, const StoredWrite& b) {
    return std::tie(a.task_path, a.task_id, a.idx) < std::tie(b.task_path, b.task_id, b.idx);
  });
}

bool matches_filter(const json& metadata, const json& filter) {
  if (!filter.is_object()) return true;
  for (auto it = filter.begin(); it != filter.end(); ++it) {
    if (!metadata.is_object()) return false;
    auto m = metadata.find(it.key());
    if (m == metadata.end() || *m != it.value()) return false;
  }
  return true;
}

bool matches_query(const CheckpointQuery& q, const std::string& thread, const std::string& ns, const std::string& id) {
  if (q.thread_id && *q.thread_id != thread) return false;
  if (q.checkpoint_ns && *q.checkpoint_ns != ns) return false;
  if (q.checkpoint_id && *q.checkpoint_id != id) return false;
  if (q.before && !(id < *q.before)) return false;
  return true;
}

json stored_checkpoint(const Checkpoint& checkpoint) {
  json j = checkpoint.extra.is_object() ? checkpoint.extra : json::object();
  j["v"] = checkpoint.v;
  j["id"] = checkpoint.id;
  j["ts"] = checkpoint.ts;
  j["channel_versions"] = checkpoint.channel_versions;
  j["versions_seen"] = checkpoint.versions_seen;
  if (!checkpoint.updated_channels.is_null()) j["updated_channels"] = checkpoint.updated_channels;
  j.erase("channel_values");
  return j;
}

json stored_checkpoint(const Checkpoint& checkpoint, const std::optional<std::string>& parent,
                       const PutDeltas& deltas) {
  json j = stored_checkpoint(checkpoint);
  if (deltas.versions_root) {
    j[kVersionsFrom] = *parent;
    j[kVersionsRoot] = *deltas.versions_root;
  }
  return j;
}

std::string dump_stored_checkpoint(const Checkpoint& checkpoint, const std::optional<std::string>& parent,
                                   const PutDeltas& deltas) {
  // The text of stored_checkpoint(...).dump(), without copying the maps into a new object:
  // the same keys, in nlohmann's (sorted) order.
  std::vector<std::pair<std::string_view, const json*>> fields;
  const json v = checkpoint.v, id = checkpoint.id, ts = checkpoint.ts;
  json from, root;
  fields.emplace_back("v", &v);
  fields.emplace_back("id", &id);
  fields.emplace_back("ts", &ts);
  fields.emplace_back("channel_versions", &checkpoint.channel_versions);
  fields.emplace_back("versions_seen", &checkpoint.versions_seen);
  if (!checkpoint.updated_channels.is_null()) fields.emplace_back("updated_channels", &checkpoint.updated_channels);
  if (deltas.versions_root) {
    from = *parent;
    root = *deltas.versions_root;
    fields.emplace_back(kVersionsFrom, &from);
    fields.emplace_back(kVersionsRoot, &root);
  }
  const std::size_t own = fields.size();
  if (checkpoint.extra.is_object())
    for (auto it = checkpoint.extra.begin(); it != checkpoint.extra.end(); ++it) {
      std::string_view key = it.key();
      if (key == "channel_values") continue;
      bool replaced = false;
      for (std::size_t i = 0; i < own && !replaced; ++i) replaced = fields[i].first == key;
      if (!replaced) fields.emplace_back(key, &it.value());
    }
  std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  out.reserve(512);
  out += '{';
  for (const auto& [key, value] : fields) {
    if (out.size() > 1) out += ',';
    append_json_string(out, key);
    out += ':';
    append_json(out, *value);
  }
  out += '}';
  return out;
}

void check_deltas(const CheckpointConfig& config, const json& new_versions, const PutDeltas& deltas) {
  for (const ChannelDelta& d : deltas.appends)
    if (!new_versions.is_object() || !new_versions.contains(d.channel))
      throw CheckpointError("put: the append to channel '" + d.channel + "' has no new version (thread '" +
                            config.thread_id + "')");
  if (deltas.versions_root && !config.checkpoint_id)
    throw CheckpointError("put: version maps stored as changes need the parent checkpoint_id (thread '" +
                          config.thread_id + "')");
}

std::shared_ptr<VersionResolver::Maps> VersionResolver::maps_of(const std::string& id, const json& stored) {
  static const json empty = json::object();
  auto object = [](const json& j, const char* key) -> const json& {
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? *it : empty;
  };
  // Walk back to a checkpoint with known or whole maps, then apply the changes forwards.
  std::vector<std::pair<std::string, json>> chain;  // newest first: (id, stored form marked as changes)
  std::shared_ptr<Maps> base;
  std::string at = id;
  json cur = stored;
  for (;;) {
    if (auto k = known_.find(at); k != known_.end()) {
      base = k->second;
      break;
    }
    auto from = cur.find(kVersionsFrom);
    if (from == cur.end()) {
      base = std::make_shared<Maps>(Maps{object(cur, "channel_versions"), object(cur, "versions_seen")});
      known_.emplace(at, base);
      break;
    }
    if (!from->is_string() || chain.size() > 1'000'000)
      throw CheckpointError("thread '" + thread_ + "', checkpoint '" + id + "': stored version chain is corrupt");
    std::string parent = from->get<std::string>();
    std::optional<json> fetched = fetch_(parent, cur.value(kVersionsRoot, parent));
    if (!fetched)
      throw CheckpointError("thread '" + thread_ + "', checkpoint '" + id + "': checkpoint '" + parent +
                            "', whose version maps it builds on, is missing");
    chain.emplace_back(std::exchange(at, std::move(parent)), std::exchange(cur, std::move(*fetched)));
  }
  for (auto link = chain.rbegin(); link != chain.rend(); ++link) {
    auto m = std::make_shared<Maps>(*base);
    const json& changed = object(link->second, "channel_versions");
    for (auto it = changed.begin(); it != changed.end(); ++it) {
      if (it->is_null()) m->versions.erase(it.key());
      else m->versions[it.key()] = *it;
    }
    const json& seen = object(link->second, "versions_seen");
    for (auto it = seen.begin(); it != seen.end(); ++it) m->seen[it.key()] = *it;
    base = m;
    known_.emplace(link->first, base);
  }
  return base;
}

void VersionResolver::resolve(const std::string& id, json& stored) {
  if (!stored.is_object() || !stored.contains(kVersionsFrom)) return;
  std::shared_ptr<Maps> m = maps_of(id, stored);
  // A history resolves the newest first, which builds every older checkpoint's maps; each is
  // then wanted once more, by its own tuple, so it is handed over rather than copied.
  known_.erase(id);
  if (m.use_count() == 1) {
    stored["channel_versions"] = std::move(m->versions);  // no one else holds it
    stored["versions_seen"] = std::move(m->seen);
  } else {
    stored["channel_versions"] = m->versions;
    stored["versions_seen"] = m->seen;
  }
  stored.erase(kVersionsFrom);
  stored.erase(kVersionsRoot);
}

bool keeps_changes(const CheckpointQuery& query, const json& stored, const std::string* next) {
  if (!query.as_changes || !next || !stored.is_object()) return false;
  auto from = stored.find(kVersionsFrom);
  return from != stored.end() && from->is_string() && from->get_ref<const std::string&>() == *next;
}

void parse_on_two_threads(std::size_t n, const std::function<void(std::size_t from, std::size_t to)>& parse,
                          const std::function<void()>& meanwhile) {
  constexpr std::size_t kChunk = 16;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  // Takes chunks until none is left or a chunk failed somewhere.
  auto take_chunks = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t from = next.fetch_add(kChunk);
      if (from >= n) return;
      try {
        parse(from, std::min(n, from + kChunk));
      } catch (...) {
        failed = true;
        throw;
      }
    }
  };
  std::exception_ptr helper_failed;
  std::thread helper;
  if (n >= kParallelParse)
    helper = std::thread([&] {
      try {
        take_chunks();
      } catch (...) {
        helper_failed = std::current_exception();
      }
    });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{helper};
  if (meanwhile) {
    try {
      meanwhile();
    } catch (...) {
      failed = true;
      throw;
    }
  }
  take_chunks();
  if (helper.joinable()) helper.join();
  if (helper_failed) std::rethrow_exception(helper_failed);
}

void require_thread(const CheckpointConfig& config, const char* operation) {
  if (config.thread_id.empty()) throw CheckpointError(std::string(operation) + ": config has no thread_id");
}

void check_metadata_patch(const CheckpointConfig& config, const json& patch) {
  require_thread(config, "update_metadata");
  if (!patch.is_object())
    throw CheckpointError("update_metadata: thread '" + config.thread_id + "': metadata must be an object, got " +
                          patch.dump().substr(0, 120));
}

json merge_metadata(json stored, const json& patch) {
  if (!stored.is_object()) stored = json::object();
  for (const auto& [k, v] : patch.items()) {
    if (v.is_null()) stored.erase(k);
    else stored[k] = v;
  }
  return stored;
}

RunRollback plan_run_rollback(const std::string& thread, const std::string& run_id, const std::vector<CheckpointRow>& rows) {
  RunRollback out;
  std::set<std::pair<std::string, std::string>> gone;
  for (const CheckpointRow& r : rows)
    if (r.run_id == run_id) {
      gone.insert({r.ns, r.id});
      out.deleted.emplace_back(r.ns, r.id);
      out.newest_left.emplace(r.ns, std::nullopt);
    }
  for (const CheckpointRow& r : rows) {
    if (gone.contains({r.ns, r.id})) continue;
    if (r.parent && gone.contains({r.ns, *r.parent}))
      throw CheckpointError("delete_run_checkpoints: thread '" + thread + "': checkpoint '" + r.id + "' (run '" +
                            r.run_id + "') continues from checkpoint '" + *r.parent + "' of run '" + run_id +
                            "'; roll back the later run first");
    auto left = out.newest_left.find(r.ns);
    if (left != out.newest_left.end() && (!left->second || r.id > *left->second)) left->second = r.id;
  }
  return out;
}

std::uint64_t max_channel_version(const CheckpointTuple& tuple) {
  std::uint64_t out = 0;
  for (const json& v : tuple.checkpoint.channel_versions) {
    if (v.is_number_unsigned()) out = std::max(out, v.get<std::uint64_t>());
    else if (v.is_number_integer()) out = std::max<std::uint64_t>(out, static_cast<std::uint64_t>(std::max<std::int64_t>(0, v.get<std::int64_t>())));
    else if (v.is_string()) out = std::max<std::uint64_t>(out, std::strtoull(v.get_ref<const std::string&>().c_str(), nullptr, 10));
  }
  return out;
}

void no_checkpoint_to_update(const CheckpointConfig& config) {
  throw CheckpointError("update_metadata: thread '" + config.thread_id + "'" +
                        (config.checkpoint_ns.empty() ? "" : " (namespace '" + config.checkpoint_ns + "')") +
                        (config.checkpoint_id ? " has no checkpoint '" + *config.checkpoint_id + "'" : " has no checkpoint"));
}

CheckpointTuple make_tuple(const std::string& thread, const std::string& ns, const std::string& id,
                           json stored, json metadata, const std::optional<std::string>& parent,
                           BlobResolver& values, std::vector<StoredWrite> writes,
                           const std::function<std::vector<StoredWrite>()>& parent_writes) {
  CheckpointTuple t;
  try {
    t.checkpoint = Checkpoint::from_json(std::move(stored));
  } catch (const CheckpointError& e) {
    throw CheckpointError("thread '" + thread + "', checkpoint '" + id + "': stored checkpoint is unreadable: " + e.what());
  }
  t.checkpoint.channel_values = json::object();
  if (t.checkpoint.extra.contains(kVersionsFrom)) {
    // Left as changes (CheckpointQuery::as_changes): the changed channels' values as stored.
    json appended = json::object();
    for (auto it = t.checkpoint.channel_versions.begin(); it != t.checkpoint.channel_versions.end(); ++it) {
      if (it->is_null()) continue;  // a removal
      std::optional<StoredBlob> b = values.stored(it.key(), version_text(*it));
      if (!b) continue;
      if (!b->delta_base) {
        t.checkpoint.channel_values[it.key()] = std::move(b->value);
        continue;
      }
      std::optional<json> base = read_stored_json(*b->delta_base);
      if (!base) {
        base = json::parse(*b->delta_base, nullptr, false);
        if (base->is_discarded()) base.reset();
      }
      if (!base || !b->value.is_array())
        throw CheckpointError("thread '" + thread + "', checkpoint '" + id + "': stored append of channel '" + it.key() +
                              "' is corrupt");
      json& entry = appended[it.key()];
      entry["base"] = std::move(*base);
      entry["elements"] = std::move(b->value);
    }
    if (!appended.empty()) t.checkpoint.extra[kValuesAppended] = std::move(appended);
  } else {
    for (auto it = t.checkpoint.channel_versions.begin(); it != t.checkpoint.channel_versions.end(); ++it)
      if (auto v = values.resolve(it.key(), version_text(*it))) t.checkpoint.channel_values[it.key()] = std::move(*v);
  }
  if (t.checkpoint.v < 4 && parent) {
    // Format 3 kept pending Sends as __pregel_tasks writes on the parent checkpoint.
    json sends = json::array();
    auto pw = parent_writes();
    sort_writes(pw);
    for (auto& w : pw)
      if (w.channel == kTasksChannel) sends.push_back(std::move(w.value));
    t.checkpoint.channel_values[kTasksChannel] = std::move(sends);
    json max_version = 1;
    bool any = false;
    for (auto it = t.checkpoint.channel_versions.begin(); it != t.checkpoint.channel_versions.end(); ++it)
      if (!any || it.value() > max_version) {
        max_version = it.value();
        any = true;
      }
    t.checkpoint.channel_versions[kTasksChannel] = max_version;
  }
  t.config = CheckpointConfig{thread, ns, id};
  t.metadata = metadata.is_null() ? json::object() : std::move(metadata);
  if (parent) t.parent_config = CheckpointConfig{thread, ns, *parent};
  sort_writes(writes);
  for (auto& w : writes) t.pending_writes.push_back(PendingWrite{std::move(w.task_id), std::move(w.channel), std::move(w.value)});
  return t;
}

}  // namespace internal
}  // namespace superstep
