// Structured messages of the distributed driver and its checkpoint file,
// serialised with Boost.Serialization (binary archives inside one process
// family; the checkpoint adds a text header checked before the archive).
#pragma once
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "partition/partition.h"
#include "solver/check.h"

#include "core/serial_bool.h"

namespace isocheck::dist {

// One level's outcome on one piece, in the whole history's transaction and
// operation numbering.
struct LevelOutcome {
  uint8_t level = 0;
  bool holds = true, decided = true, has_witness = false, core_minimal = false;
  bool by_cases = false;  // LevelResult::by_cases: the witness is one case's ("rules out" the level up)
  std::string reason, anomaly;
  std::vector<uint32_t> src, dst, why;
  std::vector<uint8_t> kind;
  std::vector<uint64_t> core_key;
  std::vector<uint32_t> core_first, core_second;
  std::vector<uint8_t> core_absence;  // per core entry: ConstraintRef::absence (a scan's place)
  // The witness's forced orders (Witness::forced): per order its cycle edge,
  // name and the end of its edges in the flat forced_* arrays.
  std::string cycle_anomaly;
  std::vector<uint32_t> forced_edge, forced_end;
  std::vector<std::string> forced_anomaly;
  std::vector<uint32_t> forced_src, forced_dst, forced_why;
  std::vector<uint8_t> forced_kind;
  template <class A> void serialize(A& a, unsigned) {
    a & level;
    serialize_bool(a, holds), serialize_bool(a, decided), serialize_bool(a, has_witness), serialize_bool(a, core_minimal);
    serialize_bool(a, by_cases);
    a & reason & anomaly & src & dst & why & kind & core_key & core_first & core_second & core_absence;
    a & cycle_anomaly & forced_edge & forced_end & forced_anomaly & forced_src & forced_dst & forced_why & forced_kind;
  }
};

struct AnomalyRec {
  uint8_t kind = 0;
  uint32_t txn = 0, other = 0, op = 0;
  uint64_t key = 0, value = 0;
  template <class A> void serialize(A& a, unsigned) { a & kind & txn & other & op & key & value; }
};

// Result of one piece (a block's projection, or the whole history for SSER).
struct PieceResult {
  int32_t piece = -1;
  std::vector<AnomalyRec> anomalies;
  std::vector<LevelOutcome> levels;
  uint64_t edges = 0, constraints = 0, ordered_by_time = 0, pruned = 0, to_solver = 0, subproblems = 0,
           unordered_write_pairs = 0, decided_at_build = 0, open_read_checks = 0;
  int error_code = 0;  // 0 ok; 2 input/usage error; 3 resources
  std::string error;
  // The replays of the piece (mpi/replay_lines.h): which candidate orders
  // replay on it; for a piece that is the whole history, the serial witness's
  // order (WitnessOrder) and the SI replay's (0: none, else 1 + its order).
  uint8_t replays = 0, whole_witness = 0, whole_si = 0;
  template <class A> void serialize(A& a, unsigned) {
    a & piece & anomalies & levels & edges & constraints & ordered_by_time & pruned & to_solver & subproblems &
        unordered_write_pairs & decided_at_build & open_read_checks & error_code & error & replays & whole_witness &
        whole_si;
  }
};

// A worker's request to rank 0: the result of its last piece (if any).
struct Request {
  bool terminating = false;  // this rank got SIGTERM
  std::vector<PieceResult> results;  // the pieces of its last batch it finished
  template <class A> void serialize(A& a, unsigned) {
    serialize_bool(a, terminating);
    a & results;
  }
};

// Component descriptors (the partition stage's output).
struct PartitionMsg {
  uint32_t sessions = 0;
  std::vector<std::vector<uint32_t>> comp_sessions;
  std::vector<uint64_t> comp_ops, comp_txns, keys;
  std::vector<uint32_t> key_comp;
  template <class A> void serialize(A& a, unsigned) { a & sessions & comp_sessions & comp_ops & comp_txns & keys & key_comp; }
  static PartitionMsg from(const Partition& p) {
    return {p.sessions, p.comp_sessions, p.comp_ops, p.comp_txns, p.keys, p.key_comp};
  }
  Partition to() const {
    Partition p;
    p.sessions = sessions, p.comp_sessions = comp_sessions, p.comp_ops = comp_ops, p.comp_txns = comp_txns;
    p.keys = keys, p.key_comp = key_comp;
    return p;
  }
};

enum Stage : int32_t { stage_read = 1, stage_partition = 2, stage_solve = 3, stage_done = 4 };

struct Checkpoint {
  int32_t stage = stage_read;
  bool has_partition = false;
  PartitionMsg partition;
  std::vector<PieceResult> results;  // completed pieces, any order
  template <class A> void serialize(A& a, unsigned) {
    a & stage;
    serialize_bool(a, has_partition);
    a & partition & results;
  }
};

template <class T> std::string to_bytes(const T& v);
template <class T> void from_bytes(const std::string& s, T& v);

}  // namespace isocheck::dist
