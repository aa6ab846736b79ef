// NamedBarrierValue: the trigger of a join (`add_edge({"a","b"}, "c")`, channel join:a+b:c).
// Each source writes its own name; the channel becomes available once every name was written,
// and consume() resets it. The AfterFinish variant (deferred join target) additionally waits
// for finish(), i.e. until nothing else would run.
#pragma once

#include <algorithm>
#include <vector>

#include "superstep/channels/channel.hpp"

namespace superstep {

class NamedBarrierValue : public ValueChannel<json> {
 public:
  NamedBarrierValue(std::string key, std::vector<std::string> names)
      : ValueChannel<json>(std::move(key)), names_(std::move(names)), seen_(names_.size(), false) {}
  std::string_view kind() const noexcept override { return "NamedBarrierValue"; }
  bool is_available() const noexcept override { return complete(); }
  bool update(std::span<json> writes) override {
    bool changed = false;
    for (const json& w : writes) {
      std::size_t i = index_of(w);
      if (!seen_[i]) {
        seen_[i] = true;
        changed = true;
      }
    }
    return changed;
  }
  bool consume() override {
    if (!complete()) return false;
    std::fill(seen_.begin(), seen_.end(), false);
    return true;
  }
  const json* peek() const noexcept override { return complete() ? &kNull : nullptr; }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<NamedBarrierValue>(*this); }
  void reset_to(const Channel& prototype) override {
    seen_ = static_cast<const NamedBarrierValue&>(prototype).seen_;
  }
  std::optional<json> checkpoint() const override {
    json seen = json::array();
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (seen_[i]) seen.push_back(names_[i]);
    if (seen.empty()) return std::nullopt;
    return seen;
  }
  void restore(const std::optional<json>& saved) override {
    std::fill(seen_.begin(), seen_.end(), false);
    if (!saved) return;
    if (!saved->is_array()) throw CheckpointError("channel '" + key() + "': stored barrier is not an array");
    for (const json& n : *saved) seen_[index_of(n)] = true;
  }

 protected:
  bool complete() const noexcept { return std::all_of(seen_.begin(), seen_.end(), [](bool b) { return b; }); }
  std::size_t index_of(const json& name) const {
    if (name.is_string()) {
      for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == name.get_ref<const std::string&>()) return i;
    }
    std::string expected;
    for (const auto& n : names_) expected += (expected.empty() ? "" : ", ") + n;
    throw InvalidUpdateError("at channel '" + key() + "': value " + internal::preview(name) +
                             " is not one of the join's sources (" + expected + ")");
  }
  void reset() { std::fill(seen_.begin(), seen_.end(), false); }

  inline static const json kNull = nullptr;
  std::vector<std::string> names_;
  std::vector<bool> seen_;
};

class NamedBarrierValueAfterFinish : public NamedBarrierValue {
 public:
  using NamedBarrierValue::NamedBarrierValue;
  std::string_view kind() const noexcept override { return "NamedBarrierValueAfterFinish"; }
  bool is_available() const noexcept override { return finished_ && complete(); }
  bool update(std::span<json> writes) override {
    bool changed = NamedBarrierValue::update(writes);
    if (changed) finished_ = false;
    return changed;
  }
  bool finish() override {
    if (finished_ || !complete()) return false;
    finished_ = true;
    return true;
  }
  bool consume() override {
    if (!finished_ || !complete()) return false;
    finished_ = false;
    reset();
    return true;
  }
  const json* peek() const noexcept override { return is_available() ? &kNull : nullptr; }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<NamedBarrierValueAfterFinish>(*this); }
  void reset_to(const Channel& prototype) override {
    const auto& p = static_cast<const NamedBarrierValueAfterFinish&>(prototype);
    seen_ = p.seen_;
    finished_ = p.finished_;
  }
  std::optional<json> checkpoint() const override {
    auto seen = NamedBarrierValue::checkpoint();
    if (!seen) return std::nullopt;
    return json{{"seen", *seen}, {"finished", finished_}};
  }
  void restore(const std::optional<json>& saved) override {
    finished_ = false;
    if (!saved) return NamedBarrierValue::restore(std::nullopt);
    if (!saved->is_object() || !saved->contains("seen"))
      throw CheckpointError("channel '" + key() + "': stored barrier is malformed");
    NamedBarrierValue::restore(saved->at("seen"));
    finished_ = saved->value("finished", false);
  }

 private:
  bool finished_ = false;
};

}  // namespace superstep
