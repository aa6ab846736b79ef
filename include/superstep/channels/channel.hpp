// Channel: one slot of graph state or control flow (docs/semantics.md, "Compile"). Every state key is a channel,
// and so is every trigger the compiler adds (branch:to:<node>, join:a+b:c, __start__).
// A channel is owned by one run and used by one thread at a time; clone() copies it.
//
// The interface is split so typed state can reuse the engine: Channel has the operations the
// loop needs whatever the value type (availability, consume, finish, versions live outside),
// ValueChannel<W, R> adds the typed update/read. JSON state uses ValueChannel<json>.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "superstep/value.hpp"
#include "superstep/errors.hpp"
#include "superstep/json.hpp"

namespace superstep {

class Channel {
 public:
  explicit Channel(std::string key) : key_(std::move(key)) {}
  virtual ~Channel() = default;

  /// The state key or internal channel name, used in error messages.
  const std::string& key() const noexcept { return key_; }
  /// The LangGraph class name of the channel ("LastValue", "Topic", ...).
  virtual std::string_view kind() const noexcept = 0;
  /// Whether the channel holds a readable value.
  virtual bool is_available() const noexcept = 0;
  /// Called once per step for channels a task was triggered by. Returns: whether it changed.
  virtual bool consume() { return false; }
  /// Called when the run would otherwise end. Returns: whether it changed.
  virtual bool finish() { return false; }
  /// False for channels that are never checkpointed (UntrackedValue).
  virtual bool tracked() const noexcept { return true; }
  /// An independent copy with the same value.
  virtual std::unique_ptr<Channel> clone() const = 0;
  /// Makes this channel equal to `prototype` without allocating a new channel (runs reuse
  /// channel sets). Requires: `prototype` is of the same class, made by the same graph.
  virtual void reset_to(const Channel& prototype) = 0;
  /// False when reset_to() has nothing to do (the engine then skips the call).
  virtual bool resettable() const noexcept { return true; }
  /// The value to persist, or nullopt when there is nothing to store.
  virtual std::optional<json> checkpoint() const = 0;
  /// Restores what checkpoint() returned. Throws: CheckpointError on a value of the wrong shape.
  virtual void restore(const std::optional<json>& saved) = 0;
  /// restore() from a value the caller gives up: channels holding JSON take it without a copy.
  virtual void restore_moved(json&& saved) { restore(std::optional<json>(std::move(saved))); }
  /// Delta storage: when the value is an array that has only been appended to since the last
  /// mark_stored() (or restore), the length it had then; otherwise nullopt (store it whole).
  virtual std::optional<std::size_t> appended_from() const noexcept { return std::nullopt; }
  /// The current value was stored: appended_from() counts from here.
  virtual void mark_stored() noexcept {}
  /// Applies one step's writes, whatever the channel's value type (the engine's entry point;
  /// ValueChannel<W> unboxes them to W). Returns: whether the channel changed.
  virtual bool update_values(std::span<Value> writes) = 0;

 private:
  std::string key_;
};

/// A channel taking writes of type W and exposing a value of type R.
template <class W, class R = W>
class ValueChannel : public Channel {
 public:
  using Channel::Channel;
  /// Applies one step's writes in task order, moving from them. An empty span is the
  /// "new step, nothing written" notification. Returns: whether the channel changed.
  /// Throws: InvalidUpdateError naming the key when the writes are not acceptable.
  virtual bool update(std::span<W> writes) = 0;
  /// The current value, or nullptr when not available.
  virtual const R* peek() const noexcept = 0;
  bool update_values(std::span<Value> writes) final {
    if (writes.size() == 1) return update(std::span<W>(&writes.front().template as<W>(), 1));
    std::vector<W> unboxed;
    unboxed.reserve(writes.size());
    for (Value& v : writes) unboxed.push_back(std::move(v.template as<W>()));
    return update(std::span<W>(unboxed));
  }
  /// Moves the value out (the run is over). Default: a copy of peek().
  virtual std::optional<R> take() {
    if (const R* v = peek()) return *v;
    return std::nullopt;
  }
  /// The current value. Throws: EmptyChannelError naming the key.
  const R& get() const {
    if (const R* v = peek()) return *v;
    throw EmptyChannelError("channel '" + key() + "' is empty");
  }
};

using JsonChannel = ValueChannel<json>;

namespace internal {
inline std::string preview(const json& v, std::size_t max = 120) {
  std::string s = v.dump();
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}
}  // namespace internal

}  // namespace superstep
