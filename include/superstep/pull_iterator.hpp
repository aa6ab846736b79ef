// PullIterator: the iterator of a single-pass range whose source makes its next item on demand
// (Stream's parts, ChatStream's chunks). The source keeps the current item in
// `std::optional<T> current_` (empty at the end) and moves on in `advance()`; it befriends its
// iterator type.
#pragma once

#include <cstddef>
#include <iterator>

namespace superstep {

template <class Source, class T>
class PullIterator {
 public:
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  PullIterator() = default;
  explicit PullIterator(Source* s) : s_(s) {}
  const T& operator*() const { return *s_->current_; }
  const T* operator->() const { return &*s_->current_; }
  PullIterator& operator++() {
    s_->advance();
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(std::default_sentinel_t) const { return !s_ || !s_->current_; }

 private:
  Source* s_ = nullptr;
};

}  // namespace superstep
