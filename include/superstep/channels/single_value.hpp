// SingleValueChannel: the body the channels holding at most one value share (LastValue,
// AnyValue, EphemeralValue, UntrackedValue): the value, reading, copying, resetting and
// storing it. A channel adds its kind() and update() (what a step's writes do), CRTP-style.
#pragma once

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "superstep/channels/channel.hpp"

namespace superstep {

template <class Derived, class T>
class SingleValueChannel : public ValueChannel<T> {
 public:
  using ValueChannel<T>::ValueChannel;
  bool is_available() const noexcept override { return value_.has_value(); }
  const T* peek() const noexcept override { return value_ ? &*value_ : nullptr; }
  std::optional<T> take() override { return std::exchange(value_, std::nullopt); }
  std::unique_ptr<Channel> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  void reset_to(const Channel& prototype) override { value_ = static_cast<const Derived&>(prototype).value_; }
  std::optional<json> checkpoint() const override {
    if (!value_) return std::nullopt;
    return json(*value_);
  }
  void restore(const std::optional<json>& saved) override {
    if (saved) value_ = saved->template get<T>();
    else value_.reset();
  }
  void restore_moved(json&& saved) override {
    if constexpr (std::is_same_v<T, json>) value_ = std::move(saved);
    else value_ = saved.template get<T>();
  }

 protected:
  /// The empty update of a step that wrote nothing: the value is dropped. Returns: whether the
  /// channel held one.
  bool clear() {
    if (!value_) return false;
    value_.reset();
    return true;
  }
  std::optional<T> value_;
};

}  // namespace superstep
