// Node caching (LangGraph's CachePolicy and BaseCache): a node with a cache policy, in a graph
// compiled with a cache, does not run again for an input it already ran on; its writes are
// taken from the cache instead (the `updates` part says `"__metadata__": {"cached": true}`).
//
//   g.add_node("embed", embed_fn, {.cache_policy = sp::CachePolicy{.ttl = 600}});
//   auto app = g.compile({.cache = std::make_shared<sp::InMemoryCache>()});
//
// An entry is the node's writes (its state updates, its Command's go_to and Sends), stored
// when the task finished without error or interrupt, under the graph's and node's name and the
// key of its input. Caches are thread-safe: share one between graphs, runs and threads.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "superstep/json.hpp"

namespace superstep {

/// How a node's results are cached.
struct CachePolicy {
  /// The cache key of a task's input (a pull task: its state keys; a Send: its argument).
  /// Default: the input's JSON text.
  std::function<std::string(const json& input)> key_func;
  /// Seconds an entry lives; nullopt: until the cache is cleared.
  std::optional<double> ttl;
};

/// Where cached node writes live.
class BaseCache {
 public:
  virtual ~BaseCache() = default;
  /// The value stored under (`ns`, `key`), unless there is none or it expired.
  virtual std::optional<json> get(const std::string& ns, const std::string& key) = 0;
  /// Stores `value`, for `ttl` seconds (nullopt: no expiry).
  virtual void set(const std::string& ns, const std::string& key, json value, std::optional<double> ttl) = 0;
  /// Drops every entry of `ns`, or every entry when nullopt.
  virtual void clear(const std::optional<std::string>& ns = std::nullopt) = 0;
};

/// A cache in this process's memory (LangGraph's InMemoryCache).
class InMemoryCache final : public BaseCache {
 public:
  std::optional<json> get(const std::string& ns, const std::string& key) override;
  void set(const std::string& ns, const std::string& key, json value, std::optional<double> ttl) override;
  void clear(const std::optional<std::string>& ns = std::nullopt) override;
  /// Entries held (expired ones included until read or cleared).
  std::size_t size() const;

 private:
  struct Entry {
    json value;
    std::optional<std::chrono::steady_clock::time_point> expires;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
};

}  // namespace superstep
