// The built-in reducers. Each folds in place so appending costs O(appended).
#include <unordered_map>

#include "internal/ids.hpp"
#include "superstep/errors.hpp"
#include "superstep/schema.hpp"
#include "superstep/messages/message.hpp"
#include "superstep/typed.hpp"

namespace superstep {
namespace {

std::string type_of(const json& v) { return v.type_name(); }

class FnReducer final : public Reducer::Instance {
 public:
  explicit FnReducer(Reducer::Fn fn) : fn_(std::move(fn)) {}
  void reduce(json& value, json&& update) override { value = fn_(std::move(value), std::move(update)); }
  std::unique_ptr<Instance> clone() const override { return std::make_unique<FnReducer>(fn_); }

 private:
  Reducer::Fn fn_;
};

class AddReducer final : public Reducer::Instance {
 public:
  void reduce(json& value, json&& update) override {
    if (value.is_number_integer() && update.is_number_integer()) {
      value = value.get<int64_t>() + update.get<int64_t>();
    } else if (value.is_number() && update.is_number()) {
      value = value.get<double>() + update.get<double>();
    } else if (value.is_string() && update.is_string()) {
      value.get_ref<std::string&>() += update.get_ref<const std::string&>();
    } else if (value.is_array() && update.is_array()) {
      for (json& item : update) value.push_back(std::move(item));
    } else if (value.is_null()) {
      value = std::move(update);
    } else {
      throw InvalidUpdateError("reducer 'add' cannot add " + type_of(update) + " to " + type_of(value) +
                               " (numbers add, strings and arrays concatenate)");
    }
  }
  std::unique_ptr<Instance> clone() const override { return std::make_unique<AddReducer>(); }
};

class AppendReducer final : public Reducer::Instance {
 public:
  explicit AppendReducer(bool strict) : strict_(strict) {}
  void reduce(json& value, json&& update) override {
    if (value.is_null()) value = json::array();
    if (!value.is_array())
      throw InvalidUpdateError(std::string("reducer '") + (strict_ ? "concat" : "append") +
                               "' needs an array value, the key holds " + type_of(value));
    if (update.is_array()) {
      for (json& item : update) value.push_back(std::move(item));
    } else if (strict_) {
      throw InvalidUpdateError("reducer 'concat' needs an array update, got " + type_of(update));
    } else {
      value.push_back(std::move(update));
    }
  }
  std::unique_ptr<Instance> clone() const override { return std::make_unique<AppendReducer>(strict_); }
  bool appended() const noexcept override { return true; }

 private:
  bool strict_;
};

class MergeReducer final : public Reducer::Instance {
 public:
  void reduce(json& value, json&& update) override {
    if (value.is_null()) value = json::object();
    if (!value.is_object() || !update.is_object())
      throw InvalidUpdateError("reducer 'merge' needs objects, got " + type_of(update) + " into " + type_of(value));
    for (auto& [k, v] : update.items()) value[k] = std::move(v);
  }
  std::unique_ptr<Instance> clone() const override { return std::make_unique<MergeReducer>(); }
};

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

template <class T, class... A>
Reducer::Factory factory(A... args) {
  return [=] { return std::make_unique<T>(args...); };
}

}  // namespace

Reducer::Reducer(Fn fn, std::string name)
    : name_(std::move(name)), factory_([fn = std::move(fn)] { return std::make_unique<FnReducer>(fn); }) {}

Reducer::Reducer(std::string name, Factory factory, std::optional<json> identity, bool append_only)
    : name_(std::move(name)), factory_(std::move(factory)), identity_(std::move(identity)), append_only_(append_only) {}

std::string typed::add_messages::new_message_id() { return internal::uuid4(); }

namespace reducers {
const Reducer add("add", factory<AddReducer>(), std::nullopt, false);
const Reducer append("append", factory<AppendReducer>(false), json::array(), true);
const Reducer concat("concat", factory<AppendReducer>(true), json::array(), true);
const Reducer merge("merge", factory<MergeReducer>(), json::object(), false);
const Reducer add_messages("add_messages", factory<AddMessagesReducer>(), json::array(), false);
}  // namespace reducers

StateSchema& StateSchema::field(std::string name) { return field(FieldSpec{std::move(name), std::nullopt, std::nullopt}); }

StateSchema& StateSchema::field(std::string name, Reducer reducer, std::optional<json> default_value) {
  return field(FieldSpec{std::move(name), std::move(reducer), std::move(default_value)});
}

StateSchema& StateSchema::field(FieldSpec spec) {
  fields_.push_back(std::move(spec));
  return *this;
}

const FieldSpec* StateSchema::find(std::string_view name) const noexcept {
  for (const auto& f : fields_)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace superstep
