// Open-addressing hash tables over flat arrays (linear probing, power-of-two
// capacity). Hot paths of the graph builder look up (key, value) pairs tens of
// millions of times; std::unordered_map's node allocations would dominate.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace isocheck {

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline size_t table_capacity(size_t n) {
  size_t cap = 16;
  while (cap < n + n / 2 + 1) cap <<= 1;  // load factor <= 2/3
  return cap;
}

// Maps a 64-bit key to a 64-bit payload. kEmpty marks free slots, so that
// one key (~0: the integer key -1 of an integer-mode table) lives in a slot
// of its own beside the table.
class FlatMap64 {
 public:
  static constexpr uint64_t kEmpty = ~0ULL;
  explicit FlatMap64(size_t expected = 0) { rebuild(table_capacity(expected)); }
  // Returns the payload slot for key, inserting `init` if absent; `inserted` tells which.
  uint64_t& get_or_insert(uint64_t key, uint64_t init, bool& inserted) {
    if (key == kEmpty) {
      inserted = !has_empty_key_;
      if (inserted) has_empty_key_ = true, empty_key_value_ = init;
      return empty_key_value_;
    }
    if ((size_ + 1) * 3 > keys_.size() * 2) rebuild(keys_.size() * 2);
    size_t m = keys_.size() - 1, i = mix64(key) & m;
    while (keys_[i] != kEmpty) {
      if (keys_[i] == key) { inserted = false; return vals_[i]; }
      i = (i + 1) & m;
    }
    keys_[i] = key;
    vals_[i] = init;
    ++size_;
    inserted = true;
    return vals_[i];
  }
  const uint64_t* find(uint64_t key) const {
    if (key == kEmpty) return has_empty_key_ ? &empty_key_value_ : nullptr;
    size_t m = keys_.size() - 1, i = mix64(key) & m;
    while (keys_[i] != kEmpty) {
      if (keys_[i] == key) return &vals_[i];
      i = (i + 1) & m;
    }
    return nullptr;
  }
  uint64_t* find(uint64_t key) { return const_cast<uint64_t*>(static_cast<const FlatMap64*>(this)->find(key)); }
  size_t size() const { return size_ + has_empty_key_; }
  template <class F> void for_each(F&& f) const {
    for (size_t i = 0; i < keys_.size(); ++i) if (keys_[i] != kEmpty) f(keys_[i], vals_[i]);
    if (has_empty_key_) f(kEmpty, empty_key_value_);
  }
  size_t bytes() const { return keys_.capacity() * 16; }

 private:
  void rebuild(size_t cap) {
    std::vector<uint64_t> ok = std::move(keys_), ov = std::move(vals_);
    keys_.assign(cap, kEmpty);
    vals_.assign(cap, 0);
    size_ = 0;
    size_t m = cap - 1;
    for (size_t j = 0; j < ok.size(); ++j) {
      if (ok[j] == kEmpty) continue;
      size_t i = mix64(ok[j]) & m;
      while (keys_[i] != kEmpty) i = (i + 1) & m;
      keys_[i] = ok[j];
      vals_[i] = ov[j];
      ++size_;
    }
  }
  std::vector<uint64_t> keys_, vals_;
  size_t size_ = 0;
  bool has_empty_key_ = false;
  uint64_t empty_key_value_ = 0;
};

}  // namespace isocheck
