// StateSchema: the shape of a JSON state and each key's merge semantics (LangGraph's state
// annotations). A schema is a plain value; it is copied into the graph at construction.
//
//   sp::StateSchema schema;
//   schema.field("messages", sp::reducers::add_messages)
//         .field("total", sp::reducers::add, 0)   // reducer with a default
//         .field("answer");                         // no reducer: LastValue
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/json.hpp"

namespace superstep {

/// Folds one update into a key's current value. Built-ins keep per-channel state (add_messages
/// keeps an id index) so appends cost O(appended), not O(value).
class Reducer {
 public:
  /// The folding step of one channel instance; created fresh per run by `instantiate()`.
  class Instance {
   public:
    virtual ~Instance() = default;
    /// Folds `update` into `value` in place. Throws InvalidUpdateError on a bad update.
    virtual void reduce(json& value, json&& update) = 0;
    /// `value` was replaced wholesale (Overwrite or restore): drop any derived index.
    virtual void reset(const json& value) {}
    /// Whether the last reduce() only appended to an array value (what was there is unchanged),
    /// so persistence may store just the new elements.
    virtual bool appended() const noexcept { return false; }
    virtual std::unique_ptr<Instance> clone() const = 0;
  };
  using Fn = std::function<json(json current, json update)>;
  using Factory = std::function<std::unique_ptr<Instance>()>;

  /// A reducer from a user function `(current, update) -> new value`.
  Reducer(Fn fn, std::string name = "custom");
  /// A reducer from a factory of stateful instances (how the built-ins are made).
  Reducer(std::string name, Factory factory, std::optional<json> identity, bool append_only);

  const std::string& name() const noexcept { return name_; }
  /// The value a key starts with when the schema gives no default (e.g. [] for add_messages).
  const std::optional<json>& identity() const noexcept { return identity_; }
  /// True when the reducer only appends (lets persistence store deltas).
  bool append_only() const noexcept { return append_only_; }
  std::unique_ptr<Instance> instantiate() const { return factory_(); }

 private:
  std::string name_;
  Factory factory_;
  std::optional<json> identity_;
  bool append_only_ = false;
};

namespace reducers {
/// Numbers add (integers stay integers); strings and arrays concatenate.
extern const Reducer add;
/// Arrays: an array update is concatenated, any other update is appended as one element.
extern const Reducer append;
/// Arrays only: the update must be an array and is concatenated.
extern const Reducer concat;
/// Objects: shallow merge, the update's keys win.
extern const Reducer merge;
}  // namespace reducers


/// Which channel a state key is stored in (docs/semantics.md, "Compile"). `automatic` = LastValue without a
/// reducer, BinaryOperatorAggregate with one.
enum class ChannelKind { automatic, last_value, topic, topic_accumulate, ephemeral, any_value, untracked };

/// One state key.
struct FieldSpec {
  std::string name;
  std::optional<Reducer> reducer;
  std::optional<json> default_value;
  ChannelKind kind = ChannelKind::automatic;
};

/// The keys of a JSON state, in declaration order.
class StateSchema {
 public:
  /// A key without reducer (LastValue).
  StateSchema& field(std::string name);
  /// A key with a reducer and optionally a default value.
  StateSchema& field(std::string name, Reducer reducer, std::optional<json> default_value = std::nullopt);
  /// A key with an explicit channel kind, reducer and default.
  StateSchema& field(FieldSpec spec);

  const std::vector<FieldSpec>& fields() const noexcept { return fields_; }
  const FieldSpec* find(std::string_view name) const noexcept;

 private:
  std::vector<FieldSpec> fields_;
};

}  // namespace superstep
