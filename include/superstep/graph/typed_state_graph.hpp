// TypedStateGraph<S> and TypedCompiledGraph<S>: StateGraph and CompiledStateGraph for a state
// struct S declared with SUPERSTEP_STATE. Same builder calls, same engine, same semantics;
// nodes take `const S&` and return sp::Update<S>, routers take `const S&`.
//
//   sp::TypedStateGraph<Chat> g;
//   g.add_node("greet", [](const Chat& s) { return sp::Update<Chat>().set<&Chat::turns>(1); });
//   g.add_edge(sp::START, "greet");
//   Chat out = g.compile().invoke(sp::Update<Chat>().set<&Chat::answer>(""));
//
// Thread-safety as the JSON forms: the builder is single-threaded, the compiled graph is
// immutable and may be invoked from many threads at once.
#pragma once

#include <concepts>
#include <type_traits>

#include <array>
#include <functional>
#include <string>
#include <tuple>
#include <utility>

#include "superstep/channels/typed_field.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/channels/typed_model.hpp"
#include "superstep/json_schema.hpp"
#include "superstep/typed.hpp"

namespace superstep {

namespace internal {

template <class S>
class TypedModelOf final : public TypedModel {
  static constexpr std::size_t N = field_count<S>;
  using Idx = std::make_index_sequence<N>;

 public:
  TypedModelOf() : fields_(StateTraits<S>::fields()) {}

  std::vector<std::string> names() const {
    return std::apply([](const auto&... f) { return std::vector<std::string>{std::string(f.name)...}; }, fields_);
  }

  std::vector<std::unique_ptr<Channel>> make_state_channels() const override {
    auto holder = std::make_unique<TypedStateHolder<S>>();
    std::vector<std::unique_ptr<Channel>> out;
    out.reserve(N + 1);
    add_fields(out, holder->value, Idx{});
    out.push_back(std::move(holder));
    return out;
  }
  const void* state(const Channel& holder) const override {
    return &static_cast<const TypedStateHolder<S>&>(holder).value;
  }
  void* mutable_state(Channel& holder) const override { return &static_cast<TypedStateHolder<S>&>(holder).value; }
  std::shared_ptr<const void> fresh_copy(const Channel& holder, std::vector<std::pair<int, Value>> writes) const override {
    auto copy = std::make_shared<S>(static_cast<const TypedStateHolder<S>&>(holder).value);
    std::array<std::vector<Value>, N> grouped;
    for (auto& [i, v] : writes) grouped[i].push_back(std::move(v));
    apply_grouped(*copy, grouped, Idx{});
    return copy;
  }
  bool apply(TypedBatch& batch, Channel* const* channels, uint64_t* versions, uint64_t version) const override {
    return TypedBatchApply<S>::apply(batch, channels, versions, version);
  }
  void apply_together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                      uint64_t version, int& failed) const override {
    TypedBatchApply<S>::apply_together(batches, channels, versions, version, failed);
  }
  json to_json(const void* state) const override {
    json out = json::object();
    to_json_fields(out, *static_cast<const S*>(state), Idx{});
    return out;
  }
  std::vector<std::pair<int, Value>> writes_from_json(const json& input) const override {
    std::vector<std::pair<int, Value>> out;
    from_json_fields(out, input, Idx{});
    return out;
  }
  std::shared_ptr<const void> from_json(const json& state) const override {
    auto s = std::make_shared<S>();
    set_fields(*s, state, Idx{});
    return s;
  }
  json field_schemas() const override {
    json out = json::object();
    schema_fields(out, Idx{});
    return out;
  }

 private:
  template <std::size_t... I>
  void add_fields(std::vector<std::unique_ptr<Channel>>& out, S& s, std::index_sequence<I...>) const {
    (out.push_back(std::make_unique<FieldChannel<S, I>>(std::get<I>(fields_), &(s.*(FieldAt<S, I>::member)))), ...);
  }
  template <std::size_t... I>
  void apply_grouped(S& s, std::array<std::vector<Value>, N>& grouped, std::index_sequence<I...>) const {
    (
        [&] {
          if (!grouped[I].empty()) {
            FieldChannel<S, I> ch(std::get<I>(fields_), &(s.*(FieldAt<S, I>::member)));
            ch.update_values(std::span<Value>(grouped[I]));
          }
        }(),
        ...);
  }
  template <std::size_t... I>
  void to_json_fields(json& out, const S& s, std::index_sequence<I...>) const {
    (
        [&] {
          using T = typename FieldAt<S, I>::Type;
          const auto& f = std::get<I>(fields_);
          if constexpr (std::is_constructible_v<json, const T&>) out[std::string(f.name)] = s.*(FieldAt<S, I>::member);
          else out[std::string(f.name)] = std::string("<") + typeid(T).name() + ">";
        }(),
        ...);
  }
  template <std::size_t... I>
  void schema_fields(json& out, std::index_sequence<I...>) const {
    ((out[std::string(std::get<I>(fields_).name)] = json_schema_of<typename FieldAt<S, I>::Type>()), ...);
  }
  template <std::size_t... I>
  void set_fields(S& s, const json& in, std::index_sequence<I...>) const {
    (
        [&] {
          using T = typename FieldAt<S, I>::Type;
          const auto& f = std::get<I>(fields_);
          auto it = in.find(std::string(f.name));
          if (it == in.end()) return;
          if constexpr (requires(const json& j) { j.template get<T>(); }) {
            try {
              s.*(FieldAt<S, I>::member) = it->template get<T>();
            } catch (const json::exception& e) {
              throw InvalidUpdateError("field '" + std::string(f.name) + "' does not convert to its type: " + e.what());
            }
          } else {
            throw InvalidUpdateError("field '" + std::string(f.name) + "': the field's type has no from_json");
          }
        }(),
        ...);
  }
  template <std::size_t... I>
  void from_json_fields(std::vector<std::pair<int, Value>>& out, const json& in, std::index_sequence<I...>) const {
    (
        [&] {
          using T = typename FieldAt<S, I>::Type;
          const auto& f = std::get<I>(fields_);
          auto it = in.find(std::string(f.name));
          if (it == in.end()) return;
          if constexpr (requires(const json& j) { j.template get<T>(); }) {
            try {
              out.emplace_back(static_cast<int>(I), Value::of(FieldWrite<T>{it->template get<T>(), false}));
            } catch (const json::exception& e) {
              throw InvalidUpdateError("input key '" + std::string(f.name) + "' does not convert to the field's type: " +
                                       e.what());
            }
          } else {
            throw InvalidUpdateError("input key '" + std::string(f.name) + "': the field's type has no from_json");
          }
        }(),
        ...);
  }

  FieldsOf<S> fields_;
};

template <class S>
StateSchema typed_schema(const TypedModelOf<S>& model) {
  StateSchema schema;
  for (auto& name : model.names()) schema.field(name);
  return schema;
}

}  // namespace internal

template <class S>
class TypedCompiledGraph {
 public:
  explicit TypedCompiledGraph(CompiledStateGraph graph) : graph_(std::move(graph)) {}

  /// Runs to the end; returns the final state struct.
  S invoke(Update<S> input = {}, const RunConfig& config = {}) const {
    S out{};
    graph_.invoke_typed(std::move(input).take(), config, [&](void* state) { out = std::move(*static_cast<S*>(state)); });
    return out;
  }
  /// A Command: applies Command.update and routes; with a checkpointer, on config's thread, also
  /// resumes interrupts.
  /// (Templates so that `invoke({}, config)` still means an empty Update<S>.)
  template <class C>
    requires std::same_as<std::remove_cvref_t<C>, Command>
  S invoke(const C& input, const RunConfig& config) const {
    S out{};
    graph_.invoke_typed(&input, config, [&](void* state) { out = std::move(*static_cast<S*>(state)); });
    return out;
  }
  /// With a checkpointer: continues the thread (after interrupt_before/after, a failure or a crash).
  template <class N>
    requires std::same_as<N, std::nullptr_t>
  S invoke(N, const RunConfig& config) const {
    S out{};
    graph_.invoke_typed(nullptr, config, [&](void* state) { out = std::move(*static_cast<S*>(state)); });
    return out;
  }
  /// The thread's snapshot (values as JSON), its history and update_state: see CompiledStateGraph.
  StateSnapshot get_state(const RunConfig& config) const { return graph_.get_state(config); }
  std::vector<StateSnapshot> get_state_history(const RunConfig& config) const { return graph_.get_state_history(config); }
  RunConfig update_state(const RunConfig& config, const json& values, const std::string& as_node = "") const {
    return graph_.update_state(config, values, as_node);
  }
  /// Streams like CompiledStateGraph::stream; parts carry JSON renderings of the typed values.
  Stream stream(Update<S> input = {}, const RunConfig& config = {},
                std::vector<StreamMode> modes = {StreamMode::updates}) const {
    return graph_.stream_typed(std::move(input).take(), config, std::move(modes));
  }
  /// The untyped face: get_graph(), warnings(), and invoke/stream with JSON in and out.
  const CompiledStateGraph& json_graph() const noexcept { return graph_; }
  DrawableGraph get_graph() const { return graph_.get_graph(); }

 private:
  CompiledStateGraph graph_;
};

template <class S>
class TypedStateGraph {
 public:
  TypedStateGraph() : model_(std::make_shared<internal::TypedModelOf<S>>()), g_(internal::typed_schema(*model_)) {
    g_.use_typed_state(model_);
  }

  /// A node: callable as f(const S&, Runtime&) or f(const S&), returning sp::Update<S>,
  /// void, or sp::Task<sp::Update<S>> (a coroutine).
  template <class F>
  TypedStateGraph& add_node(std::string name, F f, NodeOptions options = {}) {
    g_.add_node(std::move(name), adapt_node(std::move(f)), std::move(options));
    return *this;
  }
  template <class From>
    requires std::convertible_to<From, std::string_view>
  TypedStateGraph& add_edge(From&& from, std::string to) {
    g_.add_edge(std::forward<From>(from), std::move(to));
    return *this;
  }
  TypedStateGraph& add_edge(std::vector<std::string> from, std::string to) {
    g_.add_edge(std::move(from), std::move(to));
    return *this;
  }
  /// A router: callable as f(const S&) or f(const S&, Runtime&), returning a Route.
  template <class F>
  TypedStateGraph& add_conditional_edges(std::string from, F router, PathMap path_map = {}) {
    g_.add_conditional_edges(std::move(from), adapt_router(std::move(router)), std::move(path_map));
    return *this;
  }
  TypedStateGraph& set_entry_point(std::string node) {
    g_.set_entry_point(std::move(node));
    return *this;
  }
  template <class F>
  TypedStateGraph& set_conditional_entry_point(F router, PathMap path_map = {}) {
    g_.set_conditional_entry_point(adapt_router(std::move(router)), std::move(path_map));
    return *this;
  }
  TypedStateGraph& set_finish_point(std::string node) {
    g_.set_finish_point(std::move(node));
    return *this;
  }
  TypedCompiledGraph<S> compile(CompileOptions options = {}) const { return TypedCompiledGraph<S>(g_.compile(std::move(options))); }

 private:
  template <class F>
  static NodeFn adapt_node(F f) {
    constexpr bool with_rt = std::is_invocable_v<F&, const S&, Runtime&>;
    static_assert(with_rt || std::is_invocable_v<F&, const S&>,
                  "a typed node must be callable as f(const S&, Runtime&) or f(const S&)");
    auto call = [f = std::move(f)](const State& st, Runtime& rt) mutable -> decltype(auto) {
      if constexpr (with_rt) return f(st.typed<S>(), rt);
      else return f(st.typed<S>());
    };
    using R = decltype(call(std::declval<const State&>(), std::declval<Runtime&>()));
    if constexpr (std::is_same_v<R, Task<Update<S>>>) {
      return NodeFn([call = std::move(call)](const State& st, Runtime& rt) mutable -> Task<NodeResult> {
        Update<S> u = co_await call(st, rt);
        co_return NodeResult(std::move(u).take());
      });
    } else if constexpr (std::is_void_v<R>) {
      return NodeFn([call = std::move(call)](const State& st, Runtime& rt) mutable -> NodeResult {
        call(st, rt);
        return {};
      });
    } else {
      static_assert(std::is_same_v<R, Update<S>>, "a typed node must return sp::Update<S>, void or sp::Task<sp::Update<S>>");
      return NodeFn([call = std::move(call)](const State& st, Runtime& rt) mutable -> NodeResult {
        return NodeResult(call(st, rt).take());
      });
    }
  }
  template <class F>
  static RouterFn adapt_router(F f) {
    if constexpr (std::is_invocable_v<F&, const S&, Runtime&>) {
      return RouterFn([f = std::move(f)](const State& st, Runtime& rt) mutable { return Route(f(st.typed<S>(), rt)); });
    } else {
      static_assert(std::is_invocable_v<F&, const S&>, "a typed router must be callable as f(const S&) or f(const S&, Runtime&)");
      return RouterFn([f = std::move(f)](const State& st) mutable { return Route(f(st.typed<S>())); });
    }
  }

  std::shared_ptr<internal::TypedModelOf<S>> model_;
  StateGraph g_;
};

}  // namespace superstep
