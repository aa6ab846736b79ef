// AnyValue: the last of any number of writes per step (writers agree on the value); cleared
// by a step that writes nothing. UntrackedValue: a LastValue that is never checkpointed.
#pragma once

#include "superstep/channels/channel.hpp"

namespace superstep {

template <class T>
class BasicAnyValue : public ValueChannel<T> {
 public:
  using ValueChannel<T>::ValueChannel;
  std::string_view kind() const noexcept override { return "AnyValue"; }
  bool is_available() const noexcept override { return value_.has_value(); }
  bool update(std::span<T> writes) override {
    if (writes.empty()) {
      if (!value_) return false;
      value_.reset();
      return true;
    }
    value_ = std::move(writes.back());
    return true;
  }
  const T* peek() const noexcept override { return value_ ? &*value_ : nullptr; }
  std::optional<T> take() override { return std::exchange(value_, std::nullopt); }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<BasicAnyValue>(*this); }
  void reset_to(const Channel& prototype) override {
    value_ = static_cast<const BasicAnyValue&>(prototype).value_;
  }
  std::optional<json> checkpoint() const override {
    if (!value_) return std::nullopt;
    return json(*value_);
  }
  void restore(const std::optional<json>& saved) override {
    if (saved) value_ = saved->template get<T>(); else value_.reset();
  }

 private:
  std::optional<T> value_;
};
using AnyValue = BasicAnyValue<json>;

template <class T>
class BasicUntrackedValue : public ValueChannel<T> {
 public:
  explicit BasicUntrackedValue(std::string key, bool guard = true) : ValueChannel<T>(std::move(key)), guard_(guard) {}
  std::string_view kind() const noexcept override { return "UntrackedValue"; }
  bool is_available() const noexcept override { return value_.has_value(); }
  bool tracked() const noexcept override { return false; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return false;
    if (guard_ && writes.size() > 1)
      throw InvalidUpdateError("at key '" + this->key() + "': UntrackedValue can receive only one value per step, got " +
                               std::to_string(writes.size()));
    value_ = std::move(writes.back());
    return true;
  }
  const T* peek() const noexcept override { return value_ ? &*value_ : nullptr; }
  std::optional<T> take() override { return std::exchange(value_, std::nullopt); }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<BasicUntrackedValue>(*this); }
  void reset_to(const Channel& prototype) override {
    value_ = static_cast<const BasicUntrackedValue&>(prototype).value_;
  }
  std::optional<json> checkpoint() const override { return std::nullopt; }
  void restore(const std::optional<json>&) override { value_.reset(); }

 private:
  bool guard_;
  std::optional<T> value_;
};
using UntrackedValue = BasicUntrackedValue<json>;

}  // namespace superstep
