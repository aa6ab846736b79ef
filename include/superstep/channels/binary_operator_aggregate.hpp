// BinaryOperatorAggregate: a key with a reducer. Folds the step's writes into the value in task
// order. A write of Overwrite{v} ({"__overwrite__": v}) replaces the value; two Overwrites in
// one step are an error, and writes after an Overwrite in the same step are ignored (as in
// LangGraph).
#pragma once

#include "superstep/channels/channel.hpp"
#include "superstep/schema.hpp"
#include "superstep/types.hpp"

namespace superstep {

class BinaryOperatorAggregate : public ValueChannel<json> {
 public:
  /// `initial` is the schema default; without one the key is empty until its first write (as a
  /// LangGraph annotation without `default`), which is folded into the reducer's identity (so
  /// add_messages gives it ids) or, for a reducer without one, taken as it is.
  BinaryOperatorAggregate(std::string key, const Reducer& reducer, std::optional<json> initial);
  BinaryOperatorAggregate(const BinaryOperatorAggregate& other);

  std::string_view kind() const noexcept override { return "BinaryOperatorAggregate"; }
  bool is_available() const noexcept override { return value_.has_value(); }
  bool update(std::span<json> writes) override;
  const json* peek() const noexcept override { return value_ ? &*value_ : nullptr; }
  std::optional<json> take() override {
    op_->reset(json());
    stored_len_.reset();
    return std::exchange(value_, std::nullopt);
  }
  std::unique_ptr<Channel> clone() const override { return std::make_unique<BinaryOperatorAggregate>(*this); }
  void reset_to(const Channel& prototype) override {
    value_ = static_cast<const BinaryOperatorAggregate&>(prototype).value_;
    op_->reset(value_ ? *value_ : json());
    stored_len_.reset();
  }
  std::optional<json> checkpoint() const override { return value_; }
  void restore(const std::optional<json>& saved) override;
  void restore_moved(json&& saved) override;
  std::optional<std::size_t> appended_from() const noexcept override {
    return value_ && value_->is_array() ? stored_len_ : std::nullopt;
  }
  void mark_stored() noexcept override {
    stored_len_ = value_ && value_->is_array() ? std::optional<std::size_t>(value_->size()) : std::nullopt;
  }
  const std::string& reducer_name() const noexcept { return reducer_name_; }

 private:
  std::string reducer_name_;
  std::unique_ptr<Reducer::Instance> op_;
  std::optional<json> identity_;
  std::optional<json> value_;
  std::optional<std::size_t> stored_len_;  // length at the last mark_stored(), while only appended to
};

/// Whether `v` is the JSON form of Overwrite; sets *inner to its value when so.
bool is_overwrite(const json& v, const json** inner = nullptr) noexcept;

}  // namespace superstep
