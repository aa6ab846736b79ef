// The channels of typed state. A TypedStateHolder<S> owns the run's state struct; each declared
// field is a FieldChannel that reads and folds into its member of that struct in place, so a
// node receives `const S&` without any copy and writes never pass through JSON.
// Like every channel, owned by one run and used by one thread at a time.
#pragma once

#include <memory>
#include <typeinfo>

#include "superstep/channels/channel.hpp"
#include "superstep/typed.hpp"

namespace superstep {

/// Owns the state struct of a typed run.
template <class S>
class TypedStateHolder final : public Channel {
 public:
  TypedStateHolder() : Channel("__typed_state__") {}
  std::string_view kind() const noexcept override { return "TypedState"; }
  bool is_available() const noexcept override { return true; }
  bool tracked() const noexcept override { return false; }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<TypedStateHolder>(*this); }
  void reset_to(const Channel& prototype) override { value = static_cast<const TypedStateHolder&>(prototype).value; }
  std::optional<json> checkpoint() const override { return std::nullopt; }  // the fields checkpoint themselves
  void restore(const std::optional<json>&) override {}
  bool update_values(std::span<Value> writes) override {
    if (!writes.empty()) throw InvalidUpdateError("the typed state holder takes no writes");
    return false;
  }
  S value{};
};

/// Field I of S: reads and folds into `slot_`, a member of the holder's struct (or, for a
/// detached copy made by clone(), its own value).
template <class S, std::size_t I>
class FieldChannel final : public ValueChannel<FieldWrite<typename internal::FieldAt<S, I>::Type>,
                                               typename internal::FieldAt<S, I>::Type> {
 public:
  using Def = internal::FieldAt<S, I>;
  using T = typename Def::Type;

  FieldChannel(const Def& def, T* slot)
      : ValueChannel<FieldWrite<T>, T>(std::string(def.name)), def_(def), slot_(slot) {}

  std::string_view kind() const noexcept override {
    return Def::has_reducer ? "BinaryOperatorAggregate" : "LastValue";
  }
  bool is_available() const noexcept override { return true; }
  bool update(std::span<FieldWrite<T>> writes) override {
    if (writes.empty()) return false;
    if constexpr (!Def::has_reducer) {
      if (writes.size() > 1)
        throw InvalidUpdateError("at key '" + this->key() + "': can receive only one value per step, got " +
                                 std::to_string(writes.size()) + "; give the field a reducer to combine values");
      *slot_ = std::move(writes.back().value);
    } else {
      bool seen_overwrite = false;
      for (FieldWrite<T>& w : writes) {
        if (w.overwrite) {
          if (seen_overwrite)
            throw InvalidUpdateError("at key '" + this->key() + "': can receive only one Overwrite value per step");
          *slot_ = std::move(w.value);
          seen_overwrite = true;
        } else if (!seen_overwrite) {
          def_.reduce(*slot_, std::move(w.value));
        }
      }
    }
    return true;
  }
  const T* peek() const noexcept override { return slot_; }
  std::unique_ptr<Channel> clone() const override {
    auto copy = std::make_unique<FieldChannel>(def_, nullptr);
    copy->own_ = std::make_unique<T>(*slot_);
    copy->slot_ = copy->own_.get();
    return copy;
  }
  void reset_to(const Channel&) override {
    // The holder resets the struct; a stateful reducer (add_messages' index) forgets its state.
    if constexpr (requires { def_.reducer.reset(); }) def_.reducer.reset();
  }
  std::optional<json> checkpoint() const override {
    if constexpr (std::is_constructible_v<json, const T&>) return json(*slot_);
    else throw CheckpointError("field '" + this->key() + "' has no to_json");
  }
  void restore(const std::optional<json>& saved) override {
    if (!saved) return;
    if constexpr (requires(const json& j) { j.template get<T>(); }) {
      try {
        *slot_ = saved->template get<T>();
      } catch (const json::exception& e) {
        throw CheckpointError("field '" + this->key() + "': stored value does not convert: " + e.what());
      }
    } else {
      throw CheckpointError("field '" + this->key() + "' has no from_json");
    }
  }

 private:
  Def def_;
  T* slot_;
  std::unique_ptr<T> own_;
};

}  // namespace superstep
