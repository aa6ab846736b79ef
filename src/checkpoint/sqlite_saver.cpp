// SqliteSaver: the storage contract in SQLite (schema in docs/checkpoint_schema.md). One
// connection per saver, guarded by a mutex; WAL so readers in other processes are not blocked;
// a busy timeout so writers from several processes take turns.
#include "superstep/checkpoint/sqlite_saver.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <random>

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "checkpoint/latest_checkpoints.hpp"
#include "checkpoint/saver_common.hpp"
#include "checkpoint/sqlite_schema.hpp"
#include "internal/ids.hpp"
#include "internal/sqlite.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::StoredWrite;
using internal::parse_stored;
using internal::sqlite::Stmt;
using internal::sqlite::StmtCache;
namespace sqlite = internal::sqlite;

namespace {

using internal::sqlite_schema::kMigrations;
using internal::sqlite_schema::kSchemaVersion;

/// The value of `channel` in a checkpoint_version_values row ({channel: [value]}; see
/// docs/checkpoint_schema.md), or nullopt.
std::optional<json> version_value_entry(const json& row, const std::string& channel) {
  auto it = row.find(channel);
  if (it == row.end() || !it->is_array() || it->size() != 1) return std::nullopt;
  return (*it)[0];
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

/// Whether process `pid` of this host still runs.
bool process_alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

/// The owners of the claims this process holds, any saver: a row of this process whose owner is
/// not here was left by a release that failed (the store refused the DELETE: disk full, locked,
/// read-only) and is taken over, instead of blocking the thread until the process exits.
struct LiveClaims {
  std::mutex mutex;  // guards owners
  std::set<std::string> owners;
  static LiveClaims& get() {
    static LiveClaims live;
    return live;
  }
  bool holds(const std::string& owner) {
    std::lock_guard lock(mutex);
    return owners.count(owner) > 0;
  }
  void add(const std::string& owner) {
    std::lock_guard lock(mutex);
    owners.insert(owner);
  }
  void remove(const std::string& owner) {
    std::lock_guard lock(mutex);
    owners.erase(owner);
  }
};

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

struct SqliteSaver::Impl {
  std::string path;
  sqlite3* db = nullptr;
  bool deltas = true;
  std::recursive_mutex mutex;  // recursive: batch() holds it around the writes it runs
  int batch_depth = 0;         // > 0: inside batch()'s transaction
  StmtCache stmts{db};
  internal::LatestCheckpoints latest{0};  // the newest checkpoints this saver wrote or read
  std::int64_t data_version = -1;         // PRAGMA data_version when `latest` was last known true
  bool verify_latest = false;             // SUPERSTEP_SQLITE_VERIFY_CACHE: every answer from `latest` is checked against storage

  /// get_tuple() from storage.
  std::optional<CheckpointTuple> read_tuple(const CheckpointConfig& config);
  /// Empties `latest` when another connection wrote to the file since the last look.
  void notice_other_writers() {
    if (!latest.enabled()) return;
    Stmt s(db, stmts, "PRAGMA data_version");
    if (!s.step()) return;
    const std::int64_t now = s.integer64(0);
    if (now != data_version) latest.clear();
    data_version = now;
  }
  /// Forgets what `latest` knows of a thread when it leaves scope (a write that changes the
  /// thread in ways `latest` does not follow, whether it succeeds or not).
  struct Forget {
    Impl& impl;
    const std::string& thread;
    ~Forget() { impl.latest.forget(thread); }
  };

  void exec(const char* sql) { sqlite::exec(db, sql, path); }
  /// Runs `fn` between `begin` and `commit`; on failure runs `rollback` and rethrows.
  template <class F>
  auto in_transaction(const char* begin, const char* commit, const char* rollback, F&& fn) {
    Stmt(db, stmts, begin).run();
    try {
      if constexpr (std::is_void_v<decltype(fn())>) {
        fn();
        Stmt(db, stmts, commit).run();
      } else {
        auto out = fn();
        Stmt(db, stmts, commit).run();
        return out;
      }
    } catch (...) {
      sqlite3_exec(db, rollback, nullptr, nullptr, nullptr);
      throw;
    }
  }
  /// Runs `fn` in a write transaction (BEGIN IMMEDIATE: takes the write lock up front); inside
  /// batch()'s transaction, in a savepoint, so it fails alone.
  template <class F>
  void write(F&& fn) {
    if (batch_depth > 0)
      in_transaction("SAVEPOINT superstep_write", "RELEASE superstep_write",
                     "ROLLBACK TO superstep_write; RELEASE superstep_write", std::forward<F>(fn));
    else
      in_transaction("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", std::forward<F>(fn));
  }
  /// Runs `fn`, a put whose last statement (the checkpoint row) makes it visible: inside
  /// batch()'s transaction with no savepoint of its own (a put that fails before its last
  /// statement leaves only values that no checkpoint names), else in a write transaction.
  template <class F>
  void write_visible_last(F&& fn) {
    if (batch_depth > 0) fn();
    else write(std::forward<F>(fn));
  }
  /// Runs `fn` in a read transaction: one snapshot and one round of file locks for all its
  /// statements (each statement on its own would take and drop the WAL locks).
  template <class F>
  auto read(F&& fn) {
    return in_transaction("BEGIN", "COMMIT", "ROLLBACK", std::forward<F>(fn));
  }
  std::vector<StoredWrite> writes_of(const std::string& t, const std::string& ns, const std::string& id) {
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
  /// The pending writes of every checkpoint of thread `t` / namespace `ns` whose id is in `ids`,
  /// in one statement (for a history).
  std::unordered_map<std::string, std::vector<StoredWrite>> writes_of_all(const std::string& t, const std::string& ns,
                                                                          const std::unordered_map<std::string, std::string>& ids) {
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
  /// Reads stored values of thread `t` / namespace `ns`, following appends. Once a channel's
  /// value turns out to be an append, all its stored versions are read in one statement (a
  /// chain is walked row by row otherwise).
  /// With `all`, every stored value of the thread is read up front in one statement (for a
  /// history, which needs most of them).
  internal::BlobResolver resolver(const std::string& t, const std::string& ns, std::string* id, bool all = false) {
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
  /// Rebuilds version maps stored as changes; `rows` (id -> stored text) are checkpoints this read
  /// already has, others are read one by one.
  internal::VersionResolver maps(const std::string& t, const std::string& ns,
                                 std::shared_ptr<const std::unordered_map<std::string, std::string>> rows = nullptr) {
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
  /// The tuple of checkpoint `id`, from its parsed `stored` form and `metadata`.
  CheckpointTuple load(const std::string& t, const std::string& ns, const std::string& id, json stored, json metadata,
                       const std::optional<std::string>& parent, internal::BlobResolver& values,
                       internal::VersionResolver& maps, std::string& current_id, const CheckpointQuery* query = nullptr,
                       const std::string* next = nullptr,
                       std::unordered_map<std::string, std::vector<StoredWrite>>* all_writes = nullptr) {
    current_id = id;
    values.set_where("thread '" + t + "', checkpoint '" + id + "'");
    if (!query || !internal::keeps_changes(*query, stored, next)) maps.resolve(id, stored);
    return internal::make_tuple(
        t, ns, id, std::move(stored), std::move(metadata), parent,
        values, all_writes ? std::move((*all_writes)[id]) : writes_of(t, ns, id),
        [&] { return writes_of(t, ns, *parent); });
  }
};

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
      return;
    }
    // Before the first access in WAL mode: the WAL's index then lives in this process's memory,
    // not in a shared -shm file, and no transaction takes or drops a lock.
    if (options.exclusive) impl_->exec("PRAGMA locking_mode = EXCLUSIVE");
    impl_->exec("PRAGMA journal_mode = WAL");
    impl_->exec("PRAGMA synchronous = NORMAL");
    impl_->exec("PRAGMA foreign_keys = ON");
    // Migrations, versioned in the database (PRAGMA user_version), applied under the write lock
    // so two processes opening a new file do not race.
    impl_->write([&] {
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
  } catch (...) {
    impl_->stmts.clear();
    sqlite3_close(impl_->db);
    throw;
  }
}

SqliteSaver::~SqliteSaver() {
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
  std::string md = (metadata.is_null() ? json::object() : metadata).dump();
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
      step_values += json(it.key()).dump();
      step_values += ":[";
      step_values += value->dump();
      step_values += ']';
    }
    if (!step_values.empty()) step_values += '}';
  }
  std::lock_guard lock(impl_->mutex);
  // SQLite would go on writing into a file deleted (or replaced) under it, and all of it would
  // be gone when the saver closes: once per checkpoint, one stat() of the path says so.
  int moved = 0;
  if (sqlite3_file_control(impl_->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved)
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
        row.bind(1, t).bind(2, ns).bind(3, *step_version).bind(4, step_values);
        row.run();
      }
    } else if (new_versions.is_object()) {
      Stmt blob(impl_->db, impl_->stmts,
                "INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value) "
                "VALUES (?1, ?2, ?3, ?4, ?5)");
      for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {
        auto v = checkpoint.channel_values.find(it.key());
        if (v == checkpoint.channel_values.end()) continue;
        blob.reset().bind(1, t).bind(2, ns).bind(3, it.key()).bind(4, internal::version_text(*it)).bind(5, v->dump());
        blob.run();
      }
    }
    if (!deltas.appends.empty()) {
      Stmt append(impl_->db, impl_->stmts,
                  "INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value, "
                  "delta_base) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
      for (const ChannelDelta& d : deltas.appends) {
        append.reset().bind(1, t).bind(2, ns).bind(3, d.channel).bind(4, internal::version_text(new_versions[d.channel]))
            .bind(5, d.appended.dump()).bind(6, internal::version_text(d.base_version));
        append.run();
      }
    }
    Stmt cp(impl_->db, impl_->stmts,
            "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
            "checkpoint, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    cp.bind(1, t).bind(2, ns).bind(3, checkpoint.id).bind(5, stored).bind(6, md);
    if (config.checkpoint_id) cp.bind(4, *config.checkpoint_id);
    else cp.bind_null(4);
    cp.run();
  });
  } catch (...) {
    impl_->latest.forget(t, ns);
    throw;
  }
  impl_->latest.put(config, checkpoint, metadata, new_versions, deltas);
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
    (idx < 0 ? upserts : inserts).push_back(Row{idx, &channel, value.dump()});
  }
  constexpr std::size_t kRowsPerStatement = 500;  // 3 parameters a row, far below SQLite's limit
  auto insert = [&](std::string_view verb, const std::vector<Row>& rows, std::size_t from) {
    const std::size_t n = std::min(kRowsPerStatement, rows.size() - from);
    Stmt s(impl_->db, impl_->stmts, writes_sql(verb, n));
    s.bind(1, config.thread_id).bind(2, config.checkpoint_ns).bind(3, *config.checkpoint_id).bind(4, task_id).bind(5, task_path);
    if (config.run_id.empty()) s.bind_null(6);
    else s.bind(6, config.run_id);
    for (std::size_t k = 0; k < n; ++k) {
      const Row& r = rows[from + k];
      s.bind(static_cast<int>(7 + 3 * k), r.idx).bind(static_cast<int>(8 + 3 * k), *r.channel).bind(static_cast<int>(9 + 3 * k), r.value);
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


std::unique_ptr<ThreadClaim> SqliteSaver::claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) {
  static const std::string host = host_name();
  std::string owner = internal::uuid4();
  bool claimed = false;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->write([&] {
      Stmt held(impl_->db, impl_->stmts,
                "SELECT host, pid, owner FROM thread_claims WHERE thread_id = ?1 AND checkpoint_ns = ?2");
      held.bind(1, thread_id).bind(2, checkpoint_ns);
      if (held.step()) {
        const bool mine = held.text(0) == host && held.integer(1) == static_cast<int>(::getpid());
        if (mine ? LiveClaims::get().holds(held.text(2)) : held.text(0) != host || process_alive(held.integer(1))) return;
      }
      Stmt(impl_->db, impl_->stmts,
           "INSERT OR REPLACE INTO thread_claims (thread_id, checkpoint_ns, owner, host, pid) VALUES (?1, ?2, ?3, ?4, ?5)")
          .bind(1, thread_id)
          .bind(2, checkpoint_ns)
          .bind(3, owner)
          .bind(4, host)
          .bind(5, static_cast<int>(::getpid()))
          .run();
      claimed = true;
    });
  }
  if (!claimed) return nullptr;
  LiveClaims::get().add(owner);
  Impl* impl = impl_.get();
  return std::make_unique<internal::ReleasingClaim>([impl, thread_id, checkpoint_ns, owner] {
    LiveClaims::get().remove(owner);
    std::lock_guard lock(impl->mutex);
    impl->write([&] {
      Stmt(impl->db, impl->stmts, "DELETE FROM thread_claims WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND owner = ?3")
          .bind(1, thread_id)
          .bind(2, checkpoint_ns)
          .bind(3, owner)
          .run();
    });
  });
}

void SqliteSaver::clear() {
  std::lock_guard lock(impl_->mutex);
  impl_->latest.clear();
  impl_->write([&] {
    impl_->exec("DELETE FROM checkpoints; DELETE FROM checkpoint_blobs; DELETE FROM checkpoint_version_values; DELETE FROM checkpoint_writes; DELETE FROM thread_claims;");
  });
}

}  // namespace superstep
