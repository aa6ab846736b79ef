// BaseStore: LangGraph's long-term memory. Unlike checkpoints (one thread's state), a store
// keeps JSON documents across threads and runs, addressed by a namespace (a path of labels,
// e.g. {"users", "u42", "memories"}) and a key.
//
//   auto store = std::make_shared<sp::InMemoryStore>();      // or SqliteStore, PostgresStore
//   auto app = g.compile({.store = store});
//   // in a node:
//   rt.store()->put({"users", user_id}, "profile", json{{"name", "Ada"}});
//   for (const sp::Item& m : rt.store()->search({"users", user_id}, {.filter = {{"kind", "fact"}}})) ...
//
// Every backend behaves the same (one conformance suite runs over all of them):
// - Namespaces have at least one label; labels are non-empty and contain no '.'.
// - Values are JSON objects. put() keeps created_at and refreshes updated_at.
// - search() returns the items under a namespace prefix (a whole-label prefix: {"a"} covers
//   {"a"} and {"a","b"}, not {"ab"}), whose values match `filter`, most recently updated first
//   (ties: namespace, then key), then skips `offset` and returns at most `limit`.
// - filter: {"field": value} is equality of a top-level field; {"field": {"$eq"|"$ne"|"$gt"|
//   "$gte"|"$lt"|"$lte": value}} compares (numbers with numbers, strings with strings).
// Stores are thread-safe: share one between graphs, runs and threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "superstep/json.hpp"

namespace superstep {

using Namespace = std::vector<std::string>;

struct Item {
  Namespace namespace_;    ///< ("namespace" is a keyword)
  std::string key;
  json value;              ///< a JSON object
  std::string created_at;  ///< ISO 8601, UTC
  std::string updated_at;
  /// LangGraph's item dict: {namespace, key, value, created_at, updated_at}.
  json to_json() const;
  bool operator==(const Item&) const = default;
};

struct SearchOptions {
  json filter = nullptr;  ///< null, or an object of field conditions
  int limit = 10;
  int offset = 0;
};

struct ListNamespacesOptions {
  Namespace prefix;               ///< namespaces starting with these labels ("*" matches any label)
  Namespace suffix;               ///< namespaces ending with these labels ("*" matches any label)
  std::optional<int> max_depth;   ///< truncate namespaces to this many labels (then deduplicate)
  int limit = 100;
  int offset = 0;
};

class BaseStore {
 public:
  virtual ~BaseStore() = default;

  /// The item, or nullopt.
  virtual std::optional<Item> get(const Namespace& ns, const std::string& key) const = 0;
  /// Creates or replaces the item. Throws Error for a bad namespace or a value that is not an
  /// object (the message names the namespace and key).
  virtual void put(const Namespace& ns, const std::string& key, const json& value) = 0;
  /// Removes the item (nothing when absent). ("delete" is a keyword.)
  virtual void delete_(const Namespace& ns, const std::string& key) = 0;
  /// See the header comment.
  virtual std::vector<Item> search(const Namespace& prefix, const SearchOptions& options = {}) const = 0;
  /// The namespaces holding items, sorted, filtered and truncated as `options` say.
  virtual std::vector<Namespace> list_namespaces(const ListNamespacesOptions& options = {}) const = 0;
};

}  // namespace superstep
