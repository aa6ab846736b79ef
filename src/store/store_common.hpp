// What every BaseStore backend shares: namespace encoding and checks, filters, ordering,
// paging and list_namespaces, so the backends differ only in where the items live.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "superstep/store/base_store.hpp"

namespace superstep::internal {

/// The namespace as stored: labels joined by '.'. Throws Error (naming `key`) for an empty
/// namespace, an empty label or a label with '.'.
std::string join_namespace(const Namespace& ns, const std::string& key);
/// A prefix for search: like join_namespace, but an empty prefix (everything) is allowed.
std::string join_prefix(const Namespace& prefix);
Namespace split_namespace(std::string_view joined);
/// True when namespace `joined` is `prefix` or lies under it (whole labels).
bool under_prefix(std::string_view joined, std::string_view prefix);
/// Throws Error unless `value` is an object.
void check_value(const Namespace& ns, const std::string& key, const json& value);
/// Throws Error for a filter that is not null/an object or uses an unknown operator.
void check_filter(const json& filter);
bool matches(const json& value, const json& filter);
/// Now, ISO 8601 UTC with microseconds; strictly increasing within the process.
std::string store_timestamp();
/// Orders (updated_at descending, then namespace, key), applies offset and limit.
void order_and_page(std::vector<Item>& items, const SearchOptions& options);
/// list_namespaces over the distinct stored namespaces.
std::vector<Namespace> select_namespaces(const std::vector<std::string>& joined, const ListNamespacesOptions& options);

}  // namespace superstep::internal
