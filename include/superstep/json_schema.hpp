// json_schema_of<T>(): the JSON Schema of a C++ type as it travels as JSON (through nlohmann's
// to_json/from_json): what typed state (TypedStateGraph) reports for its fields in
// CompiledStateGraph::get_state_jsonschema() and the server's `/assistants/{id}/schemas`.
//
//   sp::json_schema_of<std::vector<std::string>>()  // {"type":"array","items":{"type":"string"}}
//   sp::json_schema_of<std::optional<int>>()         // {"anyOf":[{"type":"integer"},{"type":"null"}]}
//
// A struct declared with SUPERSTEP_STATE is an object of its fields (those not std::optional
// required); types it cannot describe (other structs, variants, json) give {} (any value).
#pragma once

#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/typed_schema.hpp"

namespace superstep {

namespace internal {
template <class T>
struct is_sequence : std::false_type {};
template <class T, class A>
struct is_sequence<std::vector<T, A>> : std::true_type {};
template <class T, class A>
struct is_sequence<std::deque<T, A>> : std::true_type {};
template <class T, class A>
struct is_sequence<std::list<T, A>> : std::true_type {};
template <class T, class C, class A>
struct is_sequence<std::set<T, C, A>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class V, class C, class A>
struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};
template <class V, class H, class E, class A>
struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
/// A struct declared with SUPERSTEP_STATE.
template <class S>
concept DeclaredStruct = requires { StateTraits<S>::fields(); };
}  // namespace internal

template <class T>
json json_schema_of();

namespace internal {
template <class S>
json declared_struct_schema() {
  json props = json::object(), required = json::array();
  std::apply(
      [&](const auto&... f) {
        (([&] {
           using Type = typename std::decay_t<decltype(f)>::Type;
           props[std::string(f.name)] = json_schema_of<Type>();
           if (!is_optional<Type>::value) required.push_back(std::string(f.name));
         }()),
         ...);
      },
      StateTraits<S>::fields());
  return json{{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)}};
}
}  // namespace internal

template <class T>
json json_schema_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return json{{"type", "boolean"}};
  } else if constexpr (std::is_integral_v<U>) {
    return json{{"type", "integer"}};
  } else if constexpr (std::is_floating_point_v<U>) {
    return json{{"type", "number"}};
  } else if constexpr (std::is_same_v<U, std::string> || std::is_same_v<U, std::string_view> ||
                       std::is_same_v<U, const char*>) {
    return json{{"type", "string"}};
  } else if constexpr (internal::is_optional<U>::value) {
    return json{{"anyOf", json::array({json_schema_of<typename U::value_type>(), json{{"type", "null"}}})}};
  } else if constexpr (internal::is_sequence<U>::value) {
    json items = json_schema_of<typename U::value_type>();
    return items.empty() ? json{{"type", "array"}} : json{{"type", "array"}, {"items", items}};
  } else if constexpr (internal::is_string_map<U>::value) {
    json values = json_schema_of<typename U::mapped_type>();
    return values.empty() ? json{{"type", "object"}} : json{{"type", "object"}, {"additionalProperties", values}};
  } else if constexpr (internal::DeclaredStruct<U>) {
    return internal::declared_struct_schema<U>();
  } else {
    return json::object();  // json itself, other structs, enums: any value
  }
}

}  // namespace superstep
