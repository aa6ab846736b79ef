// Value: one write travelling from a task to a channel, type-erased so that one engine serves
// JSON state and typed C++ state. A JSON value is held inline (the JSON state's fast path: no
// allocation, no conversion); any other type is held in a heap box. Move-only.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>

#include "superstep/errors.hpp"
#include "superstep/json.hpp"

namespace superstep {

class Value {
 public:
  Value() = default;
  Value(json j) : v_(std::move(j)) {}  // NOLINT(google-explicit-constructor): JSON is the common case
  /// A value of any other type.
  template <class T>
  static Value of(T value) {
    if constexpr (std::is_same_v<std::decay_t<T>, json>) {
      return Value(std::move(value));
    } else {
      Value out;
      out.v_ = std::unique_ptr<Box>(new Holder<std::decay_t<T>>(std::move(value)));
      return out;
    }
  }

  bool is_json() const noexcept { return std::holds_alternative<json>(v_); }
  json& as_json() { return std::get<json>(v_); }
  const json& as_json() const { return std::get<json>(v_); }

  /// A copy (JSON, or a box of a copyable type). Throws: InvalidUpdateError if not copyable.
  Value clone() const {
    if (const json* j = std::get_if<json>(&v_)) return Value(*j);
    Value out;
    const auto& box = std::get<std::unique_ptr<Box>>(v_);
    if (box) out.v_ = box->clone();
    return out;
  }
  /// The value as JSON (for stream parts and errors): nlohmann's conversion of T when it has
  /// one, else a placeholder naming the type.
  json to_json() const {
    if (const json* j = std::get_if<json>(&v_)) return *j;
    const auto& box = std::get<std::unique_ptr<Box>>(v_);
    return box ? box->to_json() : json();
  }

  /// The held T. Throws: InvalidUpdateError when the value holds another type.
  template <class T>
  T& as() {
    if constexpr (std::is_same_v<T, json>) {
      if (auto* j = std::get_if<json>(&v_)) return *j;
    } else if (auto* box = std::get_if<std::unique_ptr<Box>>(&v_)) {
      if (*box && (*box)->type() == typeid(T)) return static_cast<Holder<T>&>(**box).value;
    }
    throw InvalidUpdateError(std::string("a write of another type reached a channel holding ") + typeid(T).name());
  }

 private:
  struct Box {
    virtual ~Box() = default;
    virtual const std::type_info& type() const noexcept = 0;
    virtual std::unique_ptr<Box> clone() const = 0;
    virtual json to_json() const = 0;
  };
  template <class T>
  struct Holder final : Box {
    explicit Holder(T v) : value(std::move(v)) {}
    const std::type_info& type() const noexcept override { return typeid(T); }
    std::unique_ptr<Box> clone() const override {
      if constexpr (std::is_copy_constructible_v<T>) return std::make_unique<Holder>(value);
      else throw InvalidUpdateError(std::string("a value of type ") + typeid(T).name() + " cannot be copied");
    }
    json to_json() const override {
      if constexpr (std::is_constructible_v<json, const T&>) return json(value);
      else return json(std::string("<") + typeid(T).name() + ">");
    }
    T value;
  };
  std::variant<json, std::unique_ptr<Box>> v_;
};

}  // namespace superstep
