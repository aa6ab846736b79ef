#include "superstep/state.hpp"

namespace superstep {

const json* State::find(std::string_view key) const {
  if (source_) return source_->find(key);
  if (object_ && object_->is_object()) {
    auto it = object_->find(key);
    if (it != object_->end()) return &*it;
  }
  return nullptr;
}

const json& State::at(std::string_view key) const {
  if (const json* v = find(key)) return *v;
  std::string have;
  for (const auto& k : keys()) have += (have.empty() ? "" : ", ") + k;
  throw KeyError("state has no value for key '" + std::string(key) + "' (keys with values: " +
                 (have.empty() ? "none" : have) + ")");
}

json State::to_json() const {
  if (source_) {
    json out = json::object();
    source_->for_each([&](const std::string& k, const json& v) { out[k] = v; });
    return out;
  }
  return object_ && object_->is_object() ? *object_ : json::object();
}

std::vector<std::string> State::keys() const {
  std::vector<std::string> out;
  if (source_) {
    source_->for_each([&](const std::string& k, const json&) { out.push_back(k); });
  } else if (object_ && object_->is_object()) {
    for (auto it = object_->begin(); it != object_->end(); ++it) out.push_back(it.key());
  }
  return out;
}

}  // namespace superstep
