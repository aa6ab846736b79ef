// Typed state's declarations (typed.hpp explains typed state): StateTraits, the field
// descriptors SUPERSTEP_FIELD makes, the typed reducers, and FieldWrite. Below the typed
// channels (channels/typed_field.hpp) and Update<S> (typed.hpp), which both build on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <tuple>
#include <unordered_map>
#include <type_traits>
#include <utility>
#include <vector>

#include "superstep/value.hpp"
#include "superstep/json.hpp"
#include "superstep/types.hpp"

namespace superstep {

/// Specialise (with SUPERSTEP_STATE) to declare a struct's fields: a static `fields()` returning
/// a std::tuple of sp::field<&S::member>(name [, reducer]).
template <class S>
struct StateTraits;

namespace internal {
template <class M>
struct member_traits;
template <class C, class T>
struct member_traits<T C::*> {
  using owner = C;
  using type = T;
};
struct NoReducer {};
}  // namespace internal

namespace typed {
/// Numbers add; strings and sequence containers concatenate.
struct add {
  template <class T>
  void operator()(T& current, T&& update) const {
    if constexpr (requires { current += std::move(update); }) {
      current += std::move(update);
    } else {
      static_assert(requires { current.insert(current.end(), update.begin(), update.end()); },
                    "sp::typed::add needs a field that supports += or is a sequence container");
      current.insert(current.end(), std::make_move_iterator(update.begin()), std::make_move_iterator(update.end()));
    }
  }
};
/// Sequence containers: the update's elements are appended.
struct append {
  template <class T>
  void operator()(T& current, T&& update) const {
    static_assert(requires { current.insert(current.end(), update.begin(), update.end()); },
                  "sp::typed::append needs a sequence container field (std::vector, std::deque, ...)");
    current.insert(current.end(), std::make_move_iterator(update.begin()), std::make_move_iterator(update.end()));
  }
};
}  // namespace typed

/// One declared field: the member pointer (a template argument, so lookups are resolved at
/// compile time), its name at the JSON boundary, and its reducer.
template <auto Member, class Reducer = internal::NoReducer>
struct Field {
  using Owner = typename internal::member_traits<decltype(Member)>::owner;
  using Type = typename internal::member_traits<decltype(Member)>::type;
  static constexpr auto member = Member;
  using ReducerType = Reducer;
  static constexpr bool has_reducer = !std::is_same_v<Reducer, internal::NoReducer>;
  static_assert(!has_reducer || std::is_invocable_v<const Reducer&, Type&, Type&&> ||
                    std::is_invocable_r_v<Type, const Reducer&, Type, Type>,
                "this reducer does not fit the field's type: it must be callable as (T& current, T&& update) "
                "or as (T current, T update) -> T, with T the field's type");
  std::string_view name;
  Reducer reducer{};

  /// Folds `update` into `current` with the field's reducer.
  void reduce(Type& current, Type&& update) const {
    if constexpr (std::is_invocable_v<const Reducer&, Type&, Type&&>) reducer(current, std::move(update));
    else current = reducer(std::move(current), std::move(update));
  }
};

/// `sp::field<&S::member>("member")` or `sp::field<&S::member>("member", reducer)`.
template <auto Member>
constexpr Field<Member> field(std::string_view name) {
  return Field<Member>{name};
}
template <auto Member, class Reducer>
constexpr Field<Member, Reducer> field(std::string_view name, Reducer reducer) {
  return Field<Member, Reducer>{name, std::move(reducer)};
}

/// What a typed field channel receives: the value and whether it replaces (Overwrite) or folds.
template <class T>
struct FieldWrite {
  T value;
  bool overwrite = false;
  bool fresh_ids = false;  ///< add_messages: every message got a new id from Update::set
};
template <class T>
  requires std::is_constructible_v<json, const T&>
void to_json(json& j, const FieldWrite<T>& w) {
  if (w.overwrite) j = json{{kOverwriteKey, w.value}};
  else j = w.value;
}

namespace internal {
template <class S>
using FieldsOf = decltype(StateTraits<S>::fields());
template <class S>
inline constexpr std::size_t field_count = std::tuple_size_v<FieldsOf<S>>;
template <class S, std::size_t I>
using FieldAt = std::tuple_element_t<I, FieldsOf<S>>;

/// Index of member pointer M among S's declared fields, or field_count<S> when absent.
template <class S, auto M, std::size_t I = 0>
constexpr std::size_t field_index() {
  if constexpr (I == field_count<S>) {
    return I;
  } else {
    constexpr auto other = FieldAt<S, I>::member;
    if constexpr (std::is_same_v<std::remove_cv_t<decltype(other)>, std::remove_cv_t<decltype(M)>>) {
      if constexpr (other == M) return I;
      else return field_index<S, M, I + 1>();
    } else {
      return field_index<S, M, I + 1>();
    }
  }
}

/// The fields an Update<S> sets (defined in typed_batch.hpp).
template <class S>
class TypedBatchOf;

}  // namespace internal

}  // namespace superstep

#define SUPERSTEP_FIELD(Struct, member, ...) ::superstep::field<&Struct::member>(#member __VA_OPT__(, ) __VA_ARGS__)

/// Declares the fields of state struct `Struct` (at global namespace scope).
#define SUPERSTEP_STATE(Struct, ...)                       \
  template <>                                              \
  struct superstep::StateTraits<Struct> {                  \
    static auto fields() { return std::tuple{__VA_ARGS__}; } \
  }
