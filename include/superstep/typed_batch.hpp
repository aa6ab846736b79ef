// TypedBatchOf<S>: the field writes an sp::Update<S> collects, one slot per field, handed to the
// engine as a TypedBatch. Plain data on the ground floor: the typed graph's model folds a batch
// into the field channels (TypedBatchApply<S>, channels/typed_field.hpp; TypedModel::apply).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "superstep/typed_schema.hpp"
#include "superstep/types.hpp"
#include "superstep/value.hpp"

namespace superstep {

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
  bool writes(int field) const override {
    bool found = false;
    for (const auto& e : extra_) found = found || e.first == field;
    return found || writes_slot(field, Idx{});
  }

 private:
  template <class>
  friend class TypedBatchApply;  // channels/typed_field.hpp: folds the slots into the field channels
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
  bool writes_slot(int field, std::index_sequence<I...>) const {
    return ((static_cast<int>(I) == field && std::get<I>(slots_).has_value()) || ...);
  }
  decltype(slots_of(Idx{})) slots_;
  std::size_t set_ = 0;  // slots holding a write
  std::vector<std::pair<int, Value>> extra_;
};

}  // namespace internal

}  // namespace superstep
