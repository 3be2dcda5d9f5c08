#include "core/verdict.h"

#include <algorithm>

namespace isocheck {

const char* to_string(Level l) {
  switch (l) {
    case Level::ser: return "serializable";
    case Level::si: return "snapshot-isolation";
    case Level::sser: return "strict-serializable";
    case Level::ru: return "read-uncommitted";
    case Level::rc: return "read-committed";
    case Level::ra: return "read-atomic";
    case Level::cc: return "causal";
    case Level::pc: return "prefix";
    case Level::lin: return "linearizable";
  }
  return "?";
}

const char* level_short(Level l) {
  switch (l) {
    case Level::ser: return "SER";
    case Level::si: return "SI";
    case Level::sser: return "SSER";
    case Level::ru: return "RU";
    case Level::rc: return "RC";
    case Level::ra: return "RA";
    case Level::cc: return "CC";
    case Level::pc: return "PC";
    case Level::lin: return "LIN";
  }
  return "?";
}

int lattice_rank(Level l) {
  switch (l) {
    case Level::ru: return 0;
    case Level::rc: return 1;
    case Level::ra: return 2;
    case Level::cc: return 3;
    case Level::pc: return 4;
    case Level::si: return 5;
    case Level::ser: return 6;
    case Level::sser: return 7;
    case Level::lin: return 8;  // not on the lattice: decided apart (lattice_summary skips it)
  }
  return 7;
}

const char* to_string(AnomalyKind k) {
  switch (k) {
    case AnomalyKind::aborted_read: return "G1a (aborted read)";
    case AnomalyKind::intermediate_read: return "G1b (intermediate read)";
    case AnomalyKind::thin_air_read: return "thin-air read";
    case AnomalyKind::internal_read: return "internal inconsistency";
    case AnomalyKind::nonrepeatable_read: return "non-repeatable read";
    case AnomalyKind::duplicate_write: return "duplicate write";
    case AnomalyKind::lost_update: return "lost update";
    case AnomalyKind::incompatible_order: return "incompatible order";
    case AnomalyKind::duplicate_elements: return "duplicate elements";
  }
  return "?";
}

const char* to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::so: return "so";
    case EdgeKind::wr: return "wr";
    case EdgeKind::ww: return "ww";
    case EdgeKind::rt: return "rt";
    case EdgeKind::rw: return "rw";
    case EdgeKind::aux: return "aux";
  }
  return "?";
}

bool CheckResult::all_hold() const {
  return std::all_of(levels.begin(), levels.end(), [](const LevelResult& r) { return r.holds && r.decided; });
}

const char* to_string(WitnessOrder o) {
  switch (o) {
    case WitnessOrder::none: return "none";
    case WitnessOrder::begin_time: return "begin-time order";
    case WitnessOrder::end_time: return "end-time order";
    case WitnessOrder::file: return "file order";
  }
  return "?";
}

const char* model_name(Model m) {
  switch (m) {
    case Model::read_committed: return "read-committed";
    case Model::read_atomic: return "read-atomic";
    case Model::causal: return "causal";
    case Model::prefix: return "prefix";
    case Model::snapshot_isolation: return "snapshot-isolation";
    case Model::serializable: return "serializable";
    case Model::strict_serializable: return "strict-serializable";
  }
  return "?";
}

const char* model_short(Model m) {
  switch (m) {
    case Model::read_committed: return "RC";
    case Model::read_atomic: return "RA";
    case Model::causal: return "CC";
    case Model::prefix: return "PC";
    case Model::snapshot_isolation: return "SI";
    case Model::serializable: return "SER";
    case Model::strict_serializable: return "SSER";
  }
  return "?";
}

Model weakest_ruled_out(const EdgeList& c) {
  const size_t n = c.size();
  size_t rw = 0;
  for (size_t i = 0; i < n; ++i) {
    if (c.kind[i] == EdgeKind::rt || c.kind[i] == EdgeKind::aux) return Model::strict_serializable;
    rw += c.kind[i] == EdgeKind::rw;
  }
  if (n == 0) return Model::strict_serializable;
  if (rw == 0) return Model::read_committed;
  auto prev = [&](size_t i) { return (i + n - 1) % n; };
  auto so_or_wr = [&](size_t i) { return c.kind[i] == EdgeKind::so || c.kind[i] == EdgeKind::wr; };
  if (n == 2 && rw == 1) {
    size_t r = c.kind[0] == EdgeKind::rw ? 0 : 1, o = 1 - r;
    // T_c -wr-> T_b -rw-> T_c: T_b read from T_c (op why[o] of T_b), then read
    // an older version of a key T_c wrote (op why[r] of T_b).
    if (c.kind[o] == EdgeKind::wr && why_pos(c.why[o]) < why_pos(c.why[r])) return Model::read_committed;
    if (so_or_wr(o)) return Model::read_atomic;
  }
  bool others_hb = true, each_rw_after_hb = true, adjacent = false;
  for (size_t i = 0; i < n; ++i) {
    if (c.kind[i] == EdgeKind::rw) {
      each_rw_after_hb &= so_or_wr(prev(i));
      adjacent |= c.kind[prev(i)] == EdgeKind::rw;
    } else {
      others_hb &= so_or_wr(i);
    }
  }
  if (rw == 1 && others_hb) return Model::causal;
  if (each_rw_after_hb) return Model::prefix;
  if (!adjacent) return Model::snapshot_isolation;
  return Model::serializable;
}

Model weakest_ruled_out(AnomalyKind k) {
  switch (k) {
    case AnomalyKind::nonrepeatable_read: return Model::read_atomic;
    case AnomalyKind::lost_update: return Model::snapshot_isolation;
    default: return Model::read_committed;
  }
}

Level weakest_level_violated(AnomalyKind k) {
  switch (k) {
    case AnomalyKind::aborted_read:
    case AnomalyKind::intermediate_read:
    // A list read against the order of others, or holding an element twice,
    // may be a dirty read (RU sets those aside); RU's engine finds the rest.
    case AnomalyKind::incompatible_order:
    case AnomalyKind::duplicate_elements: return Level::rc;
    case AnomalyKind::nonrepeatable_read: return Level::ra;
    case AnomalyKind::lost_update: return Level::si;
    default: return Level::ru;
  }
}

Model weakest_ruled_out(const std::string& a) {
  auto has = [&](const char* s) { return a.find(s) != std::string::npos; };
  if (has("-realtime") || has("stale read") || has("real time")) return Model::strict_serializable;
  if (a.rfind("G0", 0) == 0 || a.rfind("G1", 0) == 0) return Model::read_committed;
  if (has("fractured read") || has("read-your-writes")) return Model::read_atomic;
  if (has("long fork")) return Model::prefix;
  if (a.rfind("G-single", 0) == 0 || a.rfind("G-nonadjacent", 0) == 0 || has("lost update")) return Model::snapshot_isolation;
  if (has("non-repeatable")) return Model::read_atomic;
  if (a.rfind("G2", 0) == 0) return Model::serializable;
  return Model::read_committed;  // per-transaction anomalies: thin air, internal, duplicate write, ...
}

}  // namespace isocheck
