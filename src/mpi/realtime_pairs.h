// SSER's real-time pairs without any rank holding every transaction's times
// (docs/dist.md, "Key shards": owned transaction records).
//
// One process (add_realtime_pairs, graph/level_graphs.cpp) sorts the end
// times of the included timed transactions: each distinct end time is a time
// node n + i (i its rank among the distinct ends), consecutive nodes are
// chained, T -> node(end T), and node(last end e with e + δ < begin T) -> T.
// Here the distinct end times are sorted across ranks (a sample sort: P - 1
// splitters from regular samples, each rank sorting one bucket), node numbers
// come from the buckets' prefix counts, and each transaction's two nodes are
// asked of the bucket holding its end time and its begin - δ. Every pair and
// node number equals the one-process one.
#pragma once
#include <cstdint>
#include <vector>

namespace isocheck::dist {

struct OwnedTimes {
  uint64_t first = 0;                 // global index of begin[0]
  const std::vector<int64_t>* begin;  // this rank's consecutive transactions
  const std::vector<int64_t>* end;
  const std::vector<uint8_t>* included;
};

// Collective. Appends this rank's share of the real-time pairs (vertex ids as
// in the one-process SSER graph: transactions [0, n), time nodes n + i) to
// src/dst; returns the number of time nodes (the same on every rank).
uint32_t realtime_pairs(const OwnedTimes& t, uint32_t n, int64_t skew, std::vector<uint32_t>& src,
                        std::vector<uint32_t>& dst);

}  // namespace isocheck::dist
