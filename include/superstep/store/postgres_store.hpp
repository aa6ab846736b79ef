// PostgresStore: a BaseStore in PostgreSQL (target superstep::postgres), table
// `superstep_store` in the connection's schema, created on first use. Thread-safe; any number
// of processes may share one database (the scale-out setup of the server).
#pragma once

#include <memory>
#include <string>

#include "superstep/store/base_store.hpp"

namespace superstep {

class PostgresStore final : public BaseStore {
 public:
  /// Connects with libpq's connection string `dsn` ("postgresql://user@host/db", "host=... ").
  /// Throws Error naming the server's complaint when it cannot connect.
  explicit PostgresStore(const std::string& dsn);
  ~PostgresStore() override;

  std::optional<Item> get(const Namespace& ns, const std::string& key) const override;
  void put(const Namespace& ns, const std::string& key, const json& value) override;
  void delete_(const Namespace& ns, const std::string& key) override;
  std::vector<Item> search(const Namespace& prefix, const SearchOptions& options = {}) const override;
  std::vector<Namespace> list_namespaces(const ListNamespacesOptions& options = {}) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep
