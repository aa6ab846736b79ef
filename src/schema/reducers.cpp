// The built-in reducers. Each folds in place so appending costs O(appended).
// (add_messages is under messages/.)
#include "superstep/errors.hpp"
#include "superstep/schema.hpp"

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

template <class T, class... A>
Reducer::Factory factory(A... args) {
  return [=] { return std::make_unique<T>(args...); };
}

}  // namespace

Reducer::Reducer(Fn fn, std::string name)
    : name_(std::move(name)), factory_([fn = std::move(fn)] { return std::make_unique<FnReducer>(fn); }) {}

Reducer::Reducer(std::string name, Factory factory, std::optional<json> identity, bool append_only)
    : name_(std::move(name)), factory_(std::move(factory)), identity_(std::move(identity)), append_only_(append_only) {}

namespace reducers {
const Reducer add("add", factory<AddReducer>(), std::nullopt, false);
const Reducer append("append", factory<AppendReducer>(false), json::array(), true);
const Reducer concat("concat", factory<AppendReducer>(true), json::array(), true);
const Reducer merge("merge", factory<MergeReducer>(), json::object(), false);
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
