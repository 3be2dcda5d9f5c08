// Open-addressing hash tables over flat arrays (linear probing, power-of-two
// capacity). Hot paths of the graph builder look up (key, value) pairs tens of
// millions of times; std::unordered_map's node allocations would dominate.
#pragma once
#include <algorithm>
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

// A 64-bit key's state V inline in its slot, created with `init` on first
// access: one probe touches one cache line, and callers prefetch the next
// keys' slots while the current one is compared (the replays' tables: the
// latest value per key, a key's snapshot state). Grows at 2/3 load; the key
// ~0, which marks free slots, has a state of its own beside the table.
template <class V>
class InlineStateMap {
 public:
  InlineStateMap(size_t expected, V init) : init_(init), empty_key_state_(init) {
    slots_.assign(table_capacity(expected), Slot{kEmpty, init_});
  }
  void prefetch(uint64_t k) const { __builtin_prefetch(&slots_[mix64(k) & (slots_.size() - 1)]); }
  V& at(uint64_t k) {
    if (k == kEmpty) return empty_key_state_;
    size_t m = slots_.size() - 1, i = mix64(k) & m;
    while (slots_[i].key != k) {
      if (slots_[i].key == kEmpty) {
        if ((used_ + 1) * 3 > slots_.size() * 2) {
          grow();
          return at(k);
        }
        ++used_;
        slots_[i].key = k;
        return slots_[i].state;
      }
      i = (i + 1) & m;
    }
    return slots_[i].state;
  }

 private:
  static constexpr uint64_t kEmpty = ~0ULL;
  struct Slot {
    uint64_t key;
    V state;
  };
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{kEmpty, init_});
    const size_t m = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = mix64(s.key) & m;
      while (slots_[i].key != kEmpty) i = (i + 1) & m;
      slots_[i] = s;
    }
  }
  V init_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  V empty_key_state_;
};

// Per-key state where keys are mostly small non-negative integers (integer
// keys usually are, named keys are row numbers): an array for keys below
// `direct`, a hash map for the rest, sized for `others` keys and grown as
// needed — a generated plant's few huge keys must not push every key into a
// map (whose misses then dominate a replay).
template <class V>
class KeyStates {
 public:
  KeyStates(size_t direct, size_t others, V init) : direct_(direct, init), rest_(std::max<size_t>(16, others), init) {}
  void prefetch(uint64_t k) const {
    if (k < direct_.size()) __builtin_prefetch(&direct_[k]);
    else rest_.prefetch(k);
  }
  V& at(uint64_t k) { return k < direct_.size() ? direct_[k] : rest_.at(k); }

 private:
  std::vector<V> direct_;
  InlineStateMap<V> rest_;
};

}  // namespace isocheck
