// LastValue: a key without reducer. At most one write per step; the value persists across steps.
// LastValueAfterFinish: the trigger of a deferred node; readable only after finish().
#pragma once

#include <type_traits>

#include "superstep/channels/channel.hpp"
#include "superstep/channels/single_value.hpp"

namespace superstep {

template <class T>
class BasicLastValue : public SingleValueChannel<BasicLastValue<T>, T> {
 public:
  using SingleValueChannel<BasicLastValue<T>, T>::SingleValueChannel;
  std::string_view kind() const noexcept override { return "LastValue"; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return false;
    if (writes.size() > 1) {
      json all = json::array();
      for (auto& w : writes) all.push_back(w);
      throw InvalidUpdateError("at key '" + this->key() + "': can receive only one value per step, got " +
                               std::to_string(writes.size()) + " (" + internal::preview(all) +
                               "); give the key a reducer to combine values");
    }
    this->value_ = std::move(writes.back());
    return true;
  }
  /// Sets the initial value (the schema's default).
  void set(T v) { this->value_ = std::move(v); }
};
using LastValue = BasicLastValue<json>;

template <class T>
class BasicLastValueAfterFinish : public ValueChannel<T> {
 public:
  using ValueChannel<T>::ValueChannel;
  std::string_view kind() const noexcept override { return "LastValueAfterFinish"; }
  bool is_available() const noexcept override { return value_.has_value() && finished_; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return false;
    value_ = std::move(writes.back());
    finished_ = false;
    return true;
  }
  bool finish() override {
    if (finished_ || !value_) return false;
    finished_ = true;
    return true;
  }
  bool consume() override {
    if (!finished_) return false;
    finished_ = false;
    value_.reset();
    return true;
  }
  const T* peek() const noexcept override { return is_available() ? &*value_ : nullptr; }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<BasicLastValueAfterFinish>(*this); }
  void reset_to(const Channel& prototype) override {
    const auto& p = static_cast<const BasicLastValueAfterFinish&>(prototype);
    value_ = p.value_;
    finished_ = p.finished_;
  }
  std::optional<json> checkpoint() const override {
    if (!value_) return std::nullopt;
    return json{{"value", *value_}, {"finished", finished_}};
  }
  void restore(const std::optional<json>& saved) override {
    value_.reset();
    finished_ = false;
    if (!saved) return;
    if (!saved->is_object() || !saved->contains("value"))
      throw CheckpointError("channel '" + this->key() + "': stored LastValueAfterFinish is malformed");
    value_ = saved->at("value").template get<T>();
    finished_ = saved->value("finished", false);
  }

 private:
  std::optional<T> value_;
  bool finished_ = false;
};
using LastValueAfterFinish = BasicLastValueAfterFinish<json>;

}  // namespace superstep
