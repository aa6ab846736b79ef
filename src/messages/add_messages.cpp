// add_messages (messages/add_messages.hpp): the JSON reducer, which coerces through the message
// types (message.hpp), and the typed reducer's ids.
#include "superstep/messages/add_messages.hpp"

#include <unordered_map>

#include "internal/ids.hpp"
#include "superstep/errors.hpp"
#include "superstep/messages/message.hpp"

namespace superstep {
namespace {

std::string type_of(const json& v) { return v.type_name(); }

// add_messages keeps an id -> position index of the value so an update costs O(its messages)
// unless it removes messages (then the list is compacted once, O(n)).
class AddMessagesReducer final : public Reducer::Instance {
 public:
  void reduce(json& value, json&& update) override {
    if (value.is_null()) value = json::array();
    if (!value.is_array()) {
      // As LangGraph: a single message held is a list of one (coerced and given an id below).
      value = json::array({std::move(value)});
      reset(value);
    }
    json incoming = std::move(update);
    if (!incoming.is_array()) incoming = json::array({std::move(incoming)});
    for (json& m : incoming) coerce(m);
    appended_ = true;  // until a message is replaced or removed

    // A remove-all message drops everything before it (in the value and in the update).
    std::size_t first = 0;
    for (std::size_t i = incoming.size(); i-- > 0;) {
      if (is_remove(incoming[i]) && incoming[i]["id"] == kRemoveAllMessages) {
        first = i + 1;
        value = json::array();
        index_.clear();
        indexed_ = 0;
        appended_ = false;
        break;
      }
    }
    if (!sync_index(value)) appended_ = false;
    bool removed = false;
    std::vector<char> remove_mark;
    for (std::size_t i = first; i < incoming.size(); ++i) {
      json& m = incoming[i];
      const std::string& id = m["id"].get_ref<const std::string&>();
      auto it = index_.find(id);
      if (it != index_.end()) {
        if (is_remove(m)) {
          if (remove_mark.empty()) remove_mark.assign(value.size(), 0);
          remove_mark[it->second] = 1;
          removed = true;
        } else {
          if (!remove_mark.empty()) remove_mark[it->second] = 0;
          value[it->second] = std::move(m);
          appended_ = false;
        }
      } else {
        if (is_remove(m))
          throw InvalidUpdateError("add_messages: cannot remove message with id '" + id + "': no message has that id");
        index_.emplace(id, value.size());
        value.push_back(std::move(m));
        if (!remove_mark.empty()) remove_mark.push_back(0);
      }
    }
    indexed_ = value.size();
    if (removed) {
      appended_ = false;
      json kept = json::array();
      for (std::size_t i = 0; i < value.size(); ++i)
        if (i >= remove_mark.size() || !remove_mark[i]) kept.push_back(std::move(value[i]));
      value = std::move(kept);
      index_.clear();
      indexed_ = 0;
      sync_index(value);
    }
  }
  void reset(const json&) override {
    index_.clear();
    indexed_ = 0;
  }
  std::unique_ptr<Instance> clone() const override { return std::make_unique<AddMessagesReducer>(*this); }
  bool appended() const noexcept override { return appended_; }

 private:
  bool appended_ = false;
  static bool is_remove(const json& m) {
    auto it = m.find("type");
    return it != m.end() && *it == "remove";
  }
  static void coerce(json& m) {
    if (!m.is_object() && !m.is_string() && !m.is_array())
      throw InvalidUpdateError("add_messages: a message must be an object or a string, got " + type_of(m));
    internal::coerce_message(m);  // strings, [role, content] pairs and OpenAI dicts become LangChain dicts
    auto id = m.find("id");
    if (id == m.end() || id->is_null()) m["id"] = internal::uuid4();
    else if (!id->is_string()) m["id"] = id->dump();
  }
  /// Indexes the messages of `value` not indexed yet. As LangGraph's reducer does for both
  /// sides, a held message that is not a message dict yet is coerced, and one without an id gets
  /// one. Returns false when it changed a held message that way.
  bool sync_index(json& value) {
    if (indexed_ > value.size()) {
      index_.clear();
      indexed_ = 0;
    }
    bool unchanged = true;
    for (; indexed_ < value.size(); ++indexed_) {
      json& m = value[indexed_];
      auto id = m.is_object() ? m.find("id") : m.end();
      if (id == m.end() || !id->is_string()) {
        coerce(m);
        unchanged = false;
        id = m.find("id");
      }
      index_[id->get<std::string>()] = indexed_;
    }
    return unchanged;
  }
  std::unordered_map<std::string, std::size_t> index_;
  std::size_t indexed_ = 0;
};

}  // namespace

std::string typed::add_messages::new_message_id() { return internal::uuid4(); }

namespace reducers {
const Reducer add_messages("add_messages", [] { return std::make_unique<AddMessagesReducer>(); }, json::array(), false);
}  // namespace reducers

}  // namespace superstep
