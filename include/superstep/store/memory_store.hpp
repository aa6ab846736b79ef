// InMemoryStore: a BaseStore in process memory (lost at exit). Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include "superstep/store/base_store.hpp"

namespace superstep {

class InMemoryStore final : public BaseStore {
 public:
  std::optional<Item> get(const Namespace& ns, const std::string& key) const override;
  void put(const Namespace& ns, const std::string& key, const json& value) override;
  void delete_(const Namespace& ns, const std::string& key) override;
  std::vector<Item> search(const Namespace& prefix, const SearchOptions& options = {}) const override;
  std::vector<Namespace> list_namespaces(const ListNamespacesOptions& options = {}) const override;

 private:
  mutable std::mutex mutex_;                                  // guards items_
  std::map<std::pair<std::string, std::string>, Item> items_;  // (joined namespace, key)
};

}  // namespace superstep
