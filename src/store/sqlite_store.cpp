#include "superstep/store/sqlite_store.hpp"

#include <sqlite3.h>

#include <mutex>
#include <utility>

#include "store/store_common.hpp"
#include "superstep/errors.hpp"

namespace superstep {

struct SqliteStore::Impl {
  sqlite3* db = nullptr;
  std::string path;
  std::mutex mutex;  // guards db (one statement at a time)

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("SqliteStore '" + path + "': " + what + ": " + sqlite3_errmsg(db));
  }
  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw Error("SqliteStore '" + path + "': " + msg);
    }
  }
  /// A prepared statement, finalized on scope exit.
  struct Stmt {  // owns one statement
    sqlite3_stmt* s = nullptr;
    Stmt() = default;
    Stmt(Stmt&& o) noexcept : s(std::exchange(o.s, nullptr)) {}
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    ~Stmt() { sqlite3_finalize(s); }
  };
  Stmt prepare(const char* sql) {
    Stmt st;
    if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK) fail("prepare");
    return st;
  }
  static void bind(Stmt& st, int i, const std::string& v) {
    sqlite3_bind_text(st.s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  static std::string text(Stmt& st, int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st.s, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st.s, col))) : std::string();
  }
  Item row(Stmt& st) {
    Item it;
    it.namespace_ = internal::split_namespace(text(st, 0));
    it.key = text(st, 1);
    std::string value = text(st, 2);
    it.value = json::parse(value, nullptr, false);
    if (it.value.is_discarded())
      throw Error("SqliteStore '" + path + "': item '" + it.key + "' in '" + text(st, 0) + "' holds a value that is not JSON");
    it.created_at = text(st, 3);
    it.updated_at = text(st, 4);
    return it;
  }
};

SqliteStore::SqliteStore(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  if (sqlite3_open_v2(path.c_str(), &impl_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string msg = impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory";
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    throw Error("SqliteStore: cannot open '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(impl_->db, 10000);
  if (path != ":memory:") impl_->exec("PRAGMA journal_mode = WAL");
  impl_->exec(
      "CREATE TABLE IF NOT EXISTS store (prefix TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
      "created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (prefix, key))");
}

SqliteStore::~SqliteStore() {
  if (impl_->db) sqlite3_close(impl_->db);
}

std::optional<Item> SqliteStore::get(const Namespace& ns, const std::string& key) const {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(impl_->mutex);
  auto st = impl_->prepare("SELECT prefix, key, value, created_at, updated_at FROM store WHERE prefix = ?1 AND key = ?2");
  Impl::bind(st, 1, j);
  Impl::bind(st, 2, key);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) impl_->fail("get");
  return impl_->row(st);
}

void SqliteStore::put(const Namespace& ns, const std::string& key, const json& value) {
  std::string j = internal::join_namespace(ns, key);
  internal::check_value(ns, key, value);
  std::string now = internal::store_timestamp();
  std::lock_guard lock(impl_->mutex);
  auto st = impl_->prepare(
      "INSERT INTO store (prefix, key, value, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) "
      "ON CONFLICT (prefix, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at");
  Impl::bind(st, 1, j);
  Impl::bind(st, 2, key);
  Impl::bind(st, 3, value.dump());
  Impl::bind(st, 4, now);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("put");
}

void SqliteStore::delete_(const Namespace& ns, const std::string& key) {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(impl_->mutex);
  auto st = impl_->prepare("DELETE FROM store WHERE prefix = ?1 AND key = ?2");
  Impl::bind(st, 1, j);
  Impl::bind(st, 2, key);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("delete");
}

std::vector<Item> SqliteStore::search(const Namespace& prefix, const SearchOptions& options) const {
  std::string p = internal::join_prefix(prefix);
  internal::check_filter(options.filter);
  std::vector<Item> out;
  {
    std::lock_guard lock(impl_->mutex);
    auto st = impl_->prepare(
        "SELECT prefix, key, value, created_at, updated_at FROM store "
        "WHERE ?1 = '' OR prefix = ?1 OR substr(prefix, 1, length(?1) + 1) = ?1 || '.'");
    Impl::bind(st, 1, p);
    int rc;
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
      Item it = impl_->row(st);
      if (internal::matches(it.value, options.filter)) out.push_back(std::move(it));
    }
    if (rc != SQLITE_DONE) impl_->fail("search");
  }
  internal::order_and_page(out, options);
  return out;
}

std::vector<Namespace> SqliteStore::list_namespaces(const ListNamespacesOptions& options) const {
  std::vector<std::string> joined;
  {
    std::lock_guard lock(impl_->mutex);
    auto st = impl_->prepare("SELECT DISTINCT prefix FROM store");
    int rc;
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) joined.push_back(Impl::text(st, 0));
    if (rc != SQLITE_DONE) impl_->fail("list_namespaces");
  }
  return internal::select_namespaces(joined, options);
}

}  // namespace superstep
