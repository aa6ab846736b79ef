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

/// The fields an Update<S> sets, one optional slot per field (a second write to a reducer
/// field goes to `extra_`, after the slot, so both are folded in order).
template <class S>
class TypedBatchOf final : public TypedBatch {
  using Idx = std::make_index_sequence<field_count<S>>;
  template <std::size_t... I>
  static auto slots_of(std::index_sequence<I...>)
      -> std::tuple<std::optional<FieldWrite<typename FieldAt<S, I>::Type>>...>;

  struct Pool {
    std::vector<TypedBatchOf*> spare;
    ~Pool() {
      for (TypedBatchOf* b : spare) delete b;
      spare.clear();
      gone = true;
    }
    static inline thread_local bool gone = false;  // trivially destructible: safe to read at exit
  };
  static Pool& pool() {
    static thread_local Pool p;
    return p;
  }
  static constexpr std::size_t kMaxSpare = 16;

 public:
  /// A batch with no writes: a spare one of this thread, or a new one. (Batches are about as big
  /// as S; reusing them keeps the allocator out of the hot path.)
  static std::unique_ptr<TypedBatch, TypedBatch::Release> make() {
    TypedBatchOf* b = nullptr;
    if (!Pool::gone && !pool().spare.empty()) {
      b = pool().spare.back();
      pool().spare.pop_back();
    } else {
      b = new TypedBatchOf();
    }
    return std::unique_ptr<TypedBatch, TypedBatch::Release>(b);
  }
  void release() noexcept override {
    if (set_ > 0) clear(Idx{});
    set_ = 0;
    extra_.clear();
    if (!Pool::gone && pool().spare.size() < kMaxSpare) {
      try {
        pool().spare.push_back(this);
        return;
      } catch (...) {
      }
    }
    delete this;
  }

  template <std::size_t I>
  void put(typename FieldAt<S, I>::Type&& value, bool overwrite, bool fresh_ids = false) {
    auto& slot = std::get<I>(slots_);
    if (!slot) {
      ++set_;
      slot.emplace(FieldWrite<typename FieldAt<S, I>::Type>{std::move(value), overwrite, fresh_ids});
    } else if constexpr (!FieldAt<S, I>::has_reducer) {
      *slot = {std::move(value), overwrite};  // a plain field set twice in one update: the later value
    } else {
      extra_.emplace_back(static_cast<int>(I),
                          Value::of(FieldWrite<typename FieldAt<S, I>::Type>{std::move(value), overwrite, fresh_ids}));
    }
  }
  void explode(std::vector<std::pair<int, Value>>& out) override {
    if (set_ > 0) explode_slots(out, Idx{});
    set_ = 0;
    for (auto& w : extra_) out.push_back(std::move(w));
    extra_.clear();
  }
  void apply_together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                      uint64_t version, int& failed) override {
    together(batches, channels, versions, version, failed, Idx{});
    for (TypedBatch* b : batches) {
      auto* tb = static_cast<TypedBatchOf*>(b);
      tb->set_ = 0;
      tb->extra_.clear();
    }
  }
  bool writes(int field) const override {
    bool found = false;
    for (const auto& e : extra_) found = found || e.first == field;
    return found || writes_slot(field, Idx{});
  }
  bool apply(Channel* const* channels, uint64_t* versions, uint64_t version) override {
    if (!extra_.empty()) return false;
    if (set_ > 0) apply_slots(channels, versions, version, Idx{});
    set_ = 0;
    return true;
  }

 private:
  TypedBatchOf() = default;
  template <std::size_t... I>
  void clear(std::index_sequence<I...>) noexcept {
    (std::get<I>(slots_).reset(), ...);
  }
  template <std::size_t... I>
  void explode_slots(std::vector<std::pair<int, Value>>& out, std::index_sequence<I...>) {
    (
        [&] {
          if (auto& slot = std::get<I>(slots_)) {
            out.emplace_back(static_cast<int>(I), Value::of(std::move(*slot)));
            slot.reset();
          }
        }(),
        ...);
  }
  template <std::size_t... I>
  void apply_slots(Channel* const* channels, uint64_t* versions, uint64_t version, std::index_sequence<I...>) {
    (
        [&] {
          if (auto& slot = std::get<I>(slots_)) {
            // Field I's channel is a FieldChannel<S, I> (final: the call is direct).
            auto* ch = static_cast<FieldChannel<S, I>*>(channels[I]);
            if (ch->update(std::span<FieldWrite<typename FieldAt<S, I>::Type>>(&*slot, 1))) versions[I] = version;
            slot.reset();
          }
        }(),
        ...);
  }

  template <std::size_t... I>
  bool writes_slot(int field, std::index_sequence<I...>) const {
    return ((static_cast<int>(I) == field && std::get<I>(slots_).has_value()) || ...);
  }
  template <std::size_t... I>
  void together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions, uint64_t version,
                int& failed, std::index_sequence<I...>) {
    (together_field<I>(batches, channels, versions, version, failed), ...);
  }
  /// Field I's writes of every batch, in batch order (a batch's slot, then its extra writes).
  template <std::size_t I>
  void together_field(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                      uint64_t version, int& failed) {
    using W = FieldWrite<typename FieldAt<S, I>::Type>;
    std::vector<W> ws;
    for (TypedBatch* b : batches) {
      auto* tb = static_cast<TypedBatchOf*>(b);
      if (auto& slot = std::get<I>(tb->slots_)) {
        if (ws.empty()) ws.reserve(batches.size());
        ws.push_back(std::move(*slot));  // the slot stays engaged until the update succeeds
      }
      for (auto& e : tb->extra_)
        if (e.first == static_cast<int>(I)) ws.push_back(std::move(e.second.template as<W>()));
    }
    if (ws.empty()) return;
    failed = static_cast<int>(I);
    if (static_cast<FieldChannel<S, I>*>(channels[I])->update(std::span<W>(ws))) versions[I] = version;
    failed = -1;
    for (TypedBatch* b : batches) std::get<I>(static_cast<TypedBatchOf*>(b)->slots_).reset();
  }

  decltype(slots_of(Idx{})) slots_;
  std::size_t set_ = 0;  // slots holding a write
  std::vector<std::pair<int, Value>> extra_;
};

}  // namespace internal

}  // namespace superstep
