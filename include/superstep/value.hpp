// Value: one write travelling from a task to a channel, type-erased so that one engine serves
// JSON state and typed C++ state. A JSON value and small trivially copyable values (a typed
// int or double field write) are held inline, without allocation; any other type is held in a
// heap box. Types are identified by the address of a per-type tag (no type_info string
// comparisons). Move-only.
#pragma once

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>

#include "superstep/errors.hpp"
#include "superstep/json.hpp"

namespace superstep {

namespace internal {
template <class T>
inline constexpr char type_tag = 0;
}

class Value {
 public:
  Value() = default;
  Value(json j) : v_(std::move(j)) {}  // NOLINT(google-explicit-constructor): JSON is the common case
  /// A value of any other type.
  template <class T>
  static Value of(T value) {
    using D = std::decay_t<T>;
    Value out;
    if constexpr (std::is_same_v<D, json>) {
      out.v_ = std::move(value);
    } else if constexpr (fits_inline<D>) {
      Inline in;
      in.tag = &internal::type_tag<D>;
      in.to_json = [](const Inline& self) -> json {
        if constexpr (std::is_constructible_v<json, const D&>) return json(*self.template get<D>());
        else return json(std::string("<") + typeid(D).name() + ">");
      };
      ::new (static_cast<void*>(in.bytes)) D(std::move(value));
      out.v_ = in;
    } else {
      out.v_ = std::unique_ptr<Box>(new Holder<D>(std::move(value)));
    }
    return out;
  }

  bool is_json() const noexcept { return std::holds_alternative<json>(v_); }
  json& as_json() { return std::get<json>(v_); }
  const json& as_json() const { return std::get<json>(v_); }

  /// A copy (JSON, inline, or a box of a copyable type). Throws: InvalidUpdateError if not copyable.
  Value clone() const {
    Value out;
    if (const json* j = std::get_if<json>(&v_)) out.v_ = *j;
    else if (const Inline* in = std::get_if<Inline>(&v_)) out.v_ = *in;
    else if (const auto& box = std::get<std::unique_ptr<Box>>(v_)) out.v_ = box->clone();
    return out;
  }
  /// The value as JSON (for stream parts and errors): nlohmann's conversion of T when it has
  /// one, else a placeholder naming the type.
  json to_json() const {
    if (const json* j = std::get_if<json>(&v_)) return *j;
    if (const Inline* in = std::get_if<Inline>(&v_)) return in->to_json(*in);
    const auto& box = std::get<std::unique_ptr<Box>>(v_);
    return box ? box->to_json() : json();
  }

  /// The held T. Throws: InvalidUpdateError when the value holds another type.
  template <class T>
  T& as() {
    if constexpr (std::is_same_v<T, json>) {
      if (auto* j = std::get_if<json>(&v_)) return *j;
    } else if constexpr (fits_inline<T>) {
      if (auto* in = std::get_if<Inline>(&v_); in && in->tag == &internal::type_tag<T>) return *in->template get<T>();
    } else if (auto* box = std::get_if<std::unique_ptr<Box>>(&v_)) {
      if (*box && (*box)->tag() == &internal::type_tag<T>) return static_cast<Holder<T>&>(**box).value;
    }
    throw InvalidUpdateError(std::string("a write of another type reached a channel holding ") + typeid(T).name());
  }

 private:
  template <class T>
  static constexpr bool fits_inline = sizeof(T) <= 16 && alignof(T) <= 8 && std::is_trivially_copyable_v<T>;

  struct Inline {
    alignas(8) unsigned char bytes[16];
    const char* tag;
    json (*to_json)(const Inline&);
    template <class T>
    T* get() {
      return std::launder(reinterpret_cast<T*>(bytes));
    }
    template <class T>
    const T* get() const {
      return std::launder(reinterpret_cast<const T*>(bytes));
    }
  };
  struct Box {
    virtual ~Box() = default;
    virtual const char* tag() const noexcept = 0;
    virtual std::unique_ptr<Box> clone() const = 0;
    virtual json to_json() const = 0;
  };
  template <class T>
  struct Holder final : Box {
    explicit Holder(T v) : value(std::move(v)) {}
    const char* tag() const noexcept override { return &internal::type_tag<T>; }
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
  std::variant<json, Inline, std::unique_ptr<Box>> v_;
};

}  // namespace superstep
