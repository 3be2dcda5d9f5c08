#include "core/verdict.h"

#include <algorithm>
#include <iterator>

#include "core/enum_names.h"

namespace isocheck {

namespace {

struct LevelRow {
  Level value;
  const char* name;
  const char* short_name;
  int rank;  // lattice_rank
};
// lin is not on the lattice: decided apart (lattice_summary skips it).
constexpr LevelRow kLevels[] = {
    {Level::ser, "serializable", "SER", 6},
    {Level::si, "snapshot-isolation", "SI", 5},
    {Level::sser, "strict-serializable", "SSER", 7},
    {Level::ru, "read-uncommitted", "RU", 0},
    {Level::rc, "read-committed", "RC", 1},
    {Level::ra, "read-atomic", "RA", 2},
    {Level::cc, "causal", "CC", 3},
    {Level::pc, "prefix", "PC", 4},
    {Level::lin, "linearizable", "LIN", 8},
};
static_assert(indexed_by_value(kLevels));

constexpr EnumName<AnomalyKind> kAnomalyKinds[] = {
    {AnomalyKind::aborted_read, "G1a (aborted read)"},
    {AnomalyKind::intermediate_read, "G1b (intermediate read)"},
    {AnomalyKind::thin_air_read, "thin-air read"},
    {AnomalyKind::internal_read, "internal inconsistency"},
    {AnomalyKind::nonrepeatable_read, "non-repeatable read"},
    {AnomalyKind::duplicate_write, "duplicate write"},
    {AnomalyKind::lost_update, "lost update"},
    {AnomalyKind::incompatible_order, "incompatible order"},
    {AnomalyKind::duplicate_elements, "duplicate elements"},
};
static_assert(indexed_by_value(kAnomalyKinds));

constexpr EnumName<EdgeKind> kEdgeKinds[] = {{EdgeKind::so, "so"}, {EdgeKind::wr, "wr"},
                                             {EdgeKind::ww, "ww"}, {EdgeKind::rt, "rt"},
                                             {EdgeKind::rw, "rw"}, {EdgeKind::aux, "aux"}};
static_assert(indexed_by_value(kEdgeKinds));

constexpr EnumName<WitnessOrder> kWitnessOrders[] = {{WitnessOrder::none, "none"},
                                                     {WitnessOrder::begin_time, "begin-time order"},
                                                     {WitnessOrder::end_time, "end-time order"},
                                                     {WitnessOrder::file, "file order"}};
static_assert(indexed_by_value(kWitnessOrders));

// Each model is the level of the same name (its names are the level's).
constexpr Level kModelLevels[] = {Level::ru, Level::rc, Level::ra, Level::cc,
                                  Level::pc, Level::si, Level::ser, Level::sser};
static_assert(std::size(kModelLevels) == kModelCount);

const LevelRow* model_row(Model m) {
  const size_t i = static_cast<size_t>(m);
  return i < std::size(kModelLevels) ? row_of(kLevels, kModelLevels[i]) : nullptr;
}

}  // namespace

const char* to_string(Level l) { return name_in(kLevels, l); }

const char* level_short(Level l) {
  const LevelRow* r = row_of(kLevels, l);
  return r ? r->short_name : "?";
}

int lattice_rank(Level l) {
  const LevelRow* r = row_of(kLevels, l);
  return r ? r->rank : 7;
}

const char* to_string(AnomalyKind k) { return name_in(kAnomalyKinds, k); }

const char* to_string(EdgeKind k) { return name_in(kEdgeKinds, k); }

bool CheckResult::all_hold() const {
  return std::all_of(levels.begin(), levels.end(), [](const LevelResult& r) { return r.holds && r.decided; });
}

const char* to_string(WitnessOrder o) { return name_in(kWitnessOrders, o); }

const char* model_name(Model m) {
  const LevelRow* r = model_row(m);
  return r ? r->name : "?";
}

const char* model_short(Model m) {
  const LevelRow* r = model_row(m);
  return r ? r->short_name : "?";
}

Model model_of(Level l) {
  if (l == Level::lin) return Model::strict_serializable;
  for (int m = 0; m < kModelCount; ++m)
    if (kModelLevels[m] == l) return static_cast<Model>(m);
  return Model::strict_serializable;
}

Model weakest_ruled_out(const EdgeList& c) {
  const size_t n = c.size();
  size_t rw = 0, wr = 0;
  for (size_t i = 0; i < n; ++i) {
    if (c.kind[i] == EdgeKind::rt || c.kind[i] == EdgeKind::aux) return Model::strict_serializable;
    rw += c.kind[i] == EdgeKind::rw;
    wr += c.kind[i] == EdgeKind::wr;
  }
  if (n == 0) return Model::strict_serializable;
  if (rw == 0 && wr == 0) return Model::read_uncommitted;  // G0: RU's co extends so and the version orders
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

Model weakest_ruled_out(AnomalyKind k) { return model_of(weakest_level_violated(k)); }

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

bool anomaly_fails(AnomalyKind k, Level l) { return lattice_rank(weakest_level_violated(k)) <= lattice_rank(l); }

std::string anomaly_fails_reason(AnomalyKind k, Level l) {
  return std::string("the history contains ") + to_string(k) + ", which " + level_short(l) + " does not allow";
}

LevelAnomalies anomalies_failing(const CheckResult& r, const LevelResult& lr) {
  LevelAnomalies f;
  if (!lr.decided || lr.holds || lr.witness || lr.level == Level::lin) return f;
  for (const Anomaly& a : r.anomalies) {
    if (!anomaly_fails(a.kind, lr.level)) continue;
    if (!f.first) f.first = &a;
    ++f.count;
  }
  return f;
}

Model weakest_ruled_out(const std::string& a) {
  auto has = [&](const char* s) { return a.find(s) != std::string::npos; };
  if (has("-realtime") || has("stale read") || has("real time")) return Model::strict_serializable;
  if (a.rfind("G0", 0) == 0) return Model::read_uncommitted;
  if (a.rfind("G1", 0) == 0 || has("incompatible order") || has("duplicate elements")) return Model::read_committed;
  if (has("fractured read") || has("read-your-writes")) return Model::read_atomic;
  if (has("long fork")) return Model::prefix;
  if (a.rfind("G-single", 0) == 0 || a.rfind("G-nonadjacent", 0) == 0 || has("lost update")) return Model::snapshot_isolation;
  if (has("non-repeatable")) return Model::read_atomic;
  if (a.rfind("G2", 0) == 0) return Model::serializable;
  return Model::read_uncommitted;  // per-transaction anomalies: thin air, internal, duplicate write
}

}  // namespace isocheck
