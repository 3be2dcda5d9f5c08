#include "audit/written.h"

#include <algorithm>
#include <charconv>

#include "audit/parallel.h"

#include "core/canon_hash.h"
#include "core/flat_hash.h"

namespace isocheck {

CanonSym canon_sym(const SymbolTable& t, Sym s) {
  CanonSym c;
  if (!t.named()) {
    c.i = SymbolTable::as_int(s);
    return c;
  }
  const std::string& n = t.name(s);
  if (t.is_int(s)) {
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), c.i);
    if (ec == std::errc() && p == n.data() + n.size()) return c;
  }
  c.is_int = false;  // a string (or an integer name that does not parse: compared as text)
  c.s = n;
  return c;
}

std::string canon_text(const CanonSym& c) { return c.is_int ? std::to_string(c.i) : "\"" + c.s + "\""; }

static uint64_t canon_hash(const SymbolTable& t, Sym s) {
  if (!t.named()) return canon_int_hash(SymbolTable::as_int(s));
  const std::string& n = t.name(s);
  if (t.is_int(s)) {
    int64_t i = 0;
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), i);
    if (ec == std::errc() && p == n.data() + n.size()) return canon_int_hash(i);
  }
  return canon_text_hash(n);
}

uint64_t pair_fingerprint(uint64_t key_hash, uint64_t value_hash, uint64_t mask) {
  return mix64(key_hash * 0x9E3779B97F4A7C15ULL + value_hash) & mask;
}

uint64_t SymHashCache::get(const SymbolTable& t, Sym s) {
  if (!t.named()) return canon_hash(t, s) | 1;
  if (cache_.size() != t.size()) cache_.assign(t.size(), 0);
  uint64_t& h = cache_[s];
  if (h == 0) h = canon_hash(t, s) | 1;  // 0 = not computed (the low bit is given up)
  return h;
}

uint64_t TableHashes::int_hash(Sym s) {
  return canon_int_hash(SymbolTable::as_int(s)) | 1;
}

void TableHashes::build(const SymbolTable& t, unsigned threads) {
  named_ = t.named();
  hash_.clear();
  if (!named_) return;
  const size_t n = t.size();
  hash_.resize(n);
  constexpr size_t kPiece = 1 << 16;
  parallel_pieces((n + kPiece - 1) / kPiece, threads, [&](uint64_t p) {
    for (size_t s = p * kPiece, e = std::min(n, s + kPiece); s < e; ++s) hash_[s] = canon_hash(t, s) | 1;
  });
}

uint64_t write_fingerprint(const History& h, OpIdx o, uint64_t mask) {
  return write_fingerprint(h.keys, h.values, h.op_key[o], h.op_value[o], mask);
}

uint64_t write_fingerprint(const SymbolTable& keys, const SymbolTable& values, Sym k, Sym v, uint64_t mask) {
  return pair_fingerprint(canon_hash(keys, k) | 1, canon_hash(values, v) | 1, mask);
}

FingerprintSet::FingerprintSet() { clear(); }

void FingerprintSet::clear() {
  parts_.assign(size_t{1} << kPartBits, Part{});
  for (Part& p : parts_) p.slots.assign(64, kEmptySlot);
  size_ = 0;
}

uint64_t FingerprintSet::bytes() const {
  uint64_t b = 0;
  for (const Part& p : parts_) b += p.slots.capacity() * sizeof(uint64_t);
  return b;
}

void FingerprintSet::prefetch(uint64_t fp) const {
  const Part& p = parts_[part_of(fp)];
  __builtin_prefetch(&p.slots[home(slot_key(fp), p.slots.size())]);
}

bool FingerprintSet::contains(uint64_t fp) const {
  const Part& p = parts_[part_of(fp)];
  const uint64_t k = slot_key(fp);
  const size_t cap = p.slots.size();
  for (size_t i = home(k, cap); p.slots[i] != kEmptySlot; i = next(i, cap))
    if (p.slots[i] == k) return true;
  return false;
}

void FingerprintSet::rehash(Part& p, size_t capacity) {
  std::vector<uint64_t> old = std::move(p.slots);
  p.slots.assign(capacity, kEmptySlot);
  for (uint64_t k : old)
    if (k != kEmptySlot) {
      size_t i = home(k, capacity);
      while (p.slots[i] != kEmptySlot) i = next(i, capacity);
      p.slots[i] = k;
    }
}

void FingerprintSet::grow(Part& p) { rehash(p, p.slots.size() * 2); }

void FingerprintSet::reserve(uint64_t total) {
  // Each part gets its share and a little more (the parts fill evenly, to
  // about a square root; one that gets more still grows), at insert()'s
  // load of 3/4.
  const uint64_t even = total / parts_.size();
  const uint64_t share = even + even / 256 + 256;
  const size_t cap = static_cast<size_t>(share * 4 / 3 + 2);
  for (Part& p : parts_)
    if (cap > p.slots.size()) rehash(p, cap);
}

bool FingerprintSet::insert_was_present(uint64_t fp) {
  Part& p = parts_[part_of(fp)];
  if ((p.size + 1) * 4 > p.slots.size() * 3) grow(p);
  const uint64_t k = slot_key(fp);
  const size_t cap = p.slots.size();
  size_t i = home(k, cap);
  for (; p.slots[i] != kEmptySlot; i = next(i, cap))
    if (p.slots[i] == k) return true;
  p.slots[i] = k;
  ++p.size;
  ++size_;
  return false;
}

void FingerprintSet::insert(uint64_t fp) { insert_was_present(fp); }

}  // namespace isocheck
