// PostgresStore: the long-term memory store in PostgreSQL, one table (superstep_store); one
// connection per store, guarded by a mutex, reopened once when it was lost.
#include "superstep/store/postgres_store.hpp"

#include <mutex>
#include <utility>

#include "internal/json_text.hpp"
#include "internal/pq.hpp"
#include "store/store_common.hpp"
#include "superstep/errors.hpp"

namespace superstep {

namespace pq = internal::pq;

struct PostgresStore::Impl {
  std::string dsn;
  std::unique_ptr<pq::Conn> conn;
  std::mutex mutex;  // guards conn (one statement at a time)

  void connect() {
    conn.reset();
    try {
      conn = pq::Conn::open(dsn);
    } catch (const pq::Error& e) {
      throw Error("PostgresStore: " + e.reason);
    }
  }

  /// Runs `sql` with text parameters; reconnects and retries once when the connection was lost
  /// (every statement here is idempotent).
  pq::Result run(const char* what, const std::string& sql, const std::vector<std::string>& params) {
    pq::Params p;
    for (const std::string& v : params) p.text(v);
    for (int attempt = 0;; ++attempt) {
      if (!conn) connect();
      try {
        return conn->run(nullptr, sql, p);
      } catch (const pq::Error& e) {
        if (e.lost && attempt == 0) {
          conn.reset();
          continue;
        }
        throw Error(std::string("PostgresStore: ") + what + " failed: " + e.reason);
      }
    }
  }

  static Item row(const pq::Result& r, int i) {
    Item it;
    it.namespace_ = internal::split_namespace(r.bytes(i, 0));
    it.key = r.bytes(i, 1);
    it.value = json::parse(r.bytes(i, 2), nullptr, false);
    if (it.value.is_discarded())
      throw Error("PostgresStore: item '" + it.key + "' in '" + r.bytes(i, 0) + "' holds a value that is not JSON");
    it.created_at = r.bytes(i, 3);
    it.updated_at = r.bytes(i, 4);
    return it;
  }
};

PostgresStore::PostgresStore(const std::string& dsn) : impl_(std::make_unique<Impl>()) {
  impl_->dsn = dsn;
  std::lock_guard lock(impl_->mutex);
  impl_->connect();
  // Several processes may start at once: create the table under an advisory lock.
  impl_->run("migration",
             "DO $$ BEGIN PERFORM pg_advisory_xact_lock(7261150001); "
             "CREATE TABLE IF NOT EXISTS superstep_store (prefix TEXT COLLATE \"C\" NOT NULL, key TEXT COLLATE \"C\" NOT NULL, "
             "value TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (prefix, key)); END $$",
             {});
}

PostgresStore::~PostgresStore() = default;

std::optional<Item> PostgresStore::get(const Namespace& ns, const std::string& key) const {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(impl_->mutex);
  auto res = impl_->run("get", "SELECT prefix, key, value, created_at, updated_at FROM superstep_store WHERE prefix = $1 AND key = $2",
                        {j, key});
  if (res.rows() == 0) return std::nullopt;
  return Impl::row(res, 0);
}

void PostgresStore::put(const Namespace& ns, const std::string& key, const json& value) {
  std::string j = internal::join_namespace(ns, key);
  internal::check_value(ns, key, value);
  std::string now = internal::store_timestamp();
  std::lock_guard lock(impl_->mutex);
  impl_->run("put",
             "INSERT INTO superstep_store (prefix, key, value, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) "
             "ON CONFLICT (prefix, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at",
             {j, key, internal::dump_json(value), now});
}

void PostgresStore::delete_(const Namespace& ns, const std::string& key) {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(impl_->mutex);
  impl_->run("delete", "DELETE FROM superstep_store WHERE prefix = $1 AND key = $2", {j, key});
}

std::vector<Item> PostgresStore::search(const Namespace& prefix, const SearchOptions& options) const {
  std::string p = internal::join_prefix(prefix);
  internal::check_filter(options.filter);
  std::vector<Item> out;
  {
    std::lock_guard lock(impl_->mutex);
    auto res = impl_->run("search",
                          "SELECT prefix, key, value, created_at, updated_at FROM superstep_store "
                          "WHERE $1 = '' OR prefix = $1 OR left(prefix, length($1) + 1) = $1 || '.'",
                          {p});
    for (int i = 0; i < res.rows(); ++i) {
      Item it = Impl::row(res, i);
      if (internal::matches(it.value, options.filter)) out.push_back(std::move(it));
    }
  }
  internal::order_and_page(out, options);
  return out;
}

std::vector<Namespace> PostgresStore::list_namespaces(const ListNamespacesOptions& options) const {
  std::vector<std::string> joined;
  {
    std::lock_guard lock(impl_->mutex);
    auto res = impl_->run("list_namespaces", "SELECT DISTINCT prefix FROM superstep_store", {});
    for (int i = 0; i < res.rows(); ++i) joined.push_back(res.bytes(i, 0));
  }
  return internal::select_namespaces(joined, options);
}

}  // namespace superstep
