// add_messages: LangGraph's reducer for message lists, for JSON state (sp::reducers::add_messages,
// over LangChain message dicts, strings and OpenAI dicts; messages/message.hpp) and for typed
// state (sp::typed::add_messages, over message structs with a `std::string id`).
//
//   schema.field("messages", sp::reducers::add_messages)
//   SUPERSTEP_FIELD(Chat, messages, sp::typed::add_messages{})
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>

#include "superstep/schema.hpp"

namespace superstep {

namespace reducers {
/// LangGraph's add_messages: coerces messages to LangChain dicts, assigns ids, replaces by id,
/// removes by id (`{"type":"remove","id":...}`), removes all (id kRemoveAllMessages).
extern const Reducer add_messages;
}  // namespace reducers

/// The id that removes every message when used in a remove message.
inline constexpr const char* kRemoveAllMessages = "__remove_all__";

namespace typed {
/// LangGraph's add_messages for a container of message structs with a `std::string id`
/// member: assigns ids to messages without one, replaces a message whose id exists, appends the
/// rest. An update costs O(its messages): an id index over the channel's messages is kept, and
/// brought up to date only when an update carries ids (new ids cannot collide). (Removal: use
/// Update::overwrite with the kept messages.)
struct add_messages {
  template <class V>
  void operator()(V& current, V&& update) const {
    static_assert(requires(typename V::value_type m) { m.id = std::string(); },
                  "sp::typed::add_messages needs a container of messages with a std::string id member");
    if (current.size() < indexed_) reset();
    for (; indexed_ < current.size(); ++indexed_) {
      // As LangGraph's reducer does for both sides: a held message without an id gets one.
      if (current[indexed_].id.empty()) current[indexed_].id = new_message_id();
      index_[current[indexed_].id] = indexed_;
    }
    checked_ = std::max(checked_, indexed_);
    for (auto& m : update) {
      if (m.id.empty()) m.id = new_message_id();
      auto it = index_.find(m.id);
      if (it != index_.end()) {
        current[it->second] = std::move(m);
      } else {
        index_.emplace(m.id, current.size());
        current.push_back(std::move(m));
      }
    }
    indexed_ = checked_ = current.size();
  }
  /// Messages whose ids are all new (given by Update::set): appended without an index lookup;
  /// held messages not seen yet still get ids. The index catches up when an update needs it.
  template <class V>
  void append_fresh(V& current, V&& update) const {
    if (current.size() < checked_) reset();
    for (; checked_ < current.size(); ++checked_)
      if (current[checked_].id.empty()) current[checked_].id = new_message_id();
    for (auto& m : update) current.push_back(std::move(m));
    checked_ = current.size();
  }
  /// The channel's value was replaced (a new run, an Overwrite, a restore): forget the index.
  void reset() const {
    index_.clear();
    indexed_ = checked_ = 0;
  }
  static std::string new_message_id();
  /// Update<S>::set gives the messages their ids (so the node's `updates` part shows them).
  static constexpr bool gives_message_ids = true;
  mutable std::unordered_map<std::string, std::size_t> index_;
  mutable std::size_t indexed_ = 0;
  mutable std::size_t checked_ = 0;  // held messages before this have ids
};
}  // namespace typed

}  // namespace superstep
