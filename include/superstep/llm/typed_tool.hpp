// typed_tool: a Tool whose arguments are a C++ struct. The JSON schema the model sees is derived
// from the struct's declared fields (SUPERSTEP_STATE; reducers are ignored), and the function
// receives the arguments already converted:
//
//   struct WeatherArgs { std::string city; std::optional<std::string> unit; int days = 1; };
//   SUPERSTEP_STATE(WeatherArgs, SUPERSTEP_FIELD(WeatherArgs, city), SUPERSTEP_FIELD(WeatherArgs, unit),
//                   SUPERSTEP_FIELD(WeatherArgs, days));
//   sp::Tool weather = sp::typed_tool<WeatherArgs>("weather", "Forecast for a city.",
//       [](const WeatherArgs& a) -> json { return "sunny in " + a.city; },
//       {{"city", "the city's name"}, {"unit", "celsius or fahrenheit"}});
//
// Types: bool -> boolean, integers -> integer, floating point -> number, std::string -> string,
// std::vector<T> -> array of T, std::optional<T> -> T and not required, a struct declared with
// SUPERSTEP_STATE -> a nested object. Every other field is required.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "superstep/json_schema.hpp"
#include "superstep/llm/tool.hpp"
#include "superstep/typed.hpp"

namespace superstep {
namespace internal {

template <class T>
json schema_of(const std::map<std::string, std::string>& descriptions = {});

template <class S>
json object_schema(const std::map<std::string, std::string>& descriptions) {
  json props = json::object();
  json required = json::array();
  std::apply(
      [&](const auto&... f) {
        (([&] {
           using Type = typename std::decay_t<decltype(f)>::Type;
           std::string name(f.name);
           json s = schema_of<Type>();
           if (auto d = descriptions.find(name); d != descriptions.end()) s["description"] = d->second;
           props[name] = std::move(s);
           if (!is_optional<Type>::value) required.push_back(name);
         }()),
         ...);
      },
      StateTraits<S>::fields());
  return json{{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)},
              {"additionalProperties", false}};
}

template <class T>
json schema_of(const std::map<std::string, std::string>& descriptions) {
  // A tool's optional argument is one the model may leave out (not required), not a null.
  if constexpr (is_optional<T>::value) return schema_of<typename T::value_type>();
  else if constexpr (std::is_arithmetic_v<T> || std::is_convertible_v<T, std::string>) return json_schema_of<T>();
  else if constexpr (is_sequence<T>::value) return json{{"type", "array"}, {"items", schema_of<typename T::value_type>()}};
  else if constexpr (DeclaredStruct<T>) return object_schema<T>(descriptions);
  else static_assert(sizeof(T) == 0, "typed_tool: no JSON schema for this field type");
}

template <class T>
T from_args(const json& j);

template <class S>
S struct_from_args(const json& j) {
  S out{};
  std::apply(
      [&](const auto&... f) {
        (([&] {
           using Type = typename std::decay_t<decltype(f)>::Type;
           auto it = j.find(std::string(f.name));
           if (it != j.end() && !it->is_null()) out.*(std::decay_t<decltype(f)>::member) = from_args<Type>(*it);
         }()),
         ...);
      },
      StateTraits<S>::fields());
  return out;
}

template <class T>
T from_args(const json& j) {
  if constexpr (is_optional<T>::value) return j.is_null() ? T{} : T{from_args<typename T::value_type>(j)};
  else if constexpr (is_sequence<T>::value) {
    T out;
    for (const json& e : j) out.insert(out.end(), from_args<typename T::value_type>(e));
    return out;
  } else if constexpr (DeclaredStruct<T>) return struct_from_args<T>(j);
  else return j.get<T>();
}

}  // namespace internal

/// See the header comment. `fn(const Args&)` returns the tool's result as JSON.
template <class Args, class F>
Tool typed_tool(std::string name, std::string description, F fn, std::map<std::string, std::string> descriptions = {}) {
  static_assert(internal::DeclaredStruct<Args>, "typed_tool: declare the argument struct with SUPERSTEP_STATE");
  json schema = internal::object_schema<Args>(descriptions);
  return Tool(std::move(name), std::move(description), std::move(schema),
              Tool::Fn([fn = std::move(fn)](const json& args) -> json { return fn(internal::struct_from_args<Args>(args)); }));
}

}  // namespace superstep
