// AnyValue: the last of any number of writes per step (writers agree on the value); cleared
// by a step that writes nothing. UntrackedValue: a LastValue that is never checkpointed.
#pragma once

#include "superstep/channels/single_value.hpp"

namespace superstep {

template <class T>
class BasicAnyValue : public SingleValueChannel<BasicAnyValue<T>, T> {
 public:
  using SingleValueChannel<BasicAnyValue<T>, T>::SingleValueChannel;
  std::string_view kind() const noexcept override { return "AnyValue"; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return this->clear();
    this->value_ = std::move(writes.back());
    return true;
  }
};
using AnyValue = BasicAnyValue<json>;

template <class T>
class BasicUntrackedValue : public SingleValueChannel<BasicUntrackedValue<T>, T> {
 public:
  explicit BasicUntrackedValue(std::string key, bool guard = true)
      : SingleValueChannel<BasicUntrackedValue<T>, T>(std::move(key)), guard_(guard) {}
  std::string_view kind() const noexcept override { return "UntrackedValue"; }
  bool tracked() const noexcept override { return false; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return false;
    if (guard_ && writes.size() > 1)
      throw InvalidUpdateError("at key '" + this->key() + "': UntrackedValue can receive only one value per step, got " +
                               std::to_string(writes.size()));
    this->value_ = std::move(writes.back());
    return true;
  }
  std::optional<json> checkpoint() const override { return std::nullopt; }
  void restore(const std::optional<json>&) override { this->value_.reset(); }
  void restore_moved(json&&) override { this->value_.reset(); }

 private:
  bool guard_;
};
using UntrackedValue = BasicUntrackedValue<json>;

}  // namespace superstep
