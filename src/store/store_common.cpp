#include "store/store_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>

#include "internal/ids.hpp"
#include "superstep/errors.hpp"

namespace superstep {

json Item::to_json() const {
  return json{{"namespace", namespace_}, {"key", key}, {"value", value}, {"created_at", created_at}, {"updated_at", updated_at}};
}

namespace internal {
namespace {
std::string describe(const Namespace& ns) {
  std::string out = "(";
  for (std::size_t i = 0; i < ns.size(); ++i) out += (i ? ", \"" : "\"") + ns[i] + "\"";
  return out + ")";
}
}  // namespace

std::string join_prefix(const Namespace& ns) {
  std::string out;
  for (const std::string& label : ns) {
    if (label.empty()) throw Error("store: namespace " + describe(ns) + " has an empty label");
    if (label.find('.') != std::string::npos)
      throw Error("store: namespace label '" + label + "' in " + describe(ns) + " contains '.', which labels may not");
    if (!out.empty()) out += '.';
    out += label;
  }
  return out;
}

std::string join_namespace(const Namespace& ns, const std::string& key) {
  if (ns.empty()) throw Error("store: item '" + key + "' needs a namespace of at least one label");
  return join_prefix(ns);
}

Namespace split_namespace(std::string_view joined) {
  Namespace out;
  while (true) {
    std::size_t dot = joined.find('.');
    out.emplace_back(joined.substr(0, dot));
    if (dot == std::string_view::npos) break;
    joined.remove_prefix(dot + 1);
  }
  return out;
}

bool under_prefix(std::string_view joined, std::string_view prefix) {
  if (prefix.empty()) return true;
  if (!joined.starts_with(prefix)) return false;
  return joined.size() == prefix.size() || joined[prefix.size()] == '.';
}

void check_value(const Namespace& ns, const std::string& key, const json& value) {
  if (!value.is_object())
    throw Error("store: the value of item '" + key + "' in " + describe(ns) + " must be a JSON object, got " +
                std::string(value.type_name()));
}

namespace {
const std::set<std::string>& operators() {
  static const std::set<std::string> ops = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"};
  return ops;
}
bool is_condition(const json& c) {
  if (!c.is_object() || c.empty()) return false;
  for (const auto& [op, v] : c.items())
    if (!op.starts_with("$")) return false;
  return true;
}
/// -1, 0, 1, or nullopt when not comparable (different kinds).
std::optional<int> compare(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) {
    int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  return std::nullopt;
}
}  // namespace

void check_filter(const json& filter) {
  if (filter.is_null()) return;
  if (!filter.is_object()) throw Error("store: a search filter must be a JSON object, got " + filter.dump());
  for (const auto& [field, cond] : filter.items())
    if (is_condition(cond))
      for (const auto& [op, v] : cond.items())
        if (!operators().count(op))
          throw Error("store: unknown filter operator '" + op + "' on field '" + field + "' (known: $eq, $ne, $gt, $gte, $lt, $lte)");
}

bool matches(const json& value, const json& filter) {
  if (filter.is_null()) return true;
  for (const auto& [field, cond] : filter.items()) {
    auto it = value.find(field);
    if (!is_condition(cond)) {
      if (it == value.end() || *it != cond) return false;
      continue;
    }
    for (const auto& [op, want] : cond.items()) {
      if (op == "$eq") {
        if (it == value.end() || *it != want) return false;
      } else if (op == "$ne") {
        if (it != value.end() && *it == want) return false;
      } else {
        if (it == value.end()) return false;
        std::optional<int> c = compare(*it, want);
        if (!c) return false;
        if ((op == "$gt" && *c <= 0) || (op == "$gte" && *c < 0) || (op == "$lt" && *c >= 0) || (op == "$lte" && *c > 0))
          return false;
      }
    }
  }
  return true;
}

std::string store_timestamp() {
  static std::mutex mutex;
  static int64_t last = 0;
  int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  {
    std::lock_guard lock(mutex);
    if (us <= last) us = last + 1;
    last = us;
  }
  return internal::iso8601_utc(us, 6);
}

void order_and_page(std::vector<Item>& items, const SearchOptions& o) {
  if (o.limit < 0 || o.offset < 0) throw Error("store: search limit and offset must not be negative");
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.updated_at != b.updated_at) return a.updated_at > b.updated_at;
    if (a.namespace_ != b.namespace_) return a.namespace_ < b.namespace_;
    return a.key < b.key;
  });
  std::size_t from = std::min<std::size_t>(items.size(), static_cast<std::size_t>(o.offset));
  std::size_t to = std::min<std::size_t>(items.size(), from + static_cast<std::size_t>(o.limit));
  items = std::vector<Item>(std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(from)),
                            std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(to)));
}

std::vector<Namespace> select_namespaces(const std::vector<std::string>& joined, const ListNamespacesOptions& o) {
  if (o.limit < 0 || o.offset < 0) throw Error("store: list_namespaces limit and offset must not be negative");
  if (o.max_depth && *o.max_depth < 1) throw Error("store: list_namespaces max_depth must be at least 1");
  auto label_ok = [](const std::string& want, const std::string& got) { return want == "*" || want == got; };
  std::set<Namespace> found;
  for (const std::string& j : joined) {
    Namespace ns = split_namespace(j);
    if (ns.size() < o.prefix.size() || ns.size() < o.suffix.size()) continue;
    bool ok = true;
    for (std::size_t i = 0; ok && i < o.prefix.size(); ++i) ok = label_ok(o.prefix[i], ns[i]);
    for (std::size_t i = 0; ok && i < o.suffix.size(); ++i)
      ok = label_ok(o.suffix[o.suffix.size() - 1 - i], ns[ns.size() - 1 - i]);
    if (!ok) continue;
    if (o.max_depth && ns.size() > static_cast<std::size_t>(*o.max_depth)) ns.resize(static_cast<std::size_t>(*o.max_depth));
    found.insert(std::move(ns));
  }
  std::vector<Namespace> out;
  std::size_t i = 0;
  for (auto& ns : found) {
    if (i++ < static_cast<std::size_t>(o.offset)) continue;
    if (out.size() >= static_cast<std::size_t>(o.limit)) break;
    out.push_back(ns);
  }
  return out;
}

}  // namespace internal

}  // namespace superstep
