// Records: where the server keeps its assistants, threads and runs: JSON documents in the
// long-term store (BaseStore) of the checkpoints' database, under the namespace
// ("superstep_server", kind), so SQLite and PostgreSQL both hold them with no schema of the
// server's own. Written through on every change; read back whole at start-up.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/store/base_store.hpp"

namespace superstep::server {

class Records {
 public:
  explicit Records(std::shared_ptr<BaseStore> store) : store_(std::move(store)) {}
  std::vector<json> load(const std::string& kind) const;
  /// One document, or null.
  json get(const std::string& kind, const std::string& id) const;
  /// The documents whose top-level fields equal `filter`'s.
  std::vector<json> find(const std::string& kind, const json& filter) const;
  void put(const std::string& kind, const std::string& id, const json& doc);
  void remove(const std::string& kind, const std::string& id);

 private:
  std::shared_ptr<BaseStore> store_;
};

}  // namespace superstep::server
