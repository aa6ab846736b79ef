// EphemeralValue: a value that lives for one step (the __start__ input and branch:to:<node>
// triggers). Cleared by the empty update of the next step. With guard, two writes in one step
// are an error; without (branch triggers), the last write wins.
#pragma once

#include "superstep/channels/channel.hpp"

namespace superstep {

template <class T>
class BasicEphemeralValue : public ValueChannel<T> {
 public:
  explicit BasicEphemeralValue(std::string key, bool guard = true)
      : ValueChannel<T>(std::move(key)), guard_(guard) {}
  std::string_view kind() const noexcept override { return "EphemeralValue"; }
  bool is_available() const noexcept override { return value_.has_value(); }
  bool update(std::span<T> writes) override {
    if (writes.empty()) {
      if (!value_) return false;
      value_.reset();
      return true;
    }
    if (guard_ && writes.size() > 1)
      throw InvalidUpdateError("at key '" + this->key() + "': EphemeralValue can receive only one value per step, got " +
                               std::to_string(writes.size()));
    value_ = std::move(writes.back());
    return true;
  }
  const T* peek() const noexcept override { return value_ ? &*value_ : nullptr; }
  std::optional<T> take() override { return std::exchange(value_, std::nullopt); }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<BasicEphemeralValue>(*this); }
  void reset_to(const Channel& prototype) override {
    value_ = static_cast<const BasicEphemeralValue&>(prototype).value_;
  }
  std::optional<json> checkpoint() const override {
    if (!value_) return std::nullopt;
    return json(*value_);
  }
  void restore(const std::optional<json>& saved) override {
    if (saved) value_ = saved->template get<T>(); else value_.reset();
  }

 private:
  bool guard_;
  std::optional<T> value_;
};
using EphemeralValue = BasicEphemeralValue<json>;

}  // namespace superstep
