// SqliteStore: the long-term memory store in SQLite, one table (prefix, key, value,
// timestamps); a connection of its own, or a SqliteSaver's, guarded by a mutex (the saver's
// when shared).
#include "superstep/store/sqlite_store.hpp"

#include <mutex>
#include <utility>

#include "internal/json_text.hpp"
#include "internal/sqlite.hpp"
#include "superstep/checkpoint/sqlite_saver.hpp"
#include "store/store_common.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::sqlite::Stmt;
namespace sqlite = internal::sqlite;

struct SqliteStore::Impl {
  sqlite3* db = nullptr;
  std::string path;
  std::shared_ptr<SqliteSaver> saver;  // set: db is the saver's connection, not closed here
  std::recursive_mutex own_mutex;
  std::recursive_mutex* mutex = &own_mutex;  // guards db and stmts (one statement at a time)
  sqlite::StmtCache stmts{db};  // get, put and delete, prepared once

  /// Runs `fn`, reporting an SQLite failure as this store's Error ("SqliteStore '<path>': <what>: ...").
  template <class F>
  auto guarded(const char* what, F&& fn) const {
    try {
      return fn();
    } catch (const sqlite::Error& e) {
      throw Error("SqliteStore '" + path + "': " + what + ": " + e.reason);
    }
  }
  Item row(const Stmt& st) const {
    Item it;
    it.namespace_ = internal::split_namespace(st.text(0));
    it.key = st.text(1);
    it.value = json::parse(st.view(2), nullptr, false);
    if (it.value.is_discarded())
      throw Error("SqliteStore '" + path + "': item '" + it.key + "' in '" + st.text(0) + "' holds a value that is not JSON");
    it.created_at = st.text(3);
    it.updated_at = st.text(4);
    return it;
  }
};

namespace {

void create_table(sqlite3* db, const std::string& path) {
  sqlite::exec(db,
               "CREATE TABLE IF NOT EXISTS store (prefix TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
               "created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (prefix, key))",
               path);
}

}  // namespace

SqliteStore::SqliteStore(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  try {
    impl_->db = sqlite::open(path);
  } catch (const sqlite::Error& e) {
    throw Error("SqliteStore: cannot open '" + path + "': " + e.reason);
  }
  try {
    // As SqliteSaver: WAL with synchronous NORMAL, so a commit survives the process's crash
    // without an fsync per write (a power loss may lose the last commits).
    if (path != ":memory:") sqlite::exec(impl_->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", path);
    create_table(impl_->db, path);
    // A saver that grouped its commits on this file and is gone left its writes (this store's
    // rows among them, when it shared its connection) in its redo log.
    if (path != ":memory:") sqlite::GroupCommit::replay_left(impl_->db, path + "-redo");
  } catch (const sqlite::Error& e) {
    sqlite3_close(impl_->db);
    throw Error("SqliteStore '" + path + "': " + e.reason);
  }
}

SqliteStore::SqliteStore(const std::shared_ptr<SqliteSaver>& saver) : impl_(std::make_unique<Impl>()) {
  if (!saver) throw Error("SqliteStore: no saver given to share a connection with");
  auto [db, mutex] = saver->connection();
  impl_->saver = saver;
  impl_->db = db;
  impl_->mutex = mutex;
  const char* file = sqlite3_db_filename(db, "main");
  impl_->path = file && *file ? file : ":memory:";
  std::lock_guard lock(*impl_->mutex);
  try {
    create_table(impl_->db, impl_->path);
  } catch (const sqlite::Error& e) {
    throw Error("SqliteStore '" + impl_->path + "': " + e.reason);
  }
}

SqliteStore::~SqliteStore() {
  std::lock_guard lock(*impl_->mutex);  // a shared connection may be in use by the saver
  impl_->stmts.clear();
  if (!impl_->saver && impl_->db) sqlite3_close(impl_->db);
}

std::optional<Item> SqliteStore::get(const Namespace& ns, const std::string& key) const {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(*impl_->mutex);
  return impl_->guarded("get", [&]() -> std::optional<Item> {
    Stmt st(impl_->db, impl_->stmts, "SELECT prefix, key, value, created_at, updated_at FROM store WHERE prefix = ?1 AND key = ?2");
    st.bind(1, j).bind(2, key);
    if (!st.step()) return std::nullopt;
    return impl_->row(st);
  });
}

void SqliteStore::put(const Namespace& ns, const std::string& key, const json& value) {
  std::string j = internal::join_namespace(ns, key);
  internal::check_value(ns, key, value);
  std::string now = internal::store_timestamp();
  std::string text = internal::dump_json(value);
  std::lock_guard lock(*impl_->mutex);
  impl_->guarded("put", [&] {
    Stmt(impl_->db, impl_->stmts,
         "INSERT INTO store (prefix, key, value, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) "
         "ON CONFLICT (prefix, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind_ref(1, j)
        .bind_ref(2, key)
        .bind_ref(3, text)
        .bind_ref(4, now)
        .run();
  });
}

void SqliteStore::delete_(const Namespace& ns, const std::string& key) {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(*impl_->mutex);
  impl_->guarded("delete", [&] {
    Stmt(impl_->db, impl_->stmts, "DELETE FROM store WHERE prefix = ?1 AND key = ?2").bind(1, j).bind(2, key).run();
  });
}

std::vector<Item> SqliteStore::search(const Namespace& prefix, const SearchOptions& options) const {
  std::string p = internal::join_prefix(prefix);
  internal::check_filter(options.filter);
  std::vector<Item> out;
  {
    std::lock_guard lock(*impl_->mutex);
    impl_->guarded("search", [&] {
      Stmt st(impl_->db,
              "SELECT prefix, key, value, created_at, updated_at FROM store "
              "WHERE ?1 = '' OR prefix = ?1 OR substr(prefix, 1, length(?1) + 1) = ?1 || '.'");
      st.bind(1, p);
      while (st.step()) {
        Item it = impl_->row(st);
        if (internal::matches(it.value, options.filter)) out.push_back(std::move(it));
      }
    });
  }
  internal::order_and_page(out, options);
  return out;
}

std::vector<Namespace> SqliteStore::list_namespaces(const ListNamespacesOptions& options) const {
  std::vector<std::string> joined;
  {
    std::lock_guard lock(*impl_->mutex);
    impl_->guarded("list_namespaces", [&] {
      Stmt st(impl_->db, "SELECT DISTINCT prefix FROM store");
      while (st.step()) joined.push_back(st.text(0));
    });
  }
  return internal::select_namespaces(joined, options);
}

}  // namespace superstep
