// State: the read-only view of the graph state a node or router receives. It reads the run's
// channels in place (no copy of the state per task) or, for a Send task, the Send's argument.
// A State is only valid during the call it is passed to; copy values out with to_json() or
// get<T>() to keep them. Reading is thread-safe (the step's channels are immutable while tasks run).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/errors.hpp"
#include "superstep/json.hpp"

namespace superstep {
namespace internal {
/// Where a State reads from; implemented by the run loop.
class StateSource {
 public:
  virtual ~StateSource() = default;
  /// The key's value, or nullptr when the key has no value (or is not visible).
  virtual const json* find(std::string_view key) const = 0;
  /// Calls fn(key, value) for every key with a value, in schema order.
  virtual void for_each(const std::function<void(const std::string&, const json&)>& fn) const = 0;
};
}  // namespace internal

class State {
 public:
  /// A view over a JSON object (a Send's argument, or a state built by hand in tests).
  explicit State(const json& object) : object_(&object) {}
  /// A view over a run's channels. Does not own `source`.
  explicit State(const internal::StateSource& source) : source_(&source) {}
  /// Typed state: a view of a state struct (and, when given, its JSON rendering for to_json()).
  State(const void* typed, const internal::StateSource* source) : source_(source), typed_(typed) {}

  /// Typed state: the struct. Requires: the graph's state type is S.
  template <class S>
  const S& typed() const {
    if (!typed_) throw KeyError("this state is JSON, not a typed state struct");
    return *static_cast<const S*>(typed_);
  }

  /// Whether `key` has a value.
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// The value of `key`. Throws: KeyError naming the key and the keys that have values.
  const json& at(std::string_view key) const;
  const json& operator[](std::string_view key) const { return at(key); }
  /// The value converted to T (nlohmann's get<T>).
  template <class T>
  T get(std::string_view key) const { return at(key).template get<T>(); }
  /// The value converted to T, or `fallback` when the key has no value.
  template <class T>
  T value(std::string_view key, T fallback) const {
    const json* v = find(key);
    return v ? v->template get<T>() : std::move(fallback);
  }
  /// The value, or nullptr when the key has no value.
  const json* find(std::string_view key) const;
  /// Every key with a value, as one JSON object (copies).
  json to_json() const;
  /// The keys that have values, in schema order.
  std::vector<std::string> keys() const;

 private:
  const json* object_ = nullptr;
  const internal::StateSource* source_ = nullptr;
  const void* typed_ = nullptr;
};

}  // namespace superstep
