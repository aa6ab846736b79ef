#include "server/records.hpp"

#include <limits>

namespace superstep::server {

namespace {
Namespace ns_of(const std::string& kind) { return {"superstep_server", kind}; }
}  // namespace

std::vector<json> Records::load(const std::string& kind) const {
  SearchOptions o;
  o.limit = std::numeric_limits<int>::max();
  std::vector<json> out;
  for (Item& it : store_->search(ns_of(kind), o))
    if (it.namespace_ == ns_of(kind)) out.push_back(std::move(it.value));
  return out;
}

json Records::get(const std::string& kind, const std::string& id) const {
  std::optional<Item> it = store_->get(ns_of(kind), id);
  return it ? it->value : json(nullptr);
}

std::vector<json> Records::find(const std::string& kind, const json& filter) const {
  SearchOptions o;
  o.limit = std::numeric_limits<int>::max();
  o.filter = filter;
  std::vector<json> out;
  for (Item& it : store_->search(ns_of(kind), o))
    if (it.namespace_ == ns_of(kind)) out.push_back(std::move(it.value));
  return out;
}

void Records::put(const std::string& kind, const std::string& id, const json& doc) { store_->put(ns_of(kind), id, doc); }

void Records::remove(const std::string& kind, const std::string& id) { store_->delete_(ns_of(kind), id); }

}  // namespace superstep::server
