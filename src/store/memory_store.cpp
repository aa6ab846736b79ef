#include "superstep/store/memory_store.hpp"

#include "store/store_common.hpp"

namespace superstep {


std::optional<Item> InMemoryStore::get(const Namespace& ns, const std::string& key) const {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(mutex_);
  auto it = items_.find({j, key});
  if (it == items_.end()) return std::nullopt;
  return it->second;
}

void InMemoryStore::put(const Namespace& ns, const std::string& key, const json& value) {
  std::string j = internal::join_namespace(ns, key);
  internal::check_value(ns, key, value);
  std::string now = internal::store_timestamp();
  std::lock_guard lock(mutex_);
  auto [it, fresh] = items_.try_emplace({j, key}, Item{ns, key, value, now, now});
  if (!fresh) {
    it->second.value = value;
    it->second.updated_at = now;
  }
}

void InMemoryStore::delete_(const Namespace& ns, const std::string& key) {
  std::string j = internal::join_namespace(ns, key);
  std::lock_guard lock(mutex_);
  items_.erase({j, key});
}

std::vector<Item> InMemoryStore::search(const Namespace& prefix, const SearchOptions& options) const {
  std::string p = internal::join_prefix(prefix);
  internal::check_filter(options.filter);
  std::vector<Item> out;
  {
    std::lock_guard lock(mutex_);
    for (auto it = items_.lower_bound({p, ""}); it != items_.end() && it->first.first.starts_with(p); ++it)
      if (internal::under_prefix(it->first.first, p) && internal::matches(it->second.value, options.filter))
        out.push_back(it->second);
  }
  internal::order_and_page(out, options);
  return out;
}

std::vector<Namespace> InMemoryStore::list_namespaces(const ListNamespacesOptions& options) const {
  std::vector<std::string> joined;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [k, item] : items_)
      if (joined.empty() || joined.back() != k.first) joined.push_back(k.first);
  }
  return internal::select_namespaces(joined, options);
}

}  // namespace superstep
