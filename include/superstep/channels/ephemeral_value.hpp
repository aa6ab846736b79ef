// EphemeralValue: a value that lives for one step (the __start__ input and branch:to:<node>
// triggers). Cleared by the empty update of the next step. With guard, two writes in one step
// are an error; without (branch triggers), the last write wins.
#pragma once

#include "superstep/channels/single_value.hpp"

namespace superstep {

template <class T>
class BasicEphemeralValue : public SingleValueChannel<BasicEphemeralValue<T>, T> {
 public:
  explicit BasicEphemeralValue(std::string key, bool guard = true)
      : SingleValueChannel<BasicEphemeralValue<T>, T>(std::move(key)), guard_(guard) {}
  std::string_view kind() const noexcept override { return "EphemeralValue"; }
  bool update(std::span<T> writes) override {
    if (writes.empty()) return this->clear();
    if (guard_ && writes.size() > 1)
      throw InvalidUpdateError("at key '" + this->key() + "': EphemeralValue can receive only one value per step, got " +
                               std::to_string(writes.size()));
    this->value_ = std::move(writes.back());
    return true;
  }

 private:
  bool guard_;
};
using EphemeralValue = BasicEphemeralValue<json>;

}  // namespace superstep
