// Typed state: a C++ struct as the state schema. Declare the struct's fields and reducers once:
//
//   struct Chat {
//     std::vector<std::string> log;     // defaults come from the member initialisers
//     int turns = 0;
//     std::string answer;
//   };
//   SUPERSTEP_STATE(Chat,
//     SUPERSTEP_FIELD(Chat, log, sp::typed::append{}),
//     SUPERSTEP_FIELD(Chat, turns, sp::typed::add{}),
//     SUPERSTEP_FIELD(Chat, answer));    // no reducer: LastValue
//
// Nodes take `const Chat&` (the step's state, never copied per task) and return an
// `sp::Update<Chat>`; a misspelt field, a value of the wrong type or a reducer that does not fit
// its field fails to compile. Typed graphs run on the same engine as JSON graphs; values are
// converted to JSON (nlohmann's to_json/from_json) only at boundaries: stream parts, checkpoints.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "superstep/json.hpp"
#include "superstep/messages/add_messages.hpp"  // typed::add_messages, the typed messages reducer
#include "superstep/typed_batch.hpp"
#include "superstep/typed_schema.hpp"
#include "superstep/types.hpp"
#include "superstep/value.hpp"

namespace superstep {

/// A typed partial update of S: set any declared field (including to 0, false or empty), or
/// overwrite a reducer field; optionally route like a Command. Checked at compile time.
template <class S>
class Update {
 public:
  Update() = default;
  Update(Update&& other) noexcept : list_(std::move(other.list_)), batch_(std::exchange(other.batch_, nullptr)) {}
  Update& operator=(Update&& other) noexcept {
    list_ = std::move(other.list_);
    batch_ = std::exchange(other.batch_, nullptr);
    return *this;
  }

  /// Sets field M to `v` (folded through the field's reducer, if any). Chains; on a temporary
  /// (`sp::Update<S>().set<...>(...)`) the chain stays an rvalue, so returning it moves.
  template <auto M, class V>
  Update& set(V&& v) & {
    return put<M>(std::forward<V>(v), false);
  }
  template <auto M, class V>
  Update&& set(V&& v) && {
    return std::move(put<M>(std::forward<V>(v), false));
  }
  /// Replaces field M with `v`, bypassing its reducer (sp::Overwrite).
  template <auto M, class V>
  Update& overwrite(V&& v) & {
    return put<M>(std::forward<V>(v), true);
  }
  template <auto M, class V>
  Update&& overwrite(V&& v) && {
    return std::move(put<M>(std::forward<V>(v), true));
  }
  /// Where to go next, in addition to static edges (Command.go_to): names, END, or typed Sends.
  Update& go_to(Route route) & {
    list_.go_to = std::move(route);
    return *this;
  }
  Update&& go_to(Route route) && {
    list_.go_to = std::move(route);
    return std::move(*this);
  }
  /// Engine use.
  internal::WriteList take() && {
    batch_ = nullptr;
    return std::move(list_);
  }

 private:
  template <auto M, class V>
  Update& put(V&& v, bool overwrite) {
    static_assert(std::is_member_object_pointer_v<decltype(M)>, "set<&S::field>: pass a pointer to a data member");
    using Owner = typename internal::member_traits<decltype(M)>::owner;
    static_assert(std::is_same_v<Owner, S>, "set<&X::field>: the field belongs to another struct than this state");
    constexpr std::size_t i = internal::field_index<S, M>();
    static_assert(i < internal::field_count<S>,
                  "set<&S::field>: this member is not declared as a state field in SUPERSTEP_STATE");
    using T = typename internal::FieldAt<S, i>::Type;
    static_assert(std::is_constructible_v<T, V&&>, "set<&S::field>(value): the value's type does not convert to the field's type");
    if (!batch_) {
      list_.batch = internal::TypedBatchOf<S>::make();
      batch_ = static_cast<internal::TypedBatchOf<S>*>(list_.batch.get());
    }
    T value(std::forward<V>(v));
    bool fresh_ids = false;
    using Reducer = typename internal::FieldAt<S, i>::ReducerType;
    if constexpr (requires { Reducer::gives_message_ids; }) {  // typed::add_messages
      // As LangGraph: the ids add_messages gives show in the node's `updates` part too. When
      // every message gets a new one, the reducer may append them without looking them up.
      if (!overwrite) {
        fresh_ids = true;
        for (auto& m : value) {
          if (!m.id.empty()) fresh_ids = false;
          else m.id = Reducer::new_message_id();
        }
      }
    }
    batch_->template put<i>(std::move(value), overwrite, fresh_ids);
    return *this;
  }
  internal::WriteList list_;
  internal::TypedBatchOf<S>* batch_ = nullptr;  // list_.batch, typed
};

/// A Send carrying a typed argument: the target node receives `arg` as its whole state.
template <class S>
Send send(std::string node, S arg) {
  Send s{std::move(node), json()};
  s.typed_arg = std::make_shared<const S>(std::move(arg));
  return s;
}

}  // namespace superstep
