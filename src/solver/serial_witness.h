// The serial-witness fast path: before any graph is built, replay the
// committed transactions one after another in a candidate serial order and
// check that every read returns the latest write to its key. If it does, that
// order is a serialization of the history, which proves SER and SI (and SSER
// when the order is the begin- or end-time order, either of which respects
// real time for any clock skew δ ≥ 0). If any check fails the answer is "no witness" and the
// graph engines decide; nothing is concluded from a failure.
//
// Why it is cheap: one pass over the operations with one small hash table
// (key → latest value), plus a duplicate-write test over fingerprints of
// (key, value) that stays in cache (partitioned by hash).
#pragma once
#include <cstdint>
#include <string>

#include "io/history.h"

namespace isocheck {

enum class WitnessOrder : uint8_t { none = 0, begin_time, end_time, file };
const char* to_string(WitnessOrder o);

struct SerialWitness {
  WitnessOrder order = WitnessOrder::none;  // none: not found
  bool respects_realtime = false;           // the order settles SSER too
  uint64_t committed = 0;                   // transactions replayed
  std::string why_not;                      // when not found: the first failed check
  bool found() const { return order != WitnessOrder::none; }
};

// need_realtime: the caller wants SSER decided, so only the end-time order
// (every committed transaction has begin/end) is tried.
SerialWitness find_serial_witness(const History& h, bool need_realtime);

}  // namespace isocheck
