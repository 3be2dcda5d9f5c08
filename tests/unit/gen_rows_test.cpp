// The generator's inserts and deletes: workload `rows` (items inserted when
// absent, range-scanned; a queue inserted at its tail and deleted at its
// head) and the plants predicate-write-skew and predicate-lost-update. Their
// histories are read back through the checker's own expansion
// (core/predicates.h), which must decide every one, and small ones are
// compared with the by-definition oracle (tests/oracle/predicate_oracle.h).
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>
#include <unordered_map>

#include "common/generated.h"
#include "core/errors.h"
#include "core/predicates.h"
#include "gen/gen.h"
#include "io/jsonl.h"
#include "oracle/predicate_oracle.h"
#include "solver/check.h"

namespace isocheck {
namespace {

GenOptions rows_opts(uint64_t txns, uint64_t seed) {
  GenOptions o;
  o.workload = "rows";
  o.txns = txns;
  o.seed = seed;
  return o;
}


const LevelResult& level(const CheckResult& r, Level l) {
  for (const auto& x : r.levels)
    if (x.level == l) return x;
  throw std::logic_error("level missing");
}

CheckResult check_every_level(const History& h) {
  CheckOptions c;
  c.levels.assign(std::begin(kAllLevels), std::end(kAllLevels));
  return check(h, c);
}


// The history as stated (scans, inserts and deletes not expanded): what the
// oracle reads. Each GenScan becomes a PredicateOp at its place among the
// transaction's stated operations.
struct StatedSink : ScanSink {
  void append_with_scans(const History& c, const std::vector<GenScan>& preds) override {
    History& h = ph.base;
    h.time_unit = c.time_unit;
    std::vector<uint32_t> dense(c.session_count());
    for (size_t s = 0; s < c.session_count(); ++s) {
      auto [it, fresh] = sessions.try_emplace(c.session_name[s], static_cast<uint32_t>(h.session_name.size()));
      if (fresh) h.session_name.push_back(c.session_name[s]);
      dense[s] = it->second;
    }
    size_t next = 0;
    for (TxnIdx t = 0; t < c.txn_count(); ++t) {
      const TxnIdx out = static_cast<TxnIdx>(h.txn_count());
      h.begin_txn(c.txn_id[t], dense[c.txn_session[t]], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
      uint32_t stated = 0;
      const OpIdx first = c.op_begin(t), last = c.op_end(t);
      for (OpIdx o = first;; ++o) {
        for (; next < preds.size() && preds[next].txn == t && preds[next].before == o - first; ++next) {
          const GenScan& g = preds[next];
          PredicateOp p{g.kind == GenScan::scan     ? PredicateOp::scan
                        : g.kind == GenScan::insert ? PredicateOp::insert
                                                    : PredicateOp::del,
                        out, stated++};
          p.key = static_cast<Sym>(g.lo);
          p.hi = static_cast<Sym>(g.hi);
          p.value = static_cast<Sym>(g.value);
          for (auto [k, v] : g.rows) p.rows.emplace_back(static_cast<Sym>(k), static_cast<Sym>(v));
          ph.ops.push_back(std::move(p));
        }
        if (o == last) break;
        h.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
        ++stated;
      }
      h.end_txn();
    }
    EXPECT_EQ(next, preds.size());
  }
  void finish() override {}
  PredicateHistory ph;
  std::unordered_map<int64_t, uint32_t> sessions;
};

}  // namespace

// Every rows history, across seeds, sizes, key counts and distributions, is
// decided by the expansion and holds every level, weak ones included; it
// inserts, deletes and scans.
TEST(GenRows, HistoriesHoldEveryLevel) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    for (const char* dist : {"uniform", "zipf"}) {
      GenOptions o = rows_opts(seed % 3 == 0 ? 3000 : 400 + 100 * seed, seed);
      o.dist = dist;
      o.keys = seed % 2 ? 8 + 4 * seed : 200;  // few keys: most items present, the queue often full
      o.scan_width_lo = 1 + seed % 4;
      o.scan_width_hi = 3 + 3 * seed;
      o.sessions = 3 + static_cast<uint32_t>(seed % 6);
      o.chunk_txns = 50 + 37 * seed;
      SCOPED_TRACE("seed " + std::to_string(seed) + " " + dist);
      GenSummary sum;
      History h = testkit::read_generated(o, &sum);
      EXPECT_EQ(sum.txns, o.txns);
      EXPECT_GT(sum.inserts, o.txns / 5);
      EXPECT_GT(sum.deletes, o.txns / 10);
      EXPECT_GT(sum.scans, o.txns / 5);
      EXPECT_FALSE(h.scan_ops.empty());
      const CheckResult r = check_every_level(h);
      EXPECT_TRUE(r.anomalies.empty());
      for (Level l : kAllLevels) {
        const LevelResult& lr = level(r, l);
        EXPECT_TRUE(lr.decided) << level_short(l) << ": " << lr.reason;
        EXPECT_TRUE(lr.holds) << level_short(l) << ": " << lr.reason;
      }
    }
  }
}

// The JSONL states inserts and deletes as such; every queue row is inserted
// once, and deleted only after a scan in the deleting transaction returned it.
TEST(GenRows, TextStatesInsertsAndDeletes) {
  GenOptions o = rows_opts(300, 4);
  o.keys = 20;
  GenSummary sum;
  StatedSink stated;
  generate(o, stated);
  const PredicateHistory& ph = stated.ph;
  std::set<Sym> inserted;
  uint64_t inserts = 0, deletes = 0, scans = 0;
  for (size_t i = 0; i < ph.ops.size(); ++i) {
    const PredicateOp& p = ph.ops[i];
    if (p.kind == PredicateOp::scan) {
      ++scans;
      continue;
    }
    if (p.kind == PredicateOp::insert) {
      ++inserts;
      EXPECT_TRUE(inserted.insert(p.key).second) << "key " << p.key << " inserted twice";
      continue;
    }
    ++deletes;
    EXPECT_GE(static_cast<int64_t>(p.key), 1'000'000'000'000LL) << "only queue rows are deleted";
    bool seen = false;
    for (size_t j = 0; j < i; ++j) {
      const PredicateOp& q = ph.ops[j];
      if (q.txn != p.txn || q.kind != PredicateOp::scan) continue;
      for (auto [k, v] : q.rows) seen |= k == p.key;
    }
    EXPECT_TRUE(seen) << "delete of " << p.key << " in txn " << p.txn << " without a scan returning it";
  }
  EXPECT_GT(inserts, 0u);
  EXPECT_GT(deletes, 0u);
  EXPECT_GT(scans, 0u);
  std::string text;
  testkit::read_generated(o, &sum, &text);
  EXPECT_EQ(sum.inserts, inserts);
  EXPECT_EQ(sum.deletes, deletes);
  EXPECT_EQ(sum.scans, scans);
  EXPECT_NE(text.find("[\"insert\",1000000000000,"), std::string::npos);
  EXPECT_NE(text.find("[\"delete\",1000000000000,"), std::string::npos);
}

// --scans-as reads: the same history as point operations (any sink), still
// holding every level; and the in-memory history equals it.
TEST(GenRows, AsPointOperations) {
  GenOptions o = rows_opts(2000, 9);
  o.keys = 30;
  o.scans_as = "reads";
  EXPECT_FALSE(writes_scans(o));
  GenSummary sum;
  History h = generate_history(o, &sum);
  EXPECT_EQ(sum.scans + sum.inserts + sum.deletes, 0u);
  const CheckResult r = check_every_level(h);
  for (Level l : kAllLevels) EXPECT_TRUE(level(r, l).decided && level(r, l).holds) << level_short(l);
  o.scans_as = "scan";
  EXPECT_TRUE(writes_scans(o));
  History mem = generate_history(o);
  EXPECT_EQ(mem.op_key, h.op_key);
  EXPECT_EQ(mem.op_value, h.op_value);
  EXPECT_EQ(mem.op_kind, h.op_kind);
}

// The SI simulation does not run rows (its plan holds point reads and writes
// only): refused before anything is written; HDF5-like sinks are refused too.
TEST(GenRows, RefusedWhereNotSimulated) {
  GenOptions o = rows_opts(10, 1);
  o.isolation = "si";
  JsonlTextSink text;
  try {
    generate(o, text);
    ADD_FAILURE() << "rows under si accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("workload rows is not simulated under snapshot isolation"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(text.text, "{\"isocheck\":1,\"time_unit\":\"us\"}\n");
  o.isolation = "ser";
  CollectSink ok;
  EXPECT_NO_THROW(generate(o, ok));  // CollectSink takes scans
  struct Plain : HistorySink {
    void append(const History&) override { ++chunks; }
    void finish() override {}
    int chunks = 0;
  } plain;
  try {
    generate(o, plain);
    ADD_FAILURE() << "rows into a sink without scans accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("JSONL only"), std::string::npos) << e.what();
  }
  EXPECT_EQ(plain.chunks, 0);
  for (const char* p : {"predicate-write-skew", "predicate-lost-update"}) {
    GenOptions q = rows_opts(10, 1);
    q.workload = "rmw";
    q.plant = {p};
    EXPECT_TRUE(writes_scans(q)) << p;
  }
}

// Each predicate plant, in every register workload and in rows, read back
// from JSONL: exactly its table's levels fail (weak ones included), the
// witness stays inside the plant, and SER's cycle or anomaly is named as
// PLANTS.md says.
TEST(GenRows, PredicatePlantsFailExactlyTheirLevelsAndAreNamed) {
  const std::pair<const char*, const char*> plants[] = {
      {"predicate-write-skew", "G2-item (predicate write skew)"},
      {"predicate-lost-update", "lost update"},
  };
  for (const char* w : {"rmw", "mt", "append", "rows"}) {
    for (auto [name, finding] : plants) {
      for (uint32_t pct : {0u, 20u}) {
        if (pct && std::string(w) != "rmw" && std::string(w) != "mt") continue;
        SCOPED_TRACE(std::string(w) + " " + name + " scans " + std::to_string(pct));
        GenOptions o = rows_opts(1500, 31);
        o.workload = w;
        o.scans = pct;
        o.plant = {name};
        GenSummary sum;
        History h = testkit::read_generated(o, &sum);
        ASSERT_EQ(sum.plants.size(), 1u);
        const PlantRecord& p = sum.plants[0];
        EXPECT_EQ(p.txn_ids.size(), std::string(name) == "predicate-write-skew" ? 3u : 2u);
        const std::set<int64_t> planted(p.txn_ids.begin(), p.txn_ids.end());
        const CheckResult r = check_every_level(h);
        std::string named;
        for (const Anomaly& a : r.anomalies) {
          EXPECT_TRUE(planted.count(h.txn_id[a.txn]));
          named = to_string(a.kind);
        }
        for (Level l : kAllLevels) {
          const LevelResult& lr = level(r, l);
          ASSERT_TRUE(lr.decided) << level_short(l) << ": " << lr.reason;
          EXPECT_EQ(lr.holds, !p.violates[l]) << level_short(l) << ": " << lr.reason;
          if (!lr.witness) continue;
          const EdgeList& c = lr.witness->cycle;
          for (size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(planted.count(h.txn_id[c.src[i]])) << level_short(l);
        }
        const LevelResult& ser = level(r, Level::ser);
        if (ser.witness) named = ser.witness->anomaly;
        EXPECT_EQ(named, finding);
      }
    }
  }
}

// Under --isolation si the predicate plants run in sessions of their own
// beside the simulated SI workload: read back from JSONL, SI fails exactly
// when the table says, and SER fails.
TEST(GenRows, PredicatePlantsUnderSi) {
  for (const char* w : {"rmw", "mt"}) {
    for (const char* name : {"predicate-write-skew", "predicate-lost-update"}) {
      SCOPED_TRACE(std::string(w) + " " + name);
      GenOptions o = rows_opts(2000, 17);
      o.workload = w;
      o.isolation = "si";
      o.keys = 200;
      o.plant = {name};
      GenSummary sum;
      History h = testkit::read_generated(o, &sum);
      EXPECT_GT(sum.aborted, 0u);
      CheckOptions c;
      c.levels = {Level::ser, Level::si};
      const CheckResult r = check(h, c);
      ASSERT_TRUE(level(r, Level::si).decided) << level(r, Level::si).reason;
      EXPECT_EQ(level(r, Level::si).holds, !plant_violations(name).si) << level(r, Level::si).reason;
      EXPECT_FALSE(level(r, Level::ser).holds);
    }
  }
}

// Small generated histories with inserts, deletes and scans (rows, with or
// without a predicate plant) against the exhaustive oracle on the history as
// stated: the oracle finds the unplanted ones serializable (the generator is
// right by definition), and check() on the expansion agrees with it on SER
// and SI for every one.
TEST(GenRows, SmallHistoriesAgreeWithOracle) {
  int compared = 0, planted = 0, deleting = 0;
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    GenOptions o = rows_opts(2 + seed % 4, seed);
    o.keys = 2 + seed % 3;
    o.scan_width_lo = 1;
    o.scan_width_hi = 3;
    o.sessions = 4;
    if (seed % 3 == 1) o.plant = {"predicate-write-skew"};
    if (seed % 3 == 2) o.plant = {"predicate-lost-update"};
    SCOPED_TRACE("seed " + std::to_string(seed));
    StatedSink stated;
    const GenSummary sum = generate(o, stated);
    const PredicateHistory& ph = stated.ph;
    ASSERT_LE(ph.base.txn_count(), kOracleMaxTxns);
    const OracleVerdict v = predicate_oracle_check(ph);
    History h;
    try {
      h = expand_predicates(ph, "generated");
    } catch (const ResourceError& e) {
      ADD_FAILURE() << "not decided: " << e.what() << "\n" << predicate_history_text(ph);
      continue;
    }
    PlantLevels want{};
    if (!o.plant.empty()) want = plant_violations(o.plant[0]), ++planted;
    EXPECT_EQ(v.ser, !want.ser) << predicate_history_text(ph);
    EXPECT_EQ(v.si, !want.si) << predicate_history_text(ph);
    CheckOptions c;
    c.levels = {Level::ser, Level::si};
    c.serial_witness = seed % 2 == 0;
    const CheckResult r = check(h, c);
    ASSERT_TRUE(r.levels[0].decided && r.levels[1].decided) << predicate_history_text(ph);
    EXPECT_EQ(r.levels[0].holds, v.ser) << predicate_history_text(ph);
    EXPECT_EQ(r.levels[1].holds, v.si) << predicate_history_text(ph);
    deleting += sum.deletes > 0;
    ++compared;
  }
  EXPECT_EQ(compared, 600);
  EXPECT_EQ(planted, 400);
  EXPECT_GT(deleting, 100);
}

}  // namespace isocheck
