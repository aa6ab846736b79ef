// Program's helpers: the pool of spare channel sets and the name lists of error messages.
#include "pregel/program.hpp"

#include "superstep/errors.hpp"

namespace superstep::internal {

ChannelPool::Set ChannelPool::acquire(const Program& graph) {
  const auto& prototypes = graph.prototypes;
  {
    std::lock_guard lock(mutex_);
    if (!spare_.empty()) {
      Set set = std::move(spare_.back());
      spare_.pop_back();
      return set;
    }
  }
  Set set;
  set.state.owned.reserve(prototypes.size());
  if (graph.typed) {
    // Typed fields point into the holder's struct: make them together, not by cloning.
    auto typed = graph.typed->make_state_channels();
    for (int i = 0; i < graph.num_state_keys; ++i) set.state.owned.push_back(std::move(typed[i]));
    for (std::size_t i = graph.num_state_keys; i < prototypes.size(); ++i)
      set.state.owned.push_back(static_cast<int>(i) == graph.holder_channel ? std::move(typed.back()) : prototypes[i]->clone());
  } else {
    for (const auto& p : prototypes) set.state.owned.push_back(p->clone());
  }
  for (const auto& c : set.state.owned) set.state.channels.push_back(c.get());
  return set;
}

void ChannelPool::release(Set set, const Program& graph) {
  for (int i : graph.resettable_channels) set.state.owned[i]->reset_to(*graph.prototypes[i]);
  std::lock_guard lock(mutex_);
  if (spare_.size() < kMaxSpare) spare_.push_back(std::move(set));
}

std::string Program::key_list() const {
  std::string out;
  for (const auto& k : state_keys) out += (out.empty() ? "" : ", ") + k;
  return out.empty() ? "(none)" : out;
}

std::string Program::node_list() const {
  std::string out;
  for (const auto& n : nodes)
    if (!n.is_start) out += (out.empty() ? "" : ", ") + n.name;
  return out.empty() ? "(none)" : out;
}

void Program::unknown_node(const std::string& target, const std::string& who) const {
  throw InvalidUpdateError("graph '" + name + "': " + who + " unknown node '" + target + "' (nodes: " +
                           node_list() + ")");
}

void Program::unknown_key(std::string_view key, const std::string& who) const {
  throw InvalidUpdateError("graph '" + name + "': " + who + " unknown key '" + std::string(key) +
                           "' (state keys: " + key_list() + ")");
}

}  // namespace superstep::internal
