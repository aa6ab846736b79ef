// StoreApi: the LangGraph Platform store endpoints (`client.store` in the SDK) over the
// server's long-term store, the BaseStore that nodes reach as `rt.store()`, in the same
// database. The namespace "superstep_server" holds the server's own records: it is refused
// here and left out of searches and listings.
#pragma once

#include <memory>

#include "superstep/store/base_store.hpp"

namespace superstep::server {

class StoreApi {
 public:
  explicit StoreApi(std::shared_ptr<BaseStore> store) : store_(std::move(store)) {}
  /// PUT /store/items {namespace, key, value, index?, ttl?}
  void put(const json& body);
  /// DELETE /store/items {namespace, key}
  void remove(const json& body);
  /// GET /store/items?namespace=a.b&key=k: the item, or null.
  json get(const std::string& dotted_namespace, const std::string& key);
  /// POST /store/items/search {namespace_prefix, filter, limit, offset, query}: {items}
  json search(const json& body);
  /// POST /store/namespaces {prefix, suffix, max_depth, limit, offset}: {namespaces}
  json namespaces(const json& body);

 private:
  std::shared_ptr<BaseStore> store_;
};

}  // namespace superstep::server
