// Topic: collects every value written in a step (arrays are flattened). Without accumulate
// the collection restarts each step; with accumulate it keeps growing.
#pragma once

#include "superstep/channels/channel.hpp"

namespace superstep {

class Topic : public ValueChannel<json> {
 public:
  explicit Topic(std::string key, bool accumulate = false)
      : ValueChannel<json>(std::move(key)), accumulate_(accumulate) {}
  std::string_view kind() const noexcept override { return "Topic"; }
  bool is_available() const noexcept override { return !values_.empty(); }
  bool update(std::span<json> writes) override {
    bool changed = false;
    if (!accumulate_) {
      changed = !values_.empty();
      values_ = json::array();
    }
    for (json& w : writes) {
      if (w.is_array()) {
        for (json& item : w) values_.push_back(std::move(item));
      } else {
        values_.push_back(std::move(w));
      }
      changed = true;
    }
    return changed;
  }
  const json* peek() const noexcept override { return values_.empty() ? nullptr : &values_; }
  std::optional<json> take() override {
    if (values_.empty()) return std::nullopt;
    return std::exchange(values_, json::array());
  }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<Topic>(*this); }
  void reset_to(const Channel& prototype) override {
    values_ = static_cast<const Topic&>(prototype).values_;
  }
  std::optional<json> checkpoint() const override {
    if (values_.empty()) return std::nullopt;
    return values_;
  }
  void restore(const std::optional<json>& saved) override {
    values_ = json::array();
    if (!saved) return;
    if (!saved->is_array()) throw CheckpointError("channel '" + key() + "': stored Topic value is not an array");
    values_ = *saved;
  }

 private:
  bool accumulate_;
  json values_ = json::array();
};

}  // namespace superstep
