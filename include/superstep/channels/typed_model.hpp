// TypedModel: what the engine needs to know about a typed state struct and its field channels,
// behind a non-template interface so the engine (compiled once) runs every S. Made by
// TypedStateGraph<S>; not for direct use.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/value.hpp"
#include "superstep/json.hpp"
#include "superstep/types.hpp"

namespace superstep::internal {

class TypedModel {
 public:
  virtual ~TypedModel() = default;
  /// The field channels (index i = field i), then the holder owning a default struct.
  virtual std::vector<std::unique_ptr<Channel>> make_state_channels() const = 0;
  /// The struct a holder owns.
  virtual const void* state(const Channel& holder) const = 0;
  virtual void* mutable_state(Channel& holder) const = 0;
  /// A copy of the holder's struct with `writes` (field index, value) folded in, for a router's
  /// fresh view when other tasks of the step wrote too.
  virtual std::shared_ptr<const void> fresh_copy(const Channel& holder,
                                                 std::vector<std::pair<int, Value>> writes) const = 0;
  /// The struct as a JSON object (stream parts): each field through nlohmann's to_json.
  virtual json to_json(const void* state) const = 0;
  /// Folds a JSON input object (field name -> value) into writes, through from_json.
  virtual std::vector<std::pair<int, Value>> writes_from_json(const json& input) const = 0;
  /// A struct from its to_json() form (fields absent from `state` keep their defaults), as a
  /// stored Send's argument. Throws: InvalidUpdateError naming a field that does not convert.
  virtual std::shared_ptr<const void> from_json(const json& state) const = 0;
  /// Folds a typed node's batch (an Update<S>'s TypedBatchOf<S>) straight into the field
  /// channels (`channels[i]` is field i's channel) and sets `versions[i] = version` for each
  /// field that changed (field channels are never triggers nor volatile, so that is all a bump
  /// is). Returns false, having done nothing, when it cannot (a reducer field set twice): the
  /// engine explodes the batch into writes then.
  virtual bool apply(TypedBatch& batch, Channel* const* channels, uint64_t* versions, uint64_t version) const = 0;
  /// The several tasks of a step: folds `batches` (in task order) into the field channels, all
  /// writes of a field in one update, as apply(). When a channel rejects its writes, `failed`
  /// names the field (its writers still report writes(failed)) and the error propagates.
  virtual void apply_together(std::span<TypedBatch* const> batches, Channel* const* channels, uint64_t* versions,
                              uint64_t version, int& failed) const = 0;
  /// JSON Schema of each field (name -> schema), from its C++ type (json_schema.hpp).
  virtual json field_schemas() const { return json::object(); }
};

}  // namespace superstep::internal
