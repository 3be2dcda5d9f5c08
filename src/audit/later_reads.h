// Which (key, value) pairs the reads of later rounds saw: forget's answer to
// "may a transaction of a later round still read this version?" for keys
// whose last frozen writes are concurrent blind writes (docs/audit.md,
// "Blind writes: ambiguous frontiers"). One scan of the log collects every
// register read's fingerprint with its round; each piece of consecutive
// rounds keeps a sorted array of (fingerprint, last round read), 8 bytes an
// entry. A collision can only answer "read later" for a version nobody reads
// (forget then keeps its writers, as without this index), never the reverse.
#pragma once
#include <cstdint>
#include <vector>

namespace isocheck {

class LaterReads {
 public:
  // An entry: the fingerprint's top 40 bits, the round in the low 24.
  static constexpr int kRoundBits = 24;
  static constexpr uint64_t kMaxRounds = uint64_t{1} << kRoundBits;
  static uint64_t entry(uint64_t fp, uint64_t round) { return (fp >> kRoundBits << kRoundBits) | round; }

  // The entries of the reads of rounds [first_round, end_round) (any order,
  // repeats allowed); pieces are added in round order.
  void add_piece(uint64_t first_round, uint64_t end_round, std::vector<uint64_t> entries);
  // True when a read in a round after `round` may have seen the pair with
  // fingerprint fp.
  bool read_after(uint64_t fp, uint64_t round) const;
  // Rounds up to `round` are done: pieces that hold only them are freed.
  void drop_through(uint64_t round);
  bool built() const { return built_; }
  void set_built() { built_ = true; }
  uint64_t entries() const;
  uint64_t bytes() const;

 private:
  struct Piece {
    uint64_t first, end;
    std::vector<uint64_t> e;  // sorted, one entry per fingerprint (its last round)
  };
  std::vector<Piece> pieces_;
  bool built_ = false;
};

}  // namespace isocheck
