#include "server/store_api.hpp"

#include <limits>

#include "server/core.hpp"

namespace superstep::server {

namespace {

constexpr const char* kReserved = "superstep_server";

/// A namespace from a JSON array of labels (`what` names the field in errors).
Namespace namespace_of(const json& v, const char* what, bool required) {
  if (v.is_null() && !required) return {};
  if (!v.is_array() || (required && v.empty()))
    throw HttpError(422, std::string("store: '") + what + "' must be a non-empty list of labels");
  Namespace ns;
  for (const json& label : v) {
    if (!label.is_string() || label.get_ref<const std::string&>().empty() ||
        label.get_ref<const std::string&>().find('.') != std::string::npos)
      throw HttpError(422, std::string("store: the labels of '") + what +
                               "' must be non-empty strings without periods, got " + dump_wire(v));
    ns.push_back(label);
  }
  if (!ns.empty() && ns[0] == kReserved)
    throw HttpError(422, std::string("store: namespace '") + kReserved + "' is reserved for the server's records");
  return ns;
}

bool reserved(const Namespace& ns) { return !ns.empty() && ns[0] == kReserved; }

int non_negative(const json& body, const char* key, int dflt) {
  const json& v = body.contains(key) ? body[key] : json(nullptr);
  if (v.is_null()) return dflt;
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > std::numeric_limits<int>::max())
    throw HttpError(422, std::string("store: '") + key + "' must be a non-negative integer");
  return v.get<int>();
}

std::string key_of(const json& body) {
  if (!body.contains("key") || !body["key"].is_string() || body["key"].get_ref<const std::string&>().empty())
    throw HttpError(422, "store: 'key' must be a non-empty string");
  return body["key"];
}

/// Store errors (a bad value, a bad filter) are the request's fault.
template <class F>
auto guarded(F&& fn) {
  try {
    return fn();
  } catch (const HttpError&) {
    throw;
  } catch (const Error& e) {
    throw HttpError(422, e.what());
  }
}

}  // namespace

void StoreApi::put(const json& body) {
  require_object(body, "store put");
  Namespace ns = namespace_of(body.value("namespace", json(nullptr)), "namespace", true);
  std::string key = key_of(body);
  if (!body.contains("value") || !body["value"].is_object()) throw HttpError(422, "store: 'value' must be an object");
  guarded([&] { store_->put(ns, key, body["value"]); });
}

void StoreApi::remove(const json& body) {
  require_object(body, "store delete");
  Namespace ns = namespace_of(body.value("namespace", json(nullptr)), "namespace", true);
  std::string key = key_of(body);
  guarded([&] { store_->delete_(ns, key); });
}

json StoreApi::get(const std::string& dotted_namespace, const std::string& key) {
  json labels = json::array();
  std::size_t start = 0;
  while (start <= dotted_namespace.size()) {
    std::size_t dot = dotted_namespace.find('.', start);
    if (dot == std::string::npos) dot = dotted_namespace.size();
    labels.push_back(dotted_namespace.substr(start, dot - start));
    start = dot + 1;
  }
  Namespace ns = namespace_of(labels, "namespace", true);
  if (key.empty()) throw HttpError(422, "store: 'key' must be a non-empty string");
  std::optional<Item> item = guarded([&] { return store_->get(ns, key); });
  return item ? item->to_json() : json(nullptr);
}

json StoreApi::search(const json& body) {
  require_object(body, "store search");
  Namespace prefix = namespace_of(body.value("namespace_prefix", json(nullptr)), "namespace_prefix", false);
  SearchOptions o;
  o.filter = body.value("filter", json(nullptr));
  o.limit = non_negative(body, "limit", 10);
  o.offset = non_negative(body, "offset", 0);
  json items = json::array();
  if (!prefix.empty()) {
    for (const Item& it : guarded([&] { return store_->search(prefix, o); })) items.push_back(it.to_json());
  } else {
    // Everything but the server's records, paged here.
    SearchOptions all = o;
    all.limit = std::numeric_limits<int>::max();
    all.offset = 0;
    int skipped = 0;
    for (const Item& it : guarded([&] { return store_->search({}, all); })) {
      if (reserved(it.namespace_)) continue;
      if (skipped++ < o.offset) continue;
      if (static_cast<int>(items.size()) >= o.limit) break;
      items.push_back(it.to_json());
    }
  }
  return json{{"items", std::move(items)}};
}

json StoreApi::namespaces(const json& body) {
  require_object(body, "store namespaces");
  ListNamespacesOptions o;
  o.prefix = namespace_of(body.value("prefix", json(nullptr)), "prefix", false);
  o.suffix = namespace_of(body.value("suffix", json(nullptr)), "suffix", false);
  if (body.contains("max_depth") && !body["max_depth"].is_null()) o.max_depth = non_negative(body, "max_depth", 0);
  int limit = non_negative(body, "limit", 100), offset = non_negative(body, "offset", 0);
  o.limit = std::numeric_limits<int>::max();
  o.offset = 0;
  json out = json::array();
  int skipped = 0;
  for (const Namespace& ns : guarded([&] { return store_->list_namespaces(o); })) {
    if (reserved(ns)) continue;
    if (skipped++ < offset) continue;
    if (static_cast<int>(out.size()) >= limit) break;
    out.push_back(ns);
  }
  return json{{"namespaces", std::move(out)}};
}

}  // namespace superstep::server
