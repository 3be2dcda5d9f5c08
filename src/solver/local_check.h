// Violations found locally: when the serial-witness replay fails on a read,
// look for the violation around that read before building the dependency
// graph of the whole history.
//
// The region is a set of keys K (first the keys of the failed reads) and a
// window of transactions around the failed reads in file order. Each round
// projects the history onto K — every operation on a key of K, of every
// transaction — and checks the projection as check_graph() would. Every edge
// on a key depends only on the operations on that key (and on which
// transactions are committed), so the projection's WR/WW/RW edges and its
// anomalies are exactly the whole graph's on K; real-time edges between two
// transactions depend only on their times. Session order is kept between the
// projection's transactions (consecutive ones of a session there may have
// others of the session between them in the whole history: a found cycle's
// session-order edges are expanded back into the whole graph's, one per pair
// of neighbours). So the projection's graph is a subgraph of the whole one,
// a polygraph's constraints a subset of the whole's, and a cycle (or an
// unsatisfiable polygraph) there is one of the whole history.
//
// A region without a cycle grows: K takes every key of the window's
// transactions that touch K, and the window doubles, until a cycle is found
// or the region stops growing (or holds a sixteenth of the operations, where
// the whole graph costs little more, or the rounds together have projected an
// eighth of them, or 16 rounds ran). Then the caller builds the whole graph.
// Not tried (the whole graph decides): histories with transactions of unknown
// status (whether one is included depends on reads of any key), and regions
// that show an anomaly no level allows (the whole graph lists every one).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/history.h"
#include "core/verdict.h"
#include "solver/check.h"

namespace isocheck {

struct LocalSearch {
  // One per requested level proven violated (in opt.levels order), with its
  // witness in the whole history's transactions and operation positions.
  std::vector<LevelResult> violated;
  bool ser_violated = false;  // the region has a SER cycle (requested or not)
  CheckStats stats;     // of the last region checked
  int rounds = 0;       // regions checked
  size_t keys = 0;      // keys in the last region
  size_t txns = 0;      // transactions in the last region
  size_t ops = 0;       // operations in the last region
};

// seeds: the reads a replay failed on (SerialWitness::failed_reads).
LocalSearch find_violations_locally(const History& h, const CheckOptions& opt, std::span<const OpIdx> seeds);

}  // namespace isocheck
