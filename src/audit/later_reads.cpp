#include "audit/later_reads.h"

#include <algorithm>

#include "core/radix_order.h"

namespace isocheck {

void LaterReads::add_piece(uint64_t first_round, uint64_t end_round, std::vector<Entry> e) {
  // By fingerprint, then one entry per fingerprint with its largest round.
  radix_sort(e, [](const Entry& x) { return x.fp; });
  size_t out = 0;
  for (size_t i = 0; i < e.size();) {
    Entry best = e[i];
    size_t j = i + 1;
    for (; j < e.size() && e[j].fp == e[i].fp; ++j) best.round = std::max(best.round, e[j].round);
    e[out++] = best;
    i = j;
  }
  e.resize(out);
  e.shrink_to_fit();
  pieces_.push_back(Piece{first_round, end_round, std::move(e)});
}

bool LaterReads::read_after(uint64_t fp, uint64_t round) const {
  for (const Piece& p : pieces_) {
    if (p.end <= round + 1) continue;  // every read in it is of a round <= `round`
    auto it = std::lower_bound(p.e.begin(), p.e.end(), fp, [](const Entry& x, uint64_t f) { return x.fp < f; });
    if (it != p.e.end() && it->fp == fp && it->round > round) return true;
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

uint64_t LaterReads::bytes() const { return entries() * sizeof(Entry); }

}  // namespace isocheck
