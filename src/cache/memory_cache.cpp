#include "superstep/cache.hpp"

namespace superstep {

std::optional<json> InMemoryCache::get(const std::string& ns, const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find({ns, key});
  if (it == entries_.end()) return std::nullopt;
  if (it->second.expires && *it->second.expires <= std::chrono::steady_clock::now()) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.value;
}

void InMemoryCache::set(const std::string& ns, const std::string& key, json value, std::optional<double> ttl) {
  Entry e{std::move(value), std::nullopt};
  if (ttl)
    e.expires = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*ttl));
  std::lock_guard lock(mutex_);
  entries_.insert_or_assign({ns, key}, std::move(e));
}

void InMemoryCache::clear(const std::optional<std::string>& ns) {
  std::lock_guard lock(mutex_);
  if (!ns) {
    entries_.clear();
    return;
  }
  for (auto it = entries_.lower_bound({*ns, std::string()}); it != entries_.end() && it->first.first == *ns;)
    it = entries_.erase(it);
}

std::size_t InMemoryCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace superstep
