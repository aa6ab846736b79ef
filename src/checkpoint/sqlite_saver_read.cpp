// SqliteSaver, reading back: get_tuple (from the memory of newest checkpoints when it has the
// thread) and list, with the values, version maps and writes a tuple is built from
// (docs/checkpoint_schema.md says where each lives).
#include <map>
#include <set>

#include "checkpoint/sqlite_saver_impl.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::StoredWrite;
using internal::parse_stored;
using internal::sqlite::Stmt;

namespace {

/// The value of `channel` in a checkpoint_version_values row ({channel: [value]}; see
/// docs/checkpoint_schema.md), or nullopt.
std::optional<json> version_value_entry(const json& row, const std::string& channel) {
  auto it = row.find(channel);
  if (it == row.end() || !it->is_array() || it->size() != 1) return std::nullopt;
  return (*it)[0];
}

}  // namespace

std::vector<StoredWrite> SqliteSaver::Impl::writes_of(const std::string& t, const std::string& ns, const std::string& id) {
  Stmt s(db, stmts,
         "SELECT task_id, idx, channel, value, task_path FROM checkpoint_writes "
         "WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3");
  s.bind(1, t).bind(2, ns).bind(3, id);
  std::vector<StoredWrite> out;
  while (s.step())
    out.push_back(StoredWrite{s.text(0), s.integer(1), s.text(2), parse_stored(s.view(3), "pending write", t, id),
                              s.text(4)});
  return out;
}

std::unordered_map<std::string, std::vector<StoredWrite>> SqliteSaver::Impl::writes_of_all(
  const std::string& t, const std::string& ns, const std::unordered_map<std::string, std::string>& ids) {
  Stmt s(db, stmts,
         "SELECT checkpoint_id, task_id, idx, channel, value, task_path FROM checkpoint_writes "
         "WHERE thread_id = ?1 AND checkpoint_ns = ?2");
  s.bind(1, t).bind(2, ns);
  std::unordered_map<std::string, std::vector<StoredWrite>> out;
  while (s.step()) {
    std::string id = s.text(0);
    if (!ids.count(id)) continue;
    json value = parse_stored(s.view(4), "pending write", t, id);
    out[id].push_back(StoredWrite{s.text(1), s.integer(2), s.text(3), std::move(value), s.text(5)});
  }
  return out;
}

internal::BlobResolver SqliteSaver::Impl::resolver(const std::string& t, const std::string& ns, std::string* id, bool all) {
  using Rows = std::map<std::pair<std::string, std::string>, std::pair<std::string, std::optional<std::string>>>;
  struct Found {
    Rows rows;                                  // (channel, version) -> checkpoint_blobs row
    std::set<std::string> whole_channel;        // channels whose blobs are all in `rows`
    std::unordered_map<std::string, std::string> steps;  // version -> checkpoint_version_values text
    std::unordered_map<std::string, json> parsed_steps;  // version -> that text parsed
    bool all_steps = false;                     // `steps` holds every row of the thread
  };
  auto found = std::make_shared<Found>();
  if (all) {
    Stmt s(db, stmts,
           "SELECT channel, version, value, delta_base FROM checkpoint_blobs WHERE thread_id = ?1 AND checkpoint_ns = ?2");
    s.bind(1, t).bind(2, ns);
    while (s.step()) {
      std::optional<std::string> base;
      if (!s.is_null(3)) base = s.text(3);
      found->rows.emplace(std::pair{s.text(0), s.text(1)}, std::pair{s.text(2), std::move(base)});
    }
    Stmt steps(db, stmts,
               "SELECT version, channel_values FROM checkpoint_version_values WHERE thread_id = ?1 AND checkpoint_ns = ?2");
    steps.bind(1, t).bind(2, ns);
    while (steps.step()) found->steps.emplace(steps.text(0), steps.text(1));
    found->all_steps = true;
  }
  // The value of `ch` in the row of `version` (stored with the other whole values of its step).
  auto from_step = [this, t, ns, id, found](const std::string& ch,
                                            const std::string& version) -> std::optional<internal::StoredBlob> {
    auto parsed = found->parsed_steps.find(version);
    if (parsed == found->parsed_steps.end()) {
      auto text = found->steps.find(version);
      if (text == found->steps.end()) {
        if (found->all_steps) return std::nullopt;
        Stmt s(db, stmts,
               "SELECT channel_values FROM checkpoint_version_values WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND "
               "version = ?3");
        s.bind(1, t).bind(2, ns).bind(3, version);
        if (!s.step()) return std::nullopt;
        text = found->steps.emplace(version, s.text(0)).first;
      }
      parsed = found->parsed_steps.emplace(version, parse_stored(text->second, "value of channel '" + ch + "' (in the row of version " + version + ")", t, *id)).first;
    }
    if (auto value = version_value_entry(parsed->second, ch)) return internal::StoredBlob{std::move(*value), std::nullopt};
    return std::nullopt;
  };
  return internal::BlobResolver(
      [this, t, ns, id, found, all, from_step](const std::string& ch,
                                               const std::string& version) -> std::optional<internal::StoredBlob> {
        // checkpoint_blobs first: an append chain's links are all there.
        auto it = found->rows.find({ch, version});
        if (it == found->rows.end() && !all && !found->whole_channel.count(ch)) {
          Stmt blob(db, stmts,
                    "SELECT value, delta_base FROM checkpoint_blobs WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND "
                    "channel = ?3 AND version = ?4");
          blob.bind(1, t).bind(2, ns).bind(3, ch).bind(4, version);
          if (!blob.step()) return from_step(ch, version);
          if (blob.is_null(1))
            return internal::StoredBlob{parse_stored(blob.view(0), "value of channel '" + ch + "'", t, *id), std::nullopt};
          found->whole_channel.insert(ch);
          Stmt every(db, stmts,
                     "SELECT version, value, delta_base FROM checkpoint_blobs WHERE thread_id = ?1 AND "
                     "checkpoint_ns = ?2 AND channel = ?3");
          every.bind(1, t).bind(2, ns).bind(3, ch);
          while (every.step()) {
            std::optional<std::string> base;
            if (!every.is_null(2)) base = every.text(2);
            found->rows.emplace(std::pair{ch, every.text(0)}, std::pair{every.text(1), std::move(base)});
          }
          it = found->rows.find({ch, version});
        }
        if (it == found->rows.end()) return from_step(ch, version);
        return internal::StoredBlob{parse_stored(it->second.first, "value of channel '" + ch + "'", t, *id),
                                    it->second.second};
      },
      "thread '" + t + "'");
}

internal::VersionResolver SqliteSaver::Impl::maps(const std::string& t, const std::string& ns,
                                                std::shared_ptr<const std::unordered_map<std::string, std::string>> rows) {
  return internal::VersionResolver(
      [this, t, ns, rows](const std::string& id, const std::string&) -> std::optional<json> {
        if (rows)
          if (auto it = rows->find(id); it != rows->end()) return parse_stored(it->second, "checkpoint", t, id);
        Stmt s(db, stmts, "SELECT checkpoint FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3");
        s.bind(1, t).bind(2, ns).bind(3, id);
        if (!s.step()) return std::nullopt;
        return parse_stored(s.text(0), "checkpoint", t, id);
      },
      t);
}

CheckpointTuple SqliteSaver::Impl::load(const std::string& t, const std::string& ns, const std::string& id, json stored,
                                      json metadata, const std::optional<std::string>& parent,
                                      internal::BlobResolver& values, internal::VersionResolver& maps,
                                      std::string& current_id, const CheckpointQuery* query, const std::string* next,
                                      std::unordered_map<std::string, std::vector<StoredWrite>>* all_writes) {
  current_id = id;
  values.set_where("thread '" + t + "', checkpoint '" + id + "'");
  if (!query || !internal::keeps_changes(*query, stored, next)) maps.resolve(id, stored);
  return internal::make_tuple(
      t, ns, id, std::move(stored), std::move(metadata), parent,
      values, all_writes ? std::move((*all_writes)[id]) : writes_of(t, ns, id),
      [&] { return writes_of(t, ns, *parent); });
}

std::optional<CheckpointTuple> SqliteSaver::get_tuple(const CheckpointConfig& config) {
  std::lock_guard lock(impl_->mutex);
  impl_->notice_other_writers();
  if (auto known = impl_->latest.find(config)) {
    if (impl_->verify_latest) {
      std::optional<CheckpointTuple> stored = impl_->read_tuple(config);
      const std::string a = known->to_json().dump(), b = stored ? stored->to_json().dump() : "null";
      if (a != b)
        throw CheckpointError("sqlite '" + impl_->path + "': the saver's memory of thread '" + config.thread_id +
                              "' differs from storage: memory " + a.substr(0, 2000) + ", storage " + b.substr(0, 2000));
    }
    return known;
  }
  std::optional<CheckpointTuple> out = impl_->read_tuple(config);
  if (!config.checkpoint_id) impl_->latest.filled(config.thread_id, config.checkpoint_ns, out);
  return out;
}

std::optional<CheckpointTuple> SqliteSaver::Impl::read_tuple(const CheckpointConfig& config) {
  return read([&]() -> std::optional<CheckpointTuple> {
    const char* sql = config.checkpoint_id
                          ? "SELECT checkpoint_id, checkpoint, metadata, parent_checkpoint_id FROM checkpoints "
                            "WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3"
                          : "SELECT checkpoint_id, checkpoint, metadata, parent_checkpoint_id FROM checkpoints "
                            "WHERE thread_id = ?1 AND checkpoint_ns = ?2 ORDER BY checkpoint_id DESC LIMIT 1";
    Stmt s(db, stmts, sql);
    s.bind(1, config.thread_id).bind(2, config.checkpoint_ns);
    if (config.checkpoint_id) s.bind(3, *config.checkpoint_id);
    if (!s.step()) return std::nullopt;
    std::optional<std::string> parent;
    if (!s.is_null(3)) parent = s.text(3);
    std::string id = s.text(0), cp = s.text(1), md = s.text(2);
    s.reset();  // the row is copied; let the chain's reads use the connection
    std::string current;
    auto values = resolver(config.thread_id, config.checkpoint_ns, &current);
    auto version_maps = maps(config.thread_id, config.checkpoint_ns);
    return load(config.thread_id, config.checkpoint_ns, id, parse_stored(cp, "checkpoint", config.thread_id, id),
                parse_stored(md, "metadata", config.thread_id, id), parent, values, version_maps, current);
  });
}

std::vector<CheckpointTuple> SqliteSaver::list(const CheckpointQuery& q) {
  std::lock_guard lock(impl_->mutex);
  return impl_->read([&] {
    std::string sql =
        "SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata, parent_checkpoint_id FROM checkpoints "
        "WHERE 1 = 1";
    if (q.thread_id) sql += " AND thread_id = ?1";
    if (q.checkpoint_ns) sql += " AND checkpoint_ns = ?2";
    if (q.checkpoint_id) sql += " AND checkpoint_id = ?3";
    if (q.before) sql += " AND checkpoint_id < ?4";
    sql += " ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC";
    Stmt s(impl_->db, impl_->stmts, sql.c_str());
    if (q.thread_id) s.bind(1, *q.thread_id);
    if (q.checkpoint_ns) s.bind(2, *q.checkpoint_ns);
    if (q.checkpoint_id) s.bind(3, *q.checkpoint_id);
    if (q.before) s.bind(4, *q.before);
    struct Row {
      std::string t, ns, id, cp, md;
      std::optional<std::string> parent;
    };
    std::vector<Row> rows;
    const bool filtered = q.filter.is_object() && !q.filter.empty();
    while (s.step()) {
      Row r{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), std::nullopt};
      if (filtered && !internal::matches_filter(parse_stored(r.md, "metadata", r.t, r.id), q.filter)) continue;
      if (q.limit && rows.size() >= *q.limit) break;
      if (!s.is_null(5)) r.parent = s.text(5);
      rows.push_back(std::move(r));
    }
    s.reset();
    std::vector<CheckpointTuple> out;
    // Per thread and namespace, one resolver of values and one of version maps, so a history
    // walks each chain once.
    for (std::size_t i = 0; i < rows.size();) {
      std::size_t j = i;
      auto texts = std::make_shared<std::unordered_map<std::string, std::string>>();
      for (; j < rows.size() && rows[j].t == rows[i].t && rows[j].ns == rows[i].ns; ++j) texts->emplace(rows[j].id, rows[j].cp);
      std::string current_id;
      // A history wants most stored values and writes of its thread: read them in one statement
      // each. Its checkpoint and metadata texts are parsed on two threads: a helper starts on
      // them while this one reads values and writes, then joins in.
      // Not for a page (`limit`): that would read the whole thread to show a page of it.
      const bool many = j - i >= 8 && !q.limit;
      std::vector<json> stored(j - i), metadata(j - i);
      auto parse = [&, i](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k) {
          const Row& r = rows[i + k];
          stored[k] = parse_stored(r.cp, "checkpoint", r.t, r.id);
          metadata[k] = parse_stored(r.md, "metadata", r.t, r.id);
        }
      };
      std::optional<internal::BlobResolver> values;
      auto maps = impl_->maps(rows[i].t, rows[i].ns, texts);
      std::optional<std::unordered_map<std::string, std::vector<StoredWrite>>> writes;
      internal::parse_on_two_threads(j - i, parse, [&] {
        values.emplace(impl_->resolver(rows[i].t, rows[i].ns, &current_id, /*all=*/many));
        if (many) writes = impl_->writes_of_all(rows[i].t, rows[i].ns, *texts);
      });
      for (std::size_t k = 0; i < j; ++i, ++k) {
        const Row& r = rows[i];
        const std::string* next = i + 1 < j ? &rows[i + 1].id : nullptr;
        out.push_back(impl_->load(r.t, r.ns, r.id, std::move(stored[k]), std::move(metadata[k]), r.parent, *values, maps,
                                  current_id, &q, next, writes ? &*writes : nullptr));
      }
    }
    return out;
  });
}

}  // namespace superstep
