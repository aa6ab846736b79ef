// SqliteStore: a BaseStore in a SQLite file (target superstep::sqlite). It may share the file
// with a SqliteSaver (its table is `store`). Thread-safe; several processes may use one file
// (SQLite's locking, WAL mode).
#pragma once

#include <memory>
#include <string>

#include "superstep/store/base_store.hpp"

namespace superstep {

class SqliteStore final : public BaseStore {
 public:
  /// Opens (creating if needed) the database at `path` (":memory:" for a private one).
  explicit SqliteStore(const std::string& path);
  ~SqliteStore() override;

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
