#include "superstep/store/postgres_store.hpp"

#include <libpq-fe.h>

#include <mutex>
#include <utility>

#include "store/store_common.hpp"
#include "superstep/errors.hpp"

namespace superstep {

struct PostgresStore::Impl {
  std::string dsn;
  PGconn* pg = nullptr;
  std::mutex mutex;  // guards pg (one statement at a time)

  struct Result {  // owns one PGresult
    PGresult* r = nullptr;
    Result() = default;
    Result(Result&& o) noexcept : r(std::exchange(o.r, nullptr)) {}
    Result(const Result&) = delete;
    Result& operator=(const Result&) = delete;
    ~Result() { PQclear(r); }
  };

  void connect() {
    if (pg) PQfinish(pg);
    pg = PQconnectdb(dsn.c_str());
    if (PQstatus(pg) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(pg);
      PQfinish(pg);
      pg = nullptr;
      while (!msg.empty() && msg.back() == '\n') msg.pop_back();
      throw Error("PostgresStore: cannot connect: " + msg);
    }
  }

  /// Runs `sql` with text parameters; reconnects and retries once when the connection was lost
  /// (every statement here is idempotent).
  Result run(const char* what, const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const std::string& p : params) values.push_back(p.c_str());
    for (int attempt = 0;; ++attempt) {
      if (!pg) connect();
      Result res;
      res.r = PQexecParams(pg, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0);
      ExecStatusType s = PQresultStatus(res.r);
      if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return res;
      if (PQstatus(pg) == CONNECTION_BAD && attempt == 0) {
        PQfinish(pg);
        pg = nullptr;
        continue;
      }
      std::string msg = PQresultErrorMessage(res.r);
      while (!msg.empty() && msg.back() == '\n') msg.pop_back();
      throw Error(std::string("PostgresStore: ") + what + " failed: " + msg);
    }
  }

  Item row(PGresult* r, int i) {
    Item it;
    it.namespace_ = internal::split_namespace(PQgetvalue(r, i, 0));
    it.key = PQgetvalue(r, i, 1);
    it.value = json::parse(PQgetvalue(r, i, 2), nullptr, false);
    if (it.value.is_discarded())
      throw Error("PostgresStore: item '" + it.key + "' in '" + PQgetvalue(r, i, 0) + "' holds a value that is not JSON");
    it.created_at = PQgetvalue(r, i, 3);
    it.updated_at = PQgetvalue(r, i, 4);
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

PostgresStore::~PostgresStore() {
  if (impl_->pg) PQfinish(impl_->pg);
}

std::optional<Item> PostgresStore::get(const Namespace& ns, const std::string& key) const {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(impl_->mutex);
  auto res = impl_->run("get", "SELECT prefix, key, value, created_at, updated_at FROM superstep_store WHERE prefix = $1 AND key = $2",
                        {j, key});
  if (PQntuples(res.r) == 0) return std::nullopt;
  return impl_->row(res.r, 0);
}

void PostgresStore::put(const Namespace& ns, const std::string& key, const json& value) {
  std::string j = internal::join_namespace(ns, key);
  internal::check_value(ns, key, value);
  std::string now = internal::store_timestamp();
  std::lock_guard lock(impl_->mutex);
  impl_->run("put",
             "INSERT INTO superstep_store (prefix, key, value, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) "
             "ON CONFLICT (prefix, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at",
             {j, key, value.dump(), now});
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
    for (int i = 0; i < PQntuples(res.r); ++i) {
      Item it = impl_->row(res.r, i);
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
    for (int i = 0; i < PQntuples(res.r); ++i) joined.emplace_back(PQgetvalue(res.r, i, 0));
  }
  return internal::select_namespaces(joined, options);
}

}  // namespace superstep
