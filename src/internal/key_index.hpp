// KeyIndex: name -> dense id, for the state keys a node writes (looked up once per written key,
// the hottest lookup of a run). Open addressing over a power-of-two table with an inline FNV-1a
// hash: no division, no allocation on lookup. Immutable after construction; thread-safe to read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::internal {

class KeyIndex {
 public:
  /// Adds `name` with `id`. Requires: `name` not yet present.
  void insert(std::string name, int id) {
    const uint64_t h = hash(name);
    entries_.push_back({std::move(name), id, h});
    rebuild();
  }
  /// The id of `name`, or -1.
  int find(std::string_view name) const noexcept {
    if (slots_.empty()) return -1;
    const uint64_t h = hash(name);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      int e = slots_[i];
      if (e < 0) return -1;
      const Entry& entry = entries_[e];
      if (entry.hash == h && entry.name == name) return entry.id;
    }
  }

 private:
  struct Entry {
    std::string name;
    int id;
    uint64_t hash;
  };
  static uint64_t hash(std::string_view s) noexcept {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h ^ (h >> 29);
  }
  void rebuild() {
    std::size_t cap = 8;
    while (cap < entries_.size() * 2) cap *= 2;
    slots_.assign(cap, -1);
    mask_ = cap - 1;
    for (std::size_t e = 0; e < entries_.size(); ++e) {
      std::size_t i = entries_[e].hash & mask_;
      while (slots_[i] >= 0) i = (i + 1) & mask_;
      slots_[i] = static_cast<int>(e);
    }
  }
  std::vector<Entry> entries_;
  std::vector<int> slots_;
  std::size_t mask_ = 0;
};

}  // namespace superstep::internal
