#include "audit/later_reads.h"

#include <algorithm>

#include "util/radix_order.h"

namespace isocheck {

void LaterReads::add_piece(uint64_t first_round, uint64_t end_round, std::vector<uint64_t> e) {
  // By fingerprint only (40 bits: four radix passes, not six), then one
  // entry per fingerprint with its largest round.
  radix_sort(e, [](uint64_t x) { return x >> kRoundBits; });
  size_t out = 0;
  for (size_t i = 0; i < e.size();) {
    uint64_t best = e[i];
    size_t j = i + 1;
    for (; j < e.size() && e[j] >> kRoundBits == e[i] >> kRoundBits; ++j) best = std::max(best, e[j]);
    e[out++] = best;
    i = j;
  }
  e.resize(out);
  e.shrink_to_fit();
  pieces_.push_back(Piece{first_round, end_round, std::move(e)});
}

bool LaterReads::read_after(uint64_t fp, uint64_t round) const {
  const uint64_t lo = entry(fp, 0), hi = entry(fp, kMaxRounds - 1);
  for (const Piece& p : pieces_) {
    if (p.end <= round + 1) continue;  // every read in it is of a round <= `round`
    auto it = std::lower_bound(p.e.begin(), p.e.end(), lo);
    if (it != p.e.end() && *it <= hi && (*it & (kMaxRounds - 1)) > round) return true;
  }
  return false;
}

void LaterReads::drop_through(uint64_t round) {
  std::erase_if(pieces_, [&](const Piece& p) { return p.end <= round + 1; });
}

uint64_t LaterReads::entries() const {
  uint64_t n = 0;
  for (const Piece& p : pieces_) n += p.e.size();
  return n;
}

uint64_t LaterReads::bytes() const { return entries() * sizeof(uint64_t); }

}  // namespace isocheck
