// SqliteStore: a BaseStore in a SQLite file (target superstep::sqlite). It may share the file
// with a SqliteSaver (its table is `store`). Thread-safe; several processes may use one file
// (SQLite's locking, WAL mode).
#pragma once

#include <memory>
#include <string>

#include "superstep/store/base_store.hpp"

namespace superstep {

class SqliteSaver;

class SqliteStore final : public BaseStore {
 public:
  /// Opens (creating if needed) the database at `path` (":memory:" for a private one).
  explicit SqliteStore(const std::string& path);
  /// A store in `saver`'s database, on the saver's own connection (kept open while the store
  /// lives). One connection for checkpoints and items: neither reloads its page cache after the
  /// other wrote, as two connections to one file must (the server keeps its records this way).
  /// Each call waits for the saver's call under way, and the other way round.
  explicit SqliteStore(const std::shared_ptr<SqliteSaver>& saver);
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
