// SqliteSaver: the storage contract in SQLite (schema in docs/checkpoint_schema.md): opening and
// migrating a file, the writes (put, put_writes, batch) and thread maintenance (metadata,
// rollback, delete, copy, prune). Reading back is in sqlite_saver_read.cpp, thread claims in
// sqlite_claims.cpp; the state they share in sqlite_saver_impl.hpp. WAL so readers in other
// processes are not blocked; a busy timeout so writers from several processes take turns.
#include "superstep/checkpoint/sqlite_saver.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "checkpoint/sqlite_saver_impl.hpp"
#include "checkpoint/sqlite_schema.hpp"
#include "internal/json_text.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::parse_stored;
using internal::sqlite::Stmt;
namespace sqlite = internal::sqlite;

namespace {

using internal::sqlite_schema::kMigrations;
using internal::sqlite_schema::kSchemaVersion;

/// `verb` ("INSERT OR REPLACE", "INSERT OR IGNORE") of `rows` pending writes of one task in one
/// statement: ?1-?6 thread, namespace, checkpoint, task, path and run; then idx, channel and value
/// of each row. Built once per verb and row count.
const char* writes_sql(std::string_view verb, std::size_t rows) {
  static std::mutex mutex;  // guards texts
  static std::map<std::pair<std::string, std::size_t>, std::string, std::less<>> texts;  // node-based: texts stay put
  std::lock_guard lock(mutex);
  auto key = std::pair{std::string(verb), rows};
  auto it = texts.find(key);
  if (it != texts.end()) return it->second.c_str();
  std::string sql = key.first + " INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, "
                                "channel, value, task_path, run_id) VALUES ";
  for (std::size_t k = 0; k < rows; ++k)
    sql += (k ? ", (?1, ?2, ?3, ?4, ?" : "(?1, ?2, ?3, ?4, ?") + std::to_string(7 + 3 * k) + ", ?" +
           std::to_string(8 + 3 * k) + ", ?" + std::to_string(9 + 3 * k) + ", ?5, ?6)";
  return texts.emplace(std::move(key), std::move(sql)).first->second.c_str();
}

}  // namespace


SqliteSaver::SqliteSaver(const std::string& path, const Options& options) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->latest = internal::LatestCheckpoints(options.read_only ? 0 : options.cached_threads);
  if (const char* v = std::getenv("SUPERSTEP_SQLITE_VERIFY_CACHE"); v && *v && std::string_view(v) != "0")
    impl_->verify_latest = true;
  impl_->db = sqlite::open(path, options.read_only, static_cast<int>(options.busy_timeout.count()));
  try {
    if (options.max_page_count)
      impl_->exec(("PRAGMA max_page_count = " + std::to_string(*options.max_page_count)).c_str());
    if (options.read_only) {
      // Nothing to set up, and nothing may be migrated: the schema must be this build's.
      int have = 0;
      {
        Stmt v(impl_->db, "PRAGMA user_version");
        if (v.step()) have = v.integer(0);
      }
      if (have != kSchemaVersion)
        throw CheckpointError("sqlite '" + path + "' (opened read-only): schema version " + std::to_string(have) +
                              ", this build reads " + std::to_string(kSchemaVersion));
      if (sqlite::GroupCommit::left_unreplayed(path + "-redo"))
        throw CheckpointError("sqlite '" + path + "' (opened read-only): its redo log '" + path +
                              "-redo' holds writes not in the file yet (a server stopped without closing it); "
                              "open the file for writing once (`superstep serve` or any saver) to replay them");
      return;
    }
    // Before the first access in WAL mode: the WAL's index then lives in this process's memory,
    // not in a shared -shm file, and no transaction takes or drops a lock.
    if (options.exclusive) impl_->exec("PRAGMA locking_mode = EXCLUSIVE");
    impl_->exclusive = options.exclusive;
    impl_->exec("PRAGMA journal_mode = WAL");
    impl_->exec("PRAGMA synchronous = NORMAL");
    impl_->exec("PRAGMA foreign_keys = ON");
    if (options.wal_autocheckpoint)
      impl_->exec(("PRAGMA wal_autocheckpoint = " + std::to_string(*options.wal_autocheckpoint)).c_str());
    // Migrations, versioned in the database (PRAGMA user_version), applied under the write lock
    // so two processes opening a new file do not race. A file already at this version needs no
    // write lock (a server grouping its commits may hold it for a while).
    int found = 0;
    {
      Stmt v(impl_->db, "PRAGMA user_version");
      if (v.step()) found = v.integer(0);
    }
    if (found != kSchemaVersion) impl_->write([&] {
      int have = 0;
      {
        Stmt v(impl_->db, "PRAGMA user_version");
        if (v.step()) have = v.integer(0);
      }
      if (have > kSchemaVersion)
        throw CheckpointError("sqlite '" + path + "': schema version " + std::to_string(have) +
                              " is newer than this build's (" + std::to_string(kSchemaVersion) + ")");
      for (int m = have; m < kSchemaVersion; ++m) impl_->exec(kMigrations[m]);
      impl_->exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
    });
    // What a connection that grouped its commits acknowledged and did not commit before it went
    // (sqlite_group_commit.hpp): replayed before anything reads the file.
    if (path != ":memory:" && !path.empty()) {
      if (options.group_commit.count() > 0)
        impl_->group = std::make_unique<sqlite::GroupCommit>(impl_->db, path + "-redo", options.group_commit, impl_->mutex);
      else
        sqlite::GroupCommit::replay_left(impl_->db, path + "-redo");
    }
  } catch (...) {
    impl_->group.reset();
    impl_->stmts.clear();
    sqlite3_close(impl_->db);
    throw;
  }
}

SqliteSaver::~SqliteSaver() {
  impl_->group.reset();  // commits what is grouped
  impl_->stmts.clear();
  sqlite3_close(impl_->db);
}

int SqliteSaver::schema_version() { return kSchemaVersion; }

std::pair<sqlite3*, std::recursive_mutex*> SqliteSaver::connection() const { return {impl_->db, &impl_->mutex}; }

bool SqliteSaver::stores_deltas() const { return impl_->deltas; }
void SqliteSaver::store_deltas(bool on) { impl_->deltas = on; }

CheckpointConfig SqliteSaver::put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                              const json& metadata, const json& new_versions,
                                              const PutDeltas& deltas) {
  internal::require_thread(config, "put");
  internal::check_deltas(config, new_versions, deltas);
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  std::string stored = internal::dump_stored_checkpoint(checkpoint, config.checkpoint_id, deltas);
  std::string md = metadata.is_null() ? std::string("{}") : internal::dump_json(metadata);
  // The values of an engine step all take the step's one version: they go in one row.
  std::optional<std::string> step_version;
  if (new_versions.is_object() && impl_->deltas) {
    for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {
      std::string v = internal::version_text(*it);
      if (step_version && *step_version != v) {
        step_version.reset();
        break;
      }
      step_version = std::move(v);
    }
  }
  // Whole values go in the step's row; appends stay rows of checkpoint_blobs, so reading a long
  // append chain (a conversation's messages) reads that channel's rows alone.
  std::string step_values;  // the row's JSON text: {channel: [value]}
  if (step_version) {
    for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {  // in key order, as json would
      auto value = checkpoint.channel_values.find(it.key());
      if (value == checkpoint.channel_values.end()) continue;
      if (std::any_of(deltas.appends.begin(), deltas.appends.end(), [&](const ChannelDelta& d) { return d.channel == it.key(); }))
        continue;
      step_values += step_values.empty() ? "{" : ",";
      internal::append_json_string(step_values, it.key());
      step_values += ":[";
      internal::append_json(step_values, *value);
      step_values += ']';
    }
    if (!step_values.empty()) step_values += '}';
  }
  std::lock_guard lock(impl_->mutex);
  // SQLite would go on writing into a file deleted (or replaced) under it, and all of it would
  // be gone when the saver closes: once per checkpoint, one stat() of the path says so (with
  // group commit, once per group).
  int moved = 0;
  if (!(impl_->group && impl_->group->open()) && sqlite3_file_control(impl_->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved)
    throw CheckpointError("sqlite: the database file '" + impl_->path +
                          "' was deleted or replaced while open (what this saver writes now would be lost when it closes)");
  try {
    impl_->write_visible_last([&] {
      if (step_version) {
        if (!step_values.empty()) {
          // A second put of one version (a stored checkpoint put again) merges into its row.
          Stmt row(impl_->db, impl_->stmts,
                   "INSERT INTO checkpoint_version_values (thread_id, checkpoint_ns, version, channel_values) "
                   "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET channel_values = "
                   "json_patch(channel_values, excluded.channel_values)");
          row.bind_ref(1, t).bind_ref(2, ns).bind_ref(3, *step_version).bind_ref(4, step_values);
          row.run();
        }
      } else if (new_versions.is_object()) {
        Stmt blob(impl_->db, impl_->stmts,
                  "INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value) "
                  "VALUES (?1, ?2, ?3, ?4, ?5)");
        for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {
          auto v = checkpoint.channel_values.find(it.key());
          if (v == checkpoint.channel_values.end()) continue;
          blob.reset().bind(1, t).bind(2, ns).bind(3, it.key()).bind(4, internal::version_text(*it)).bind(5, internal::dump_json(*v));
          blob.run();
        }
      }
      if (!deltas.appends.empty()) {
        Stmt append(impl_->db, impl_->stmts,
                    "INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value, "
                    "delta_base) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        for (const ChannelDelta& d : deltas.appends) {
          append.reset().bind(1, t).bind(2, ns).bind(3, d.channel).bind(4, internal::version_text(new_versions[d.channel]))
              .bind(5, internal::dump_json(d.appended)).bind(6, internal::version_text(d.base_version));
          append.run();
        }
      }
      Stmt cp(impl_->db, impl_->stmts,
              "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
              "checkpoint, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
      cp.bind_ref(1, t).bind_ref(2, ns).bind_ref(3, checkpoint.id).bind_ref(5, stored).bind_ref(6, md);
      if (config.checkpoint_id) cp.bind_ref(4, *config.checkpoint_id);
      else cp.bind_null(4);
      cp.run();
    });
  } catch (...) {
    impl_->latest.forget(t, ns);
    throw;
  }
  impl_->latest.put(config, checkpoint, std::move(md), new_versions, deltas);
  return CheckpointConfig{t, ns, checkpoint.id};
}

void SqliteSaver::batch(const std::function<void()>& writes) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->batch_depth > 0) return writes();
  // Each call inside runs in a savepoint of this transaction: a failed call leaves nothing, and
  // what succeeded is committed even when `writes` itself throws afterwards.
  std::exception_ptr failed;
  impl_->latest.begin_batch();
  try {
  impl_->write([&] {
    ++impl_->batch_depth;
    try {
      writes();
    } catch (...) {
      failed = std::current_exception();
    }
    --impl_->batch_depth;
    // A failure after which SQLite rolled the whole transaction back (disk full, an I/O error)
    // left nothing to commit: that failure is the batch's.
    if (failed && sqlite3_get_autocommit(impl_->db)) std::rethrow_exception(failed);
  });
  } catch (...) {
    impl_->latest.end_batch(false);
    throw;
  }
  // Committed: what the calls inside told `latest` holds (a call that failed forgot its thread).
  impl_->latest.end_batch(true);
  if (failed) std::rethrow_exception(failed);
}

void SqliteSaver::put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                             const std::string& task_id, const std::string& task_path) {
  internal::require_thread(config, "put_writes");
  if (!config.checkpoint_id)
    throw CheckpointError("put_writes: config has no checkpoint_id (thread '" + config.thread_id + "')");
  // Special channels are upserted, other writes kept as first saved (a re-run task cannot
  // change what was recorded): one multi-row statement for each kind, so a call is usually one
  // statement, atomic by itself.
  struct Row {
    int idx;
    const std::string* channel;
    std::string value;
  };
  std::vector<Row> upserts, inserts;
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const auto& [channel, value] = writes[i];
    int idx = internal::write_index(channel, static_cast<int>(i));
    (idx < 0 ? upserts : inserts).push_back(Row{idx, &channel, internal::dump_json(value)});
  }
  constexpr std::size_t kRowsPerStatement = 500;  // 3 parameters a row, far below SQLite's limit
  auto insert = [&](std::string_view verb, const std::vector<Row>& rows, std::size_t from) {
    const std::size_t n = std::min(kRowsPerStatement, rows.size() - from);
    Stmt s(impl_->db, impl_->stmts, writes_sql(verb, n));
    s.bind_ref(1, config.thread_id).bind_ref(2, config.checkpoint_ns).bind_ref(3, *config.checkpoint_id)
        .bind_ref(4, task_id).bind_ref(5, task_path);
    if (config.run_id.empty()) s.bind_null(6);
    else s.bind_ref(6, config.run_id);
    for (std::size_t k = 0; k < n; ++k) {
      const Row& r = rows[from + k];
      s.bind(static_cast<int>(7 + 3 * k), r.idx).bind_ref(static_cast<int>(8 + 3 * k), *r.channel)
          .bind_ref(static_cast<int>(9 + 3 * k), r.value);
    }
    s.run();
  };
  auto all = [&] {
    for (std::size_t i = 0; i < upserts.size(); i += kRowsPerStatement) insert("INSERT OR REPLACE", upserts, i);
    for (std::size_t i = 0; i < inserts.size(); i += kRowsPerStatement) insert("INSERT OR IGNORE", inserts, i);
  };
  const std::size_t statements = (upserts.size() + kRowsPerStatement - 1) / kRowsPerStatement +
                                 (inserts.size() + kRowsPerStatement - 1) / kRowsPerStatement;
  std::lock_guard lock(impl_->mutex);
  try {
    if (statements <= 1) all();  // one statement is atomic by itself: no transaction or savepoint of its own
    else impl_->write(all);
  } catch (...) {
    impl_->latest.forget(config.thread_id, config.checkpoint_ns);
    throw;
  }
  impl_->latest.wrote(config, writes, task_id, task_path);
}

CheckpointConfig SqliteSaver::update_metadata(const CheckpointConfig& config, const json& metadata) {
  internal::check_metadata_patch(config, metadata);
  std::lock_guard lock(impl_->mutex);
  Impl::Forget forget{*impl_, config.thread_id};
  CheckpointConfig out{config.thread_id, config.checkpoint_ns, std::nullopt};
  impl_->write([&] {
    Stmt read(impl_->db, config.checkpoint_id
                             ? "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = ?1 AND "
                               "checkpoint_ns = ?2 AND checkpoint_id = ?3"
                             : "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = ?1 AND "
                               "checkpoint_ns = ?2 ORDER BY checkpoint_id DESC LIMIT 1");
    read.bind(1, config.thread_id).bind(2, config.checkpoint_ns);
    if (config.checkpoint_id) read.bind(3, *config.checkpoint_id);
    if (!read.step()) internal::no_checkpoint_to_update(config);
    std::string id = read.text(0);
    json merged = internal::merge_metadata(internal::parse_stored(read.view(1), "metadata", config.thread_id, id), metadata);
    Stmt(impl_->db, "UPDATE checkpoints SET metadata = ?4 WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3")
        .bind(1, config.thread_id)
        .bind(2, config.checkpoint_ns)
        .bind(3, id)
        .bind(4, merged.dump())
        .run();
    out.checkpoint_id = std::move(id);
  });
  return out;
}

std::size_t SqliteSaver::delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) {
  std::lock_guard lock(impl_->mutex);  // recursive: get_tuple below takes it too
  Impl::Forget forget{*impl_, thread_id};  // after the get_tuple below, which may fill it
  std::vector<internal::CheckpointRow> rows = impl_->read([&] {
    std::vector<internal::CheckpointRow> out;
    Stmt s(impl_->db,
           "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
           "coalesce(json_extract(metadata, '$.run_id'), '') FROM checkpoints WHERE thread_id = ?1");
    s.bind(1, thread_id);
    while (s.step())
      out.push_back({s.text(0), s.text(1), s.is_null(2) ? std::nullopt : std::optional(s.text(2)), s.text(3)});
    return out;
  });
  internal::RunRollback plan = internal::plan_run_rollback(thread_id, run_id, rows);
  std::map<std::string, std::uint64_t> keep;  // per namespace: the highest version its checkpoints keep
  for (const auto& [ns, newest] : plan.newest_left) {
    std::optional<CheckpointTuple> t = newest ? get_tuple({thread_id, ns, *newest}) : std::nullopt;
    keep[ns] = t ? internal::max_channel_version(*t) : 0;
  }
  impl_->write([&] {
    // What the run wrote on checkpoints it did not make (a resume value, its tasks' writes).
    Stmt(impl_->db, "DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND run_id = ?2").bind(1, thread_id).bind(2, run_id).run();
    for (const auto& [ns, id] : plan.deleted)
      for (const char* table : {"checkpoints", "checkpoint_writes"})
        Stmt(impl_->db, (std::string("DELETE FROM ") + table +
                         " WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3").c_str())
            .bind(1, thread_id)
            .bind(2, ns)
            .bind(3, id)
            .run();
    for (const auto& [ns, highest] : keep)
      for (const char* table : {"checkpoint_blobs", "checkpoint_version_values"})
        Stmt(impl_->db, (std::string("DELETE FROM ") + table +
                         " WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND CAST(version AS INTEGER) > CAST(?3 AS INTEGER)")
                            .c_str())
            .bind(1, thread_id)
            .bind(2, ns)
            .bind(3, std::to_string(highest))
            .run();
  });
  return plan.deleted.size();
}

void SqliteSaver::delete_thread(const std::string& thread_id) {
  std::lock_guard lock(impl_->mutex);
  Impl::Forget forget{*impl_, thread_id};
  impl_->write([&] {
    for (const char* table : {"checkpoints", "checkpoint_blobs", "checkpoint_version_values", "checkpoint_writes"}) {
      Stmt s(impl_->db, impl_->stmts, (std::string("DELETE FROM ") + table + " WHERE thread_id = ?1").c_str());
      s.bind(1, thread_id).run();
    }
  });
}

void SqliteSaver::copy_thread(const std::string& from, const std::string& to) {
  std::lock_guard lock(impl_->mutex);
  Impl::Forget forget{*impl_, to};
  impl_->write([&] {
    for (const char* table : {"checkpoints", "checkpoint_blobs", "checkpoint_version_values", "checkpoint_writes"}) {
      Stmt del(impl_->db, (std::string("DELETE FROM ") + table + " WHERE thread_id = ?1").c_str());
      del.bind(1, to).run();
    }
    Stmt(impl_->db,
         "INSERT INTO checkpoints SELECT ?2, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata "
         "FROM checkpoints WHERE thread_id = ?1")
        .bind(1, from)
        .bind(2, to)
        .run();
    Stmt(impl_->db,
         "INSERT INTO checkpoint_blobs SELECT ?2, checkpoint_ns, channel, version, value, delta_base "
         "FROM checkpoint_blobs WHERE thread_id = ?1")
        .bind(1, from)
        .bind(2, to)
        .run();
    Stmt(impl_->db,
         "INSERT INTO checkpoint_version_values SELECT ?2, checkpoint_ns, version, channel_values "
         "FROM checkpoint_version_values WHERE thread_id = ?1")
        .bind(1, from)
        .bind(2, to)
        .run();
    Stmt(impl_->db,
         "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, "
         "task_path, run_id) SELECT ?2, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, task_path, run_id "
         "FROM checkpoint_writes WHERE thread_id = ?1")
        .bind(1, from)
        .bind(2, to)
        .run();
  });
}

void SqliteSaver::prune(const std::vector<std::string>& thread_ids, bool keep_latest) {
  for (const auto& t : thread_ids) {
    if (!keep_latest) {
      delete_thread(t);
      continue;
    }
    std::lock_guard lock(impl_->mutex);
    Impl::Forget forget{*impl_, t};
    impl_->write([&] {
      // Per namespace: keep the newest checkpoint, its writes, and the values its versions name.
      Stmt latest(impl_->db, impl_->stmts,
                  "SELECT checkpoint_ns, MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?1 GROUP BY checkpoint_ns");
      latest.bind(1, t);
      std::vector<std::pair<std::string, std::string>> keep;
      while (latest.step()) keep.emplace_back(latest.text(0), latest.text(1));
      for (const auto& [ns, id] : keep) {
        std::string cp;
        {
          Stmt get(impl_->db, impl_->stmts, "SELECT checkpoint FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3");
          get.bind(1, t).bind(2, ns).bind(3, id);
          if (get.step()) cp = get.text(0);
        }
        json stored = parse_stored(cp, "checkpoint", t, id);
        if (stored.contains(kVersionsFrom)) {  // its parents go: store whole maps
          impl_->maps(t, ns).resolve(id, stored);
          Stmt(impl_->db, "UPDATE checkpoints SET checkpoint = ?4 WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3")
              .bind(1, t).bind(2, ns).bind(3, id).bind(4, stored.dump()).run();
        }
        json versions = stored.value("channel_versions", json::object());
        // The kept values are stored whole in checkpoint_blobs, so the appends they were built
        // from and the rows of step values can go.
        {
          std::string current = id;
          auto values = impl_->resolver(t, ns, &current);
          std::vector<std::pair<std::string, json>> whole;
          for (auto v = versions.begin(); v != versions.end(); ++v)
            if (auto value = values.resolve(v.key(), v.value().dump())) whole.emplace_back(v.key(), std::move(*value));
          Stmt put(impl_->db,
                   "INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value, delta_base) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, NULL)");
          for (const auto& [ch, value] : whole)
            put.reset().bind(1, t).bind(2, ns).bind(3, ch).bind(4, internal::version_text(versions[ch])).bind(5, value.dump()).run();
          Stmt(impl_->db, "DELETE FROM checkpoint_version_values WHERE thread_id = ?1 AND checkpoint_ns = ?2")
              .bind(1, t).bind(2, ns).run();
        }
        Stmt(impl_->db, "DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id <> ?3")
            .bind(1, t).bind(2, ns).bind(3, id).run();
        Stmt(impl_->db, "UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = ?1 AND checkpoint_ns = ?2")
            .bind(1, t).bind(2, ns).run();
        Stmt(impl_->db, "DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id <> ?3")
            .bind(1, t).bind(2, ns).bind(3, id).run();
        std::vector<std::pair<std::string, std::string>> blobs;
        {
          Stmt all(impl_->db, "SELECT channel, version FROM checkpoint_blobs WHERE thread_id = ?1 AND checkpoint_ns = ?2");
          all.bind(1, t).bind(2, ns);
          while (all.step()) blobs.emplace_back(all.text(0), all.text(1));
        }
        Stmt drop(impl_->db,
                  "DELETE FROM checkpoint_blobs WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND channel = ?3 AND version = ?4");
        for (const auto& [ch, ver] : blobs) {
          auto v = versions.find(ch);
          if (v != versions.end() && v->dump() == ver) continue;
          drop.reset().bind(1, t).bind(2, ns).bind(3, ch).bind(4, ver).run();
        }
      }
    });
  }
}


void SqliteSaver::clear() {
  std::lock_guard lock(impl_->mutex);
  impl_->latest.clear();
  impl_->write([&] {
    impl_->exec("DELETE FROM checkpoints; DELETE FROM checkpoint_blobs; DELETE FROM checkpoint_version_values; DELETE FROM checkpoint_writes; DELETE FROM thread_claims;");
  });
}

}  // namespace superstep
