// Every (key, value) the log has written so far, as 64-bit fingerprints: the
// audit's duplicate-write test across rounds (docs/audit.md, "Duplicate
// writes"). A fingerprint match is only a suspicion: the audit confirms it by
// comparing the actual keys and values (in memory, or by re-reading the log),
// so a collision costs time, never a false violation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/history.h"

namespace isocheck {

// A key or value by what it is, not by its symbol (symbols differ between
// the tables of different reads of the log): integer or string.
struct CanonSym {
  bool is_int = true;
  int64_t i = 0;
  std::string s;
  bool operator==(const CanonSym& o) const { return is_int == o.is_int && (is_int ? i == o.i : s == o.s); }
};
CanonSym canon_sym(const SymbolTable& t, Sym s);
// Text for messages: 5 or "x".
std::string canon_text(const CanonSym& c);

// Fingerprint of the (key, value) of a write or append op (by canonical
// names, so equal in every read of the log). `mask` (tests) drops bits to
// force collisions.
uint64_t write_fingerprint(const History& h, OpIdx o, uint64_t mask = ~0ULL);
// The same for key k and value v, symbols of these tables.
uint64_t write_fingerprint(const SymbolTable& keys, const SymbolTable& values, Sym k, Sym v, uint64_t mask = ~0ULL);
// The same from the two halves (hashes from SymHashCache): equal results.
uint64_t pair_fingerprint(uint64_t key_hash, uint64_t value_hash, uint64_t mask);
// Hash of a symbol by its canonical name (the low bit set), cached per symbol
// of one table (a named table's names are parsed once per round, not per op).
class SymHashCache {
 public:
  uint64_t get(const SymbolTable& t, Sym s);

 private:
  std::vector<uint64_t> cache_;
};

// The same hashes for every symbol of one table that no longer changes (an
// HDF5 file's tables), computed once, on threads: get() then reads only this
// object, so another thread may move or read the table meanwhile.
class TableHashes {
 public:
  void build(const SymbolTable& t, unsigned threads);
  uint64_t get(Sym s) const { return named_ ? hash_[s] : int_hash(s); }
  static uint64_t int_hash(Sym s);  // canon_int_hash(s) | 1 (core/canon_hash.h)

 private:
  bool named_ = false;
  std::vector<uint64_t> hash_;  // by symbol (named tables)
};

// A set of fingerprints in 256 open-addressing tables (linear probing, load
// factor at most 3/4; each grows on its own, so growth never copies the
// whole set at once). 8 bytes per slot: 10.7-21 bytes per fingerprint as it
// grows, 10.7 when reserved (a part's capacity is any size, not a power of
// two: a slot is picked by multiplying, not masking).
class FingerprintSet {
 public:
  FingerprintSet();
  bool contains(uint64_t fp) const;
  void insert(uint64_t fp);
  // insert(fp), and whether fp (or one the set takes for it, see slot_key)
  // was there before: one probe where contains() then insert() took two.
  bool insert_was_present(uint64_t fp);
  // Fingerprints the set does not tell apart have the same same_as().
  static uint64_t same_as(uint64_t fp) { return slot_key(fp); }
  void prefetch(uint64_t fp) const;
  // Room for `total` fingerprints in all (pass 1 counts the log's writes):
  // the parts then never grow. Growing rehashed all 256 parts in the same
  // round (they fill evenly), a pause of seconds at 10^8 writes, and held
  // the old and new tables at once.
  void reserve(uint64_t total);
  uint64_t size() const { return size_; }
  uint64_t bytes() const;
  void clear();

 private:
  static constexpr int kPartBits = 8;
  struct Part {
    std::vector<uint64_t> slots;  // kEmptySlot = empty
    uint64_t size = 0;
  };
  static constexpr uint64_t kEmptySlot = 0;
  static size_t part_of(uint64_t fp) { return fp >> (64 - kPartBits); }
  // 0 is stored as 1: the two fingerprints match each other (a suspicion
  // like any other, confirmed or dismissed by the caller).
  static uint64_t slot_key(uint64_t fp) { return fp == kEmptySlot ? 1 : fp; }
  // The home slot of k in `cap` slots: the bits below the part's, scaled.
  static size_t home(uint64_t k, size_t cap) {
    return static_cast<size_t>((static_cast<unsigned __int128>(k << kPartBits) * cap) >> 64);
  }
  static size_t next(size_t i, size_t cap) { return i + 1 == cap ? 0 : i + 1; }
  void grow(Part& p);
  static void rehash(Part& p, size_t capacity);
  std::vector<Part> parts_;
  uint64_t size_ = 0;
};

}  // namespace isocheck
