#include "superstep/channels/binary_operator_aggregate.hpp"

namespace superstep {

bool is_overwrite(const json& v, const json** inner) noexcept {
  if (!v.is_object() || v.size() != 1) return false;
  auto it = v.find(kOverwriteKey);
  if (it == v.end()) return false;
  if (inner) *inner = &*it;
  return true;
}

BinaryOperatorAggregate::BinaryOperatorAggregate(std::string key, const Reducer& reducer, std::optional<json> initial)
    : ValueChannel<json>(std::move(key)), reducer_name_(reducer.name()), op_(reducer.instantiate()), identity_(reducer.identity()), value_(std::move(initial)) {
  if (value_) op_->reset(*value_);
}

BinaryOperatorAggregate::BinaryOperatorAggregate(const BinaryOperatorAggregate& other)
    : ValueChannel<json>(other.key()),
      reducer_name_(other.reducer_name_),
      op_(other.op_->clone()),
      identity_(other.identity_),
      value_(other.value_) {}

bool BinaryOperatorAggregate::update(std::span<json> writes) {
  if (writes.empty()) return false;
  bool seen_overwrite = false;
  for (json& w : writes) {
    const json* inner = nullptr;
    if (is_overwrite(w, &inner)) {
      if (seen_overwrite)
        throw InvalidUpdateError("at key '" + key() + "': can receive only one Overwrite value per step");
      value_ = *inner;
      op_->reset(*value_);
      stored_len_.reset();
      seen_overwrite = true;
      continue;
    }
    if (seen_overwrite) continue;  // LangGraph: writes after an Overwrite in the same step are dropped
    if (!value_) {
      stored_len_.reset();
      if (!identity_) {
        value_ = std::move(w);
        continue;
      }
      value_ = *identity_;
      op_->reset(*value_);
    }
    try {
      op_->reduce(*value_, std::move(w));
      if (stored_len_ && !(op_->appended() && value_->is_array() && value_->size() >= *stored_len_)) stored_len_.reset();
    } catch (const InvalidUpdateError& e) {
      throw InvalidUpdateError("at key '" + key() + "': " + e.what());
    } catch (const std::exception& e) {
      throw InvalidUpdateError("at key '" + key() + "': reducer '" + reducer_name_ + "' failed: " + e.what());
    }
  }
  return true;
}

void BinaryOperatorAggregate::restore(const std::optional<json>& saved) {
  value_ = saved;
  if (value_) op_->reset(*value_);
  mark_stored();
}

void BinaryOperatorAggregate::restore_moved(json&& saved) {
  value_ = std::move(saved);
  op_->reset(*value_);
  mark_stored();
}

}  // namespace superstep
