// The channels of typed state. A TypedStateHolder<S> owns the run's state struct; each declared
// field is a FieldChannel that reads and folds into its member of that struct in place, so a
// node receives `const S&` without any copy and writes never pass through JSON.
// Like every channel, owned by one run and used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>
#include <typeinfo>

#include "superstep/channels/channel.hpp"
#include "superstep/typed_batch.hpp"
#include "superstep/typed_schema.hpp"

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
          forget_reducer_state();
          seen_overwrite = true;
        } else if (!seen_overwrite) {
          if constexpr (requires { def_.reducer.append_fresh(*slot_, std::move(w.value)); }) {
            if (w.fresh_ids) {  // add_messages: ids Update::set just made cannot match a held one
              def_.reducer.append_fresh(*slot_, std::move(w.value));
              continue;
            }
          }
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
    forget_reducer_state();
  }
  bool resettable() const noexcept override { return requires { def_.reducer.reset(); }; }
  std::optional<json> checkpoint() const override {
    if constexpr (std::is_constructible_v<json, const T&>) return json(*slot_);
    else throw CheckpointError("field '" + this->key() + "' has no to_json");
  }
  void restore(const std::optional<json>& saved) override {
    if (!saved) return;
    if constexpr (requires(const json& j) { j.template get<T>(); }) {
      try {
        *slot_ = saved->template get<T>();
        forget_reducer_state();
      } catch (const json::exception& e) {
        throw CheckpointError("field '" + this->key() + "': stored value does not convert: " + e.what());
      }
    } else {
      throw CheckpointError("field '" + this->key() + "' has no from_json");
    }
  }

 private:
  /// The value was replaced wholesale: a stateful reducer (add_messages' id index) starts over.
  void forget_reducer_state() {
    if constexpr (requires { def_.reducer.reset(); }) def_.reducer.reset();
  }

  Def def_;
  T* slot_;
  std::unique_ptr<T> own_;
};

namespace internal {

/// Folds the writes of TypedBatchOf<S> batches into S's field channels (`channels[i]` is field
/// i's FieldChannel<S, i>); what TypedModel::apply and apply_together do for a typed graph.
template <class S>
class TypedBatchApply {
  using Batch = TypedBatchOf<S>;
  using Idx = std::make_index_sequence<field_count<S>>;

 public:
  /// One batch; false, having done nothing, when a reducer field was set twice (explode then).
  static bool apply(TypedBatch& batch, Channel* const* channels, uint64_t* versions, uint64_t version) {
    auto& b = static_cast<Batch&>(batch);
    if (!b.extra_.empty()) return false;
    if (b.set_ > 0) apply_slots(b, channels, versions, version, Idx{});
    b.set_ = 0;
    return true;
  }
  /// Several tasks' batches (in task order): all writes of a field in one update. When a
  /// channel rejects its writes, `failed` names the field and the error propagates.
  static void apply_together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                             uint64_t version, int& failed) {
    together(batches, channels, versions, version, failed, Idx{});
    for (TypedBatch* tb : batches) {
      auto& b = static_cast<Batch&>(*tb);
      b.set_ = 0;
      b.extra_.clear();
    }
  }

 private:
  template <std::size_t... I>
  static void apply_slots(Batch& b, Channel* const* channels, uint64_t* versions, uint64_t version,
                          std::index_sequence<I...>) {
    (
        [&] {
          if (auto& slot = std::get<I>(b.slots_)) {
            // Field I's channel is a FieldChannel<S, I> (final: the call is direct).
            auto* ch = static_cast<FieldChannel<S, I>*>(channels[I]);
            if (ch->update(std::span<FieldWrite<typename FieldAt<S, I>::Type>>(&*slot, 1))) versions[I] = version;
            slot.reset();
          }
        }(),
        ...);
  }
  template <std::size_t... I>
  static void together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                       uint64_t version, int& failed, std::index_sequence<I...>) {
    (together_field<I>(batches, channels, versions, version, failed), ...);
  }
  /// Field I's writes of every batch, in batch order (a batch's slot, then its extra writes).
  template <std::size_t I>
  static void together_field(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                             uint64_t version, int& failed) {
    using W = FieldWrite<typename FieldAt<S, I>::Type>;
    std::vector<W> ws;
    for (TypedBatch* tb : batches) {
      auto& b = static_cast<Batch&>(*tb);
      if (auto& slot = std::get<I>(b.slots_)) {
        if (ws.empty()) ws.reserve(batches.size());
        ws.push_back(std::move(*slot));  // the slot stays engaged until the update succeeds
      }
      for (auto& e : b.extra_)
        if (e.first == static_cast<int>(I)) ws.push_back(std::move(e.second.template as<W>()));
    }
    if (ws.empty()) return;
    failed = static_cast<int>(I);
    if (static_cast<FieldChannel<S, I>*>(channels[I])->update(std::span<W>(ws))) versions[I] = version;
    failed = -1;
    for (TypedBatch* tb : batches) std::get<I>(static_cast<Batch&>(*tb).slots_).reset();
  }
};

}  // namespace internal

}  // namespace superstep
