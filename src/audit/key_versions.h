// Key -> version: the summary entries waiting outside the carry
// (docs/audit.md, "The two forgetting rules", step 4). With named keys (every
// fenced HDF5 log: the fence key is a string) key symbols are the rows of one
// table, so the map is a plain array indexed by symbol: a round touching
// 2·10^5 of 10^6 keys does array reads, not hash probes. Other keys (integer
// mode, a JSONL carry's growing table) go to a hash map, and the array grows
// over them while it stays small for what it holds: integer keys 0..10^7 of a
// day log end up in 9 bytes a key and one cache miss a lookup, where the hash
// map took 27 and two.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/history.h"
#include "core/flat_hash.h"

namespace isocheck {

class KeyVersions {
 public:
  // Keys below n are kept in the array (call while empty).
  void make_dense(size_t n) {
    version_.assign(n, 0);
    present_.assign(n, 0);
  }
  size_t size() const { return size_; }
  // nullptr when absent. The key ~0 (integer key -1) is never stored.
  const Sym* find(Sym k) const {
    if (k < present_.size()) return present_[k] ? &version_[k] : nullptr;
    return k == FlatMap64::kEmpty ? nullptr : hashed_.find(k);
  }
  // Keys of a day log are spread over 10^7 slots: loops over a round's keys
  // prefetch a few keys ahead (each lookup is otherwise a cache miss).
  void prefetch(Sym k) const {
    if (k < present_.size()) {
      __builtin_prefetch(&present_[k]);
      __builtin_prefetch(&version_[k]);
    }
  }
  // Collecting a round's keys that wait here, each once: true the first
  // time k is asked since the last unmark(k), when k is held. Array keys
  // carry the mark in their presence byte (the lookup already loads it);
  // hashed keys are remembered in `asked`.
  bool take_first(Sym k, FlatMap64& asked) {
    if (k < present_.size()) {
      if (present_[k] != 1) return false;  // 0: absent, 2: asked already
      present_[k] = 2;
      return true;
    }
    if (k == FlatMap64::kEmpty || !hashed_.find(k)) return false;
    bool ins;
    asked.get_or_insert(k, 0, ins);
    return ins;
  }
  void unmark(Sym k) {
    if (k < present_.size() && present_[k] == 2) present_[k] = 1;
  }
  void set(Sym k, Sym v) {
    if (k >= present_.size() && k != FlatMap64::kEmpty) grow_for(k);
    if (k < present_.size()) {
      size_ += !present_[k];
      present_[k] = 1;
      version_[k] = v;
      return;
    }
    bool ins;
    hashed_.get_or_insert(k, 0, ins) = v;
    size_ += ins;
  }
  template <class F> void for_each(F&& f) const {
    for (size_t k = 0; k < present_.size(); ++k)
      if (present_[k]) f(Sym{k}, version_[k]);
    hashed_.for_each(f);
  }

 private:
  // Array slots cost 9 bytes, hash entries about 27: the array covers key k
  // when its new length (a power of two) is at most 3 slots per entry held,
  // or 2^20. Entries of the hash map now below the length move into it.
  void grow_for(Sym k) {
    constexpr uint64_t kFloor = uint64_t{1} << 20;
    if (k >= (uint64_t{1} << 40)) return;
    uint64_t n = std::max<uint64_t>(present_.size(), 1024);
    while (n <= k) n <<= 1;
    if (n > std::max<uint64_t>(kFloor, 3 * (uint64_t{size_} + 1))) return;
    version_.resize(n, 0);
    present_.resize(n, 0);
    if (hashed_.size() == 0) return;
    FlatMap64 rest{hashed_.size()};  // (sized once: no rehash while refilling)
    hashed_.for_each([&](uint64_t key, uint64_t val) {
      if (key < n) {
        present_[key] = 1, version_[key] = val;
      } else {
        bool ins;
        rest.get_or_insert(key, 0, ins) = val;
      }
    });
    hashed_ = std::move(rest);
  }
  std::vector<Sym> version_;      // by key symbol, below present_.size()
  // 0 absent, 1 held, 2 held and marked (take_first). (Any Sym is a possible
  // version: presence cannot be a marker value in version_.)
  std::vector<uint8_t> present_;
  FlatMap64 hashed_{1 << 12};
  size_t size_ = 0;
};

}  // namespace isocheck
