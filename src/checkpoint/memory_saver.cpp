// InMemorySaver: the storage contract over std::maps (ordered, so ids sort as strings).
#include "superstep/checkpoint/memory_saver.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <ranges>
#include <tuple>

#include "checkpoint/saver_common.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::StoredWrite;

struct InMemorySaver::Data {
  struct Saved {
    json checkpoint;  // without channel_values
    json metadata;
    std::optional<std::string> parent;
  };
  using ThreadNs = std::pair<std::string, std::string>;
  // Per thread and namespace (found once per read), then found by std::tie of the parts
  // (std::less<>): no key is built for a lookup.
  using Pair = std::tuple<std::string, std::string>;
  using Blobs = std::map<Pair, internal::StoredBlob, std::less<>>;                           // channel, version
  using Writes = std::map<std::string, std::map<std::pair<std::string, int>, StoredWrite>>;  // checkpoint id
  std::map<ThreadNs, std::map<std::string, Saved>> checkpoints;
  std::map<Pair, Blobs, std::less<>> blobs;  // thread, namespace
  std::map<Pair, Writes, std::less<>> writes;

  template <class Map>
  static const typename Map::mapped_type* find(const Map& m, const std::string& t, const std::string& ns) {
    auto it = m.find(std::tie(t, ns));
    return it == m.end() ? nullptr : &it->second;
  }
  std::vector<StoredWrite> writes_of(const std::string& t, const std::string& ns, const std::string& id) const {
    std::vector<StoredWrite> out;
    if (const Writes* of = find(writes, t, ns))
      if (auto it = of->find(id); it != of->end())
        for (const auto& [k, w] : it->second) out.push_back(w);
    return out;
  }
  /// Reads stored values of thread `t` / namespace `ns`, following appends.
  internal::BlobResolver resolver(const std::string& t, const std::string& ns) const {
    return internal::BlobResolver(
        [of = find(blobs, t, ns)](const std::string& ch, const std::string& version) -> std::optional<internal::StoredBlob> {
          if (!of) return std::nullopt;
          auto b = of->find(std::tie(ch, version));
          if (b == of->end()) return std::nullopt;
          return b->second;
        },
        "thread '" + t + "'");
  }
  /// Rebuilds version maps stored as changes, from the checkpoints of thread `t` / namespace `ns`.
  internal::VersionResolver maps(const std::string& t, const std::string& ns) const {
    return internal::VersionResolver(
        [this, t, ns](const std::string& id, const std::string&) -> std::optional<json> {
          auto by_id = checkpoints.find({t, ns});
          if (by_id == checkpoints.end()) return std::nullopt;
          auto c = by_id->second.find(id);
          if (c == by_id->second.end()) return std::nullopt;
          return c->second.checkpoint;
        },
        t);
  }
  /// `query`/`next`: a list() read, where `next` is the id of the tuple listed after this one.
  CheckpointTuple load(const std::string& t, const std::string& ns, const std::string& id, const Saved& s,
                       internal::BlobResolver& values, internal::VersionResolver& maps,
                       const CheckpointQuery* query = nullptr, const std::string* next = nullptr) const {
    values.set_where("thread '" + t + "', checkpoint '" + id + "'");
    json stored = s.checkpoint;
    if (!query || !internal::keeps_changes(*query, stored, next)) maps.resolve(id, stored);
    return internal::make_tuple(
        t, ns, id, std::move(stored), s.metadata, s.parent,
        values, writes_of(t, ns, id), [&] { return writes_of(t, ns, *s.parent); });
  }
  template <class Map, class Pred>
  static void erase_if(Map& m, Pred pred) {
    for (auto it = m.begin(); it != m.end();) it = pred(it->first) ? m.erase(it) : std::next(it);
  }
};

InMemorySaver::InMemorySaver() : data_(std::make_unique<Data>()) {}
InMemorySaver::~InMemorySaver() = default;

CheckpointConfig InMemorySaver::put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                                const json& metadata, const json& new_versions,
                                                const PutDeltas& deltas) {
  internal::require_thread(config, "put");
  internal::check_deltas(config, new_versions, deltas);
  std::lock_guard lock(mutex_);
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  Data::Blobs& blobs = data_->blobs[{t, ns}];
  if (new_versions.is_object())
    for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {
      auto v = checkpoint.channel_values.find(it.key());
      if (v != checkpoint.channel_values.end()) blobs[{it.key(), internal::version_text(it.value())}] = {*v, std::nullopt};
    }
  for (const ChannelDelta& d : deltas.appends)
    blobs[{d.channel, internal::version_text(new_versions[d.channel])}] = {d.appended, internal::version_text(d.base_version)};
  data_->checkpoints[{t, ns}][checkpoint.id] =
      Data::Saved{internal::stored_checkpoint(checkpoint, config.checkpoint_id, deltas), metadata, config.checkpoint_id};
  return CheckpointConfig{t, ns, checkpoint.id};
}

void InMemorySaver::put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                               const std::string& task_id, const std::string& task_path) {
  internal::require_thread(config, "put_writes");
  if (!config.checkpoint_id) throw CheckpointError("put_writes: config has no checkpoint_id (thread '" + config.thread_id + "')");
  std::lock_guard lock(mutex_);
  auto& m = data_->writes[{config.thread_id, config.checkpoint_ns}][*config.checkpoint_id];
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const auto& [channel, value] = writes[i];
    int idx = internal::write_index(channel, static_cast<int>(i));
    std::pair<std::string, int> key{task_id, idx};
    if (idx >= 0 && m.count(key)) continue;  // regular writes: the first one saved stays
    m[key] = StoredWrite{task_id, idx, channel, value, task_path, config.run_id};
  }
}

std::optional<CheckpointTuple> InMemorySaver::get_tuple(const CheckpointConfig& config) {
  std::lock_guard lock(mutex_);
  auto it = data_->checkpoints.find({config.thread_id, config.checkpoint_ns});
  if (it == data_->checkpoints.end() || it->second.empty()) return std::nullopt;
  auto values = data_->resolver(config.thread_id, config.checkpoint_ns);
  auto maps = data_->maps(config.thread_id, config.checkpoint_ns);
  if (config.checkpoint_id) {
    auto c = it->second.find(*config.checkpoint_id);
    if (c == it->second.end()) return std::nullopt;
    return data_->load(config.thread_id, config.checkpoint_ns, c->first, c->second, values, maps);
  }
  auto last = std::prev(it->second.end());
  return data_->load(config.thread_id, config.checkpoint_ns, last->first, last->second, values, maps);
}

std::vector<CheckpointTuple> InMemorySaver::list(const CheckpointQuery& query) {
  std::lock_guard lock(mutex_);
  std::vector<CheckpointTuple> out;
  std::size_t total = 0;
  // Only the query's thread (and namespace) when it names one, not every thread stored.
  auto first = data_->checkpoints.begin(), last = data_->checkpoints.end();
  if (query.thread_id) {
    const std::string& t = *query.thread_id;
    first = last = data_->checkpoints.lower_bound({t, query.checkpoint_ns.value_or("")});
    while (last != data_->checkpoints.end() && last->first.first == t &&
           (!query.checkpoint_ns || last->first.second == *query.checkpoint_ns))
      ++last;
  }
  for (auto it = first; it != last; ++it) {
    const auto& [key, by_id] = *it;
    // The matching checkpoints of this thread and namespace first: each tuple is loaded knowing
    // the one listed after it (CheckpointQuery::as_changes).
    std::vector<std::map<std::string, Data::Saved>::const_iterator> picked;
    auto from = by_id.begin(), to = by_id.end();
    if (query.checkpoint_id) from = by_id.lower_bound(*query.checkpoint_id), to = by_id.upper_bound(*query.checkpoint_id);
    else if (query.before) to = by_id.lower_bound(*query.before);
    // Newest first, stopping at the limit: a page costs a page, wherever it lies in the thread.
    const std::size_t wanted = query.limit ? *query.limit - std::min(*query.limit, total) : by_id.size();
    for (auto it = to; it != from && picked.size() < wanted;) {
      --it;
      if (!internal::matches_query(query, key.first, key.second, it->first)) continue;
      if (!internal::matches_filter(it->second.metadata, query.filter)) continue;
      picked.push_back(it);
    }
    total += picked.size();
    if (picked.empty()) continue;
    auto values = data_->resolver(key.first, key.second);
    auto maps = data_->maps(key.first, key.second);
    for (std::size_t i = 0; i < picked.size(); ++i) {
      const std::string* next = i + 1 < picked.size() ? &picked[i + 1]->first : nullptr;
      out.push_back(data_->load(key.first, key.second, picked[i]->first, picked[i]->second, values, maps, &query, next));
    }
  }
  return out;
}

CheckpointConfig InMemorySaver::update_metadata(const CheckpointConfig& config, const json& metadata) {
  internal::check_metadata_patch(config, metadata);
  std::lock_guard lock(mutex_);
  auto of = data_->checkpoints.find({config.thread_id, config.checkpoint_ns});
  if (of == data_->checkpoints.end() || of->second.empty()) internal::no_checkpoint_to_update(config);
  auto it = config.checkpoint_id ? of->second.find(*config.checkpoint_id) : std::prev(of->second.end());
  if (it == of->second.end()) internal::no_checkpoint_to_update(config);
  it->second.metadata = internal::merge_metadata(std::move(it->second.metadata), metadata);
  return CheckpointConfig{config.thread_id, config.checkpoint_ns, it->first};
}

std::size_t InMemorySaver::delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) {
  internal::RunRollback plan;
  {
    std::lock_guard lock(mutex_);
    std::vector<internal::CheckpointRow> rows;
    for (const auto& [key, saved] : data_->checkpoints)
      if (key.first == thread_id)
        for (const auto& [id, cp] : saved)
          rows.push_back({key.second, id, cp.parent,
                          cp.metadata.is_object() && cp.metadata.contains("run_id") && cp.metadata["run_id"].is_string()
                              ? cp.metadata["run_id"].get<std::string>()
                              : std::string()});  // (update_metadata may have stored anything there)
    plan = internal::plan_run_rollback(thread_id, run_id, rows);
    // What the run wrote on checkpoints it did not make (a resume value, its tasks' writes).
    for (auto& [key, by_checkpoint] : data_->writes)
      if (std::get<0>(key) == thread_id)
        for (auto& [id, writes] : by_checkpoint) std::erase_if(writes, [&](const auto& w) { return w.second.run_id == run_id; });
  }
  if (plan.deleted.empty()) return 0;
  // The highest version each namespace keeps (read whole, outside the lock get_tuple takes).
  std::map<std::string, std::uint64_t> keep;
  for (const auto& [ns, newest] : plan.newest_left) {
    std::optional<CheckpointTuple> t = newest ? get_tuple({thread_id, ns, *newest}) : std::nullopt;
    keep[ns] = t ? internal::max_channel_version(*t) : 0;
  }
  std::lock_guard lock(mutex_);
  for (const auto& [ns, id] : plan.deleted) {
    data_->checkpoints[{thread_id, ns}].erase(id);
    if (auto w = data_->writes.find(std::tie(thread_id, ns)); w != data_->writes.end()) w->second.erase(id);
  }
  for (const auto& kept : keep) {
    const auto& ns = kept.first;
    const auto highest = kept.second;  // a plain variable: the lambda below captures it
    if (auto cps = data_->checkpoints.find({thread_id, ns}); cps != data_->checkpoints.end() && cps->second.empty())
      data_->checkpoints.erase(cps);
    auto of = data_->blobs.find(std::tie(thread_id, ns));
    if (of == data_->blobs.end()) continue;
    std::erase_if(of->second, [&](const auto& blob) {
      const std::string& version = std::get<1>(blob.first);
      return std::strtoull(version.c_str(), nullptr, 10) > highest;
    });
  }
  return plan.deleted.size();
}

void InMemorySaver::delete_thread(const std::string& thread_id) {
  std::lock_guard lock(mutex_);
  Data::erase_if(data_->checkpoints, [&](const auto& k) { return k.first == thread_id; });
  Data::erase_if(data_->blobs, [&](const auto& k) { return std::get<0>(k) == thread_id; });
  Data::erase_if(data_->writes, [&](const auto& k) { return std::get<0>(k) == thread_id; });
}

void InMemorySaver::copy_thread(const std::string& from, const std::string& to) {
  delete_thread(to);
  std::lock_guard lock(mutex_);
  std::vector<std::pair<Data::ThreadNs, std::map<std::string, Data::Saved>>> cps;
  for (const auto& [k, v] : data_->checkpoints)
    if (k.first == from) cps.emplace_back(Data::ThreadNs{to, k.second}, v);
  for (auto& [k, v] : cps) data_->checkpoints[k] = std::move(v);
  std::vector<std::pair<Data::Pair, Data::Blobs>> blobs;
  for (const auto& [k, v] : data_->blobs)
    if (std::get<0>(k) == from) blobs.emplace_back(Data::Pair{to, std::get<1>(k)}, v);
  for (auto& [k, v] : blobs) data_->blobs[k] = std::move(v);
  std::vector<std::pair<Data::Pair, Data::Writes>> ws;
  for (const auto& [k, v] : data_->writes)
    if (std::get<0>(k) == from) ws.emplace_back(Data::Pair{to, std::get<1>(k)}, v);
  for (auto& [k, v] : ws) data_->writes[k] = std::move(v);
}

void InMemorySaver::prune(const std::vector<std::string>& thread_ids, bool keep_latest) {
  for (const auto& t : thread_ids) {
    if (!keep_latest) {
      delete_thread(t);
      continue;
    }
    std::lock_guard lock(mutex_);
    for (auto& [k, by_id] : data_->checkpoints) {
      if (k.first != t || by_id.size() < 2) continue;
      const std::string keep = std::prev(by_id.end())->first;
      Data::Saved kept = by_id[keep];
      kept.parent.reset();
      data_->maps(t, k.second).resolve(keep, kept.checkpoint);  // its parents go: store whole maps
      json versions = kept.checkpoint.value("channel_versions", json::object());
      by_id.clear();
      by_id[keep] = std::move(kept);
      const std::string ns = k.second;
      // The kept values are stored whole, so the appends they were built from can go.
      auto values = data_->resolver(t, ns);
      std::vector<std::pair<std::string, json>> whole;
      for (auto v = versions.begin(); v != versions.end(); ++v)
        if (auto value = values.resolve(v.key(), v.value().dump())) whole.emplace_back(v.key(), std::move(*value));
      Data::Blobs& blobs = data_->blobs[{t, ns}];
      for (auto& [ch, value] : whole) blobs[{ch, internal::version_text(versions[ch])}] = {std::move(value), std::nullopt};
      Data::erase_if(blobs, [&](const auto& b) {
        auto v = versions.find(std::get<0>(b));
        return v == versions.end() || v->dump() != std::get<1>(b);
      });
      Data::erase_if(data_->writes[{t, ns}], [&](const std::string& id) { return id != keep; });
    }
  }
}

}  // namespace superstep
