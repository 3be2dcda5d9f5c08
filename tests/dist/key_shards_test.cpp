// Key shards (src/mpi/key_shards.h), run under mpiexec with 1, 2 and 4 ranks:
// every examples/*.jsonl, 400 oracle random histories (known order; some
// blind-write ones, which must be refused) and generated read-modify-write
// histories with one large component (valid, with stale reads that close
// cycles, with lost updates, with unknown-status transactions read across
// keys) are decided by check_key_sharded and by one-process check():
//  - when not refused: verdicts, witnesses (cycle edges with kinds and
//    positions, anomaly name) and anomalies (in order) are identical, and the
//    JSON report up to "stats" is identical;
//  - blind-write histories are refused (and only they, or rejected input);
//  - the driver with --key-shards (DistOptions::key_shards) gives the same
//    report on the example files and on HDF5 read by hyperslab (JSONL read on
//    rank 0 and scattered in transaction ranges when P > 1);
//  - a tiny --history-budget is a ResourceError naming --history-budget.
// A canonical line per history goes to OUT/results.txt, diffed across rank
// counts by key_shards.same_for_every_rank_count.
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "mpi/dist_acyclic.h"
#include "mpi/driver.h"
#include "mpi/key_shards.h"
#include "mpi/mpi_env.h"
#include "mpi/owned.h"
#include "mpi/range_names.h"
#include "mpi/exchange.h"
#include "graph/known_graph.h"
#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl.h"
#include "io/load.h"
#include "oracle/random_history.h"
#include "report/report.h"
#include "graph/level_graphs.h"
#include "solver/acyclic.h"

using namespace isocheck;
namespace fs = std::filesystem;

namespace {

std::string canonical(const CheckResult& r) {
  std::ostringstream o;
  for (auto& l : r.levels) {
    o << " | " << to_string(l.level) << " holds=" << l.holds << " decided=" << l.decided << " " << l.reason;
    if (l.witness) {
      o << " " << l.witness->anomaly << " [";
      for (size_t i = 0; i < l.witness->cycle.size(); ++i)
        o << l.witness->cycle.src[i] << ">" << l.witness->cycle.dst[i] << ":" << to_string(l.witness->cycle.kind[i]) << ":"
          << l.witness->cycle.why[i] << " ";
      o << "] core=" << l.witness->core.size();
    }
  }
  o << " | anomalies";
  for (auto& a : r.anomalies)
    o << " " << static_cast<int>(a.kind) << "@" << a.txn << "/" << a.op << "/" << a.other << "/" << a.key << "=" << a.value;
  return o.str();
}

std::string report_json(const History& h, const CheckResult& r) {
  std::ostringstream o;
  write_json(o, h, r, ReportContext{"x", 0.0});
  std::string s = o.str();
  return s.substr(0, s.find("\"stats\""));
}

// A read-modify-write history with one large component: `txns` transactions
// on `keys` keys from `sessions` interleaved sessions, executed serially in
// file order (times increase), each reading and writing two keys. Options
// plant stale reads (a third key read from an older version: rw edges that
// close cycles), lost updates, and unknown-status transactions (half really
// committed and read later, half really aborted and never read).
struct RmwOptions {
  uint32_t txns = 2000, keys = 50, sessions = 8;
  int stale_per_mille = 0, lost_per_mille = 0, unknown_per_mille = 0, aborted_per_mille = 0;
  bool times = true;
};

History rmw_history(uint64_t seed, const RmwOptions& o) {
  std::mt19937_64 rng(seed);
  History h;
  for (uint32_t s = 0; s < o.sessions; ++s) h.session_name.push_back(s + 1);
  std::vector<std::vector<int64_t>> versions(o.keys);  // values written so far, per key (committed state)
  int64_t next_value = 1;
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  auto current = [&](uint32_t k) { return versions[k].empty() ? kNullValue : static_cast<Sym>(versions[k].back()); };
  for (uint32_t t = 0; t < o.txns; ++t) {
    uint32_t a = pick(o.keys), b = pick(o.keys);
    while (b == a && o.keys > 1) b = pick(o.keys);
    bool unknown = static_cast<int>(rng() % 1000) < o.unknown_per_mille;
    bool aborted = !unknown && static_cast<int>(rng() % 1000) < o.aborted_per_mille;
    bool really = !aborted && (!unknown || rng() % 2 == 0);
    TxnStatus st = unknown ? TxnStatus::unknown : aborted ? TxnStatus::aborted : TxnStatus::committed;
    int64_t begin = o.times ? 10 * static_cast<int64_t>(t) : kNoTime, end = o.times ? begin + 5 : kNoTime;
    h.begin_txn(t + 1, t % o.sessions, st, begin, end);
    std::vector<std::pair<uint32_t, int64_t>> writes;
    for (uint32_t k : {a, b}) {
      Sym seen = current(k);
      // A lost update: read the version before the current one (its
      // successor already read it and wrote).
      if (static_cast<int>(rng() % 1000) < o.lost_per_mille && versions[k].size() >= 2)
        seen = static_cast<Sym>(versions[k][versions[k].size() - 2]);
      h.add_op(OpKind::read, k, seen);
      int64_t v = next_value++;
      h.add_op(OpKind::write, k, static_cast<Sym>(v));
      writes.push_back({k, v});
    }
    if (static_cast<int>(rng() % 1000) < o.stale_per_mille) {
      uint32_t c = pick(o.keys);
      if (c != a && c != b && versions[c].size() >= 2) {
        size_t back = 1 + rng() % std::min<size_t>(versions[c].size() - 1, 4);
        h.add_op(OpKind::read, c, static_cast<Sym>(versions[c][versions[c].size() - 1 - back]));
      }
    }
    h.end_txn();
    if (really)
      for (auto& [k, v] : writes) versions[k].push_back(v);
  }
  return h;
}

// A blind-write history with one large component: a serial execution in
// file order of read-only transactions (`reads` keys each, the current
// values) and write-only ones (`reads` keys each, fresh values, never read
// first), so most keys' version orders are unknown. `stale_per_mille` of the
// reads see an older version instead (the general engine may or may not find
// an order that explains them).
History blind_history(uint64_t seed, uint32_t txns, uint32_t keys, uint32_t sessions, uint32_t reads,
                      int stale_per_mille) {
  std::mt19937_64 rng(seed);
  History h;
  for (uint32_t s = 0; s < sessions; ++s) h.session_name.push_back(s + 1);
  std::vector<std::vector<int64_t>> versions(keys);
  int64_t next_value = 1;
  for (uint32_t t = 0; t < txns; ++t) {
    const int64_t begin = 10 * static_cast<int64_t>(t);
    h.begin_txn(t + 1, t % sessions, TxnStatus::committed, begin, begin + 5);
    const bool writer = rng() % 2 == 0;
    std::vector<uint32_t> ks;
    while (ks.size() < std::min(reads, keys)) {
      const uint32_t k = static_cast<uint32_t>(rng() % keys);
      if (std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
    }
    for (uint32_t k : ks) {
      if (writer) {
        h.add_op(OpKind::write, k, static_cast<Sym>(next_value));
        versions[k].push_back(next_value++);
        continue;
      }
      Sym seen = versions[k].empty() ? kNullValue : static_cast<Sym>(versions[k].back());
      if (static_cast<int>(rng() % 1000) < stale_per_mille && versions[k].size() >= 2)
        seen = static_cast<Sym>(versions[k][versions[k].size() - 2 - rng() % std::min<size_t>(versions[k].size() - 1, 3)]);
      h.add_op(OpKind::read, k, seen);
    }
    h.end_txn();
  }
  return h;
}

// The same transactions, the file grouped by session (session order kept).
History by_session(const History& h) {
  History g;
  g.session_name = h.session_name;
  g.time_unit = h.time_unit;
  for (uint32_t s = 0; s < h.session_name.size(); ++s)
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (h.txn_session[t] != s) continue;
      g.begin_txn(h.txn_id[t], s, h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) g.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
      g.end_txn();
    }
  return g;
}

// A read-modify-write case of the large-component stages.
struct Case { const char* name; RmwOptions o; };

// The test's stages share the counters, the results file and the two checks
// run on every history, so they are methods of one object; main runs them in
// the order they always ran (every rank makes the same collective calls).
struct KeyShardsTest {
  std::string src, out;
  int me = 0;
  int failures = 0, decided = 0, refused = 0, with_witness = 0, with_anomalies = 0, holding = 0, unknown_included = 0;
  std::ofstream results;
  const std::vector<std::vector<Level>> level_sets = {
      {Level::ser, Level::si}, {Level::ser, Level::si, Level::sser}, {Level::sser}, {Level::si}, {Level::ser}};

  // Every rank builds the same history; rank 0 compares with check().
  // Every history twice: with the serial witness off (the sharded graph
  // path, counted below), then on (the sharded replay; same verdicts).
  int by_witness = 0, gathered = 0, decided_blind = 0, general_settled = 0, blind_cases = 0, blind_violated = 0;
  std::vector<std::string> examples;
  std::vector<Case> cases;

  void run_with_witness(const std::string& name, const History& h, size_t variant) {
    CheckOptions opt;
    opt.levels = level_sets[variant % level_sets.size()];
    dist::KeyShardOutcome ks = dist::check_key_sharded(h, opt, {});
    if (me != 0 || ks.refused) return;
    by_witness += ks.r.stats.witness != WitnessOrder::none;
    CheckOptions whole = opt;
    whole.localise = false;  // key shards decide on the whole graph
    CheckResult want = check(h, whole);
    if (canonical(want) != canonical(ks.r) || report_json(h, want) != report_json(h, ks.r)) {
      ++failures;
      std::fprintf(stderr, "FAIL %s (serial witness on): result differs\n  want%s\n  got %s\n", name.c_str(),
                   canonical(want).c_str(), canonical(ks.r).c_str());
    }
  }
  void run_one(const std::string& name, const History& h, size_t variant, bool must_decide,
                     ClosureChoice closure = ClosureChoice::automatic) {
    run_with_witness(name, h, variant);
    CheckOptions opt;
    opt.levels = level_sets[variant % level_sets.size()];
    opt.serial_witness = false;
    opt.closure = closure;
    dist::KeyShardOutcome ks = dist::check_key_sharded(h, opt, {});
    if (me != 0) return;
    CheckResult want = check(h, opt);
    auto fail = [&](const std::string& what) {
      ++failures;
      std::fprintf(stderr, "FAIL %s: %s\n  want%s\n  got %s\n", name.c_str(), what.c_str(), canonical(want).c_str(),
                   ks.refused ? (" refused: " + ks.why).c_str() : canonical(ks.r).c_str());
    };
    bool blind = false;
    for (TxnIdx t = 0; t < h.txn_count(); ++t)
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        if (h.op_kind[o] != OpKind::write) continue;
        bool read_before = false;
        for (OpIdx q = h.op_begin(t); q < o; ++q) read_before |= h.op_key[q] == h.op_key[o];
        blind |= !read_before && h.txn_status[t] != TxnStatus::aborted;
      }
    if (ks.refused) {
      ++refused;
      // Refused only for input the builder rejects, or for list keys whose
      // append order is unknown (the general engine on lists is not sharded).
      bool list_unordered = false;
      try {
        KnownGraphOptions kgo;
        kgo.for_si = std::find(opt.levels.begin(), opt.levels.end(), Level::si) != opt.levels.end();
        DependencyGraph g = build_known_graph(h, kgo);
        for (const UnorderedKey& uk : g.unordered)
          for (OpIdx o = 0; o < h.op_count(); ++o)
            list_unordered |= h.op_key[o] == uk.key && (h.op_kind[o] == OpKind::append || h.op_kind[o] == OpKind::read_list);
      } catch (const InputError&) {
        list_unordered = true;  // rejected input: the normal path reports it
      }
      if (!list_unordered) fail("refused without unordered list keys: " + ks.why);
      if (must_decide) fail("refused");
      results << name << " refused\n";
      return;
    }
    decided_blind += blind;
    ++decided;
    if (canonical(want) != canonical(ks.r)) fail("result differs");
    else if (report_json(h, want) != report_json(h, ks.r)) fail("JSON report differs");
    holding += want.all_hold();
    // Verdicts on the shards: a holding history is never gathered, a cycle's
    // witness always is (anomalies are gathered as anomalies). Unknown
    // version orders: the general engine runs on the shards (mpi/dist_prune.h)
    // and settles SER and SI when the SER polygraph is satisfiable; SSER, or
    // SI alone on a history violating SER, are gathered to rank 0.
    bool unordered = false;
    {
      KnownGraphOptions kgo;
      kgo.for_si = std::find(opt.levels.begin(), opt.levels.end(), Level::si) != opt.levels.end();
      unordered = !build_known_graph(h, kgo).unordered.empty();
    }
    bool expect_gather = !want.all_hold();
    if (unordered) {
      CheckOptions ser_only = opt;
      ser_only.levels = {Level::ser};
      const bool sser = std::find(opt.levels.begin(), opt.levels.end(), Level::sser) != opt.levels.end();
      expect_gather = sser || !check(h, ser_only).all_hold();
    }
    if (want.anomalies.empty() && ks.r.stats.witness == WitnessOrder::none && ks.gathered != expect_gather)
      fail(ks.gathered ? "gathered where the shards decide" : "a failing history was not gathered for its witness");
    general_settled += ks.general.settled;
    if (ks.general.settled && ks.gathered) fail("settled by the general engine on the shards and gathered");
    gathered += ks.gathered;
    with_anomalies += !want.anomalies.empty();
    for (auto& l : want.levels) if (l.witness) { ++with_witness; break; }
    // An unknown transaction included (read by an included one, possibly
    // through other keys: the fixpoint across shards).
    unknown_included += ks.r.stats.committed >
                        static_cast<size_t>(std::count(h.txn_status.begin(), h.txn_status.end(), TxnStatus::committed));
    results << name << canonical(ks.r) << "\n";
  }

  // Example files, oracle random histories and list-run mutations.
  void check_examples_and_random() {
    // examples/
    for (auto& e : fs::directory_iterator(src + "/examples"))
      if (e.path().extension() == ".jsonl") examples.push_back(e.path().string());
    std::sort(examples.begin(), examples.end());
    for (size_t i = 0; i < examples.size(); ++i) {
      History h = load_history(examples[i]);
      if (!h.absent_choice_ops.empty()) {  // scans' open absences: the shards refuse them, saying so
        const dist::KeyShardOutcome ks = dist::check_key_sharded(h, CheckOptions{}, {});
        ++refused;
        if (!ks.refused || ks.why.find("a row another transaction deletes") == std::string::npos) {
          ++failures;
          if (me == 0) std::printf("FAIL %s: open absences not refused by the shards (%s)\n", examples[i].c_str(), ks.why.c_str());
        }
        continue;
      }
      for (size_t v = 0; v < 2; ++v) run_one(fs::path(examples[i]).filename().string() + "#" + std::to_string(v), h, i + v, false);
    }
    // Oracle random histories (known order; every fourth with blind writes).
    for (uint64_t seed = 1; seed <= 400; ++seed) {
      RandomHistoryOptions ro;
      ro.mode = seed % 4 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
      if (seed % 7 == 0) ro.max_txns = 40, ro.max_keys = 6, ro.max_sessions = 6;
      run_one("random_" + std::to_string(seed), random_history(seed, ro), seed, false);
    }
    // List reads that cut, split, reorder or repeat a writer's appends.
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      RandomHistoryOptions ro;
      ro.max_keys = 3;
      ro.run_mutation_percent = 100;
      run_one("list_runs_" + std::to_string(seed), random_history(seed, ro), seed, false);
    }
    // One large component, read-modify-write.
  }

  // One large component (read-modify-write, then blind writes, then the
  // file grouped by session) and the general engine's --history-budget.
  void check_large_components() {
    cases = {
        {"rmw_valid", {20000, 200, 16, 0, 0, 0, 0, true}},
        {"rmw_stale", {20000, 200, 16, 2, 0, 0, 0, true}},
        {"rmw_stale_notimes", {5000, 100, 8, 5, 0, 0, 0, false}},
        {"rmw_lost", {20000, 200, 16, 0, 1, 0, 0, true}},
        {"rmw_unknown", {20000, 100, 16, 0, 0, 30, 20, true}},
        {"rmw_unknown_stale", {20000, 100, 16, 3, 0, 30, 20, true}},
    };
    for (size_t c = 0; c < cases.size(); ++c)
      for (uint64_t seed = 1; seed <= 3; ++seed)
        run_one(std::string(cases[c].name) + "_" + std::to_string(seed), rmw_history(seed, cases[c].o), c + seed, true);
    // One large component of blind writes: the general engine on the shards
    // (valid ones settled there, stale reads either explained by some version
    // order or gathered for the one-process witness), for SER and SI, SI
    // alone, SER alone (SSER is gathered: variant 1). Also every rank's
    // --history-budget: the replicated known graph must fit it.
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      const int stale = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 3 : 20;
      const History h = blind_history(seed, 1500 + 250 * static_cast<uint32_t>(seed % 4), 60 + 40 * static_cast<uint32_t>(seed % 3),
                                      4 + static_cast<uint32_t>(seed % 3) * 6, 3, stale);
      const size_t variant = std::vector<size_t>{0, 3, 4, 1}[seed % 4];
      // Every other one with --closure cpu: the closure engine answers the
      // pruning rounds' reachability instead of the path index.
      run_one("blind_" + std::to_string(seed), h, variant, true, seed % 2 ? ClosureChoice::automatic : ClosureChoice::cpu);
      if (me == 0) {
        ++blind_cases;
        CheckOptions o;
        o.levels = level_sets[variant];
        o.serial_witness = false;
        blind_violated += !check(h, o).all_hold();
      }
    }
    {
      dist::KeyShardOptions ko;
      ko.history_budget = 1024;
      CheckOptions graph_path;
      graph_path.serial_witness = false;
      std::string msg;
      try {
        dist::check_key_sharded(blind_history(3, 1500, 60, 4, 3, 0), graph_path, ko);
      } catch (const ResourceError& e) {
        msg = e.what();
      }
      if (me == 0 && (msg.find("--history-budget") == std::string::npos || msg.find("every rank holds the known graph") == std::string::npos))
        ++failures, std::fprintf(stderr, "FAIL budget: the general engine on the shards did not name --history-budget (got \"%s\")\n", msg.c_str());
    }
    // The same, the file grouped by session (file order far from time order:
    // the distributed peel's blocks no longer follow the edges).
    for (size_t c : {size_t{0}, size_t{1}, size_t{4}})
      for (uint64_t seed = 1; seed <= 2; ++seed)
        run_one(std::string(cases[c].name) + "_by_session_" + std::to_string(seed),
                by_session(rmw_history(seed, cases[c].o)), c + seed, true);

  }

  void check_driver() {
    // The driver with --key-shards: JSONL (rank 0 reads, broadcast) and HDF5
    // (hyperslab per rank), against one-process check().
    {
      std::vector<std::string> files = examples;
      if (me == 0) {
        RmwOptions o{30000, 300, 16, 2, 0, 10, 10, true};
        write_hdf5(rmw_history(7, o), out + "/big.h5");
        write_jsonl(rmw_history(8, o), out + "/big.jsonl");
      }
      MPI_Barrier(MPI_COMM_WORLD);
      files.push_back(out + "/big.h5");
      files.push_back(out + "/big.jsonl");
      for (size_t i = 0; i < files.size(); ++i) {
        CheckOptions opt;
        opt.levels = level_sets[i % level_sets.size()];
        dist::DistOptions d;
        d.quiet = true;
        d.key_shards = true;
        // (Scans' value predicates: the key shards refuse them and the usual
        // path, which carries them, decides: one process's report too.)
        History h = load_history(files[i]);
        dist::DistRun run = dist::run_distributed(files[i], Format::unknown, opt, d);
        if (me != 0) continue;
        CheckResult want = check(h, opt);
        std::string name = fs::path(files[i]).filename().string();
        if (run.exit_code != exit_code(want)) ++failures, std::fprintf(stderr, "FAIL driver %s: exit code\n", name.c_str());
        // Rank 0 without the whole history (HDF5 read by range) reports from
        // the transactions the result names (run.h), the result renumbered to them.
        const History& rh = run.h.txn_count() ? run.h : h;
        if (report_json(h, want) != report_json(rh, run.r))
          ++failures, std::fprintf(stderr, "FAIL driver %s: report differs\n  want%s\n  got %s\n", name.c_str(),
                                   canonical(want).c_str(), canonical(run.r).c_str());
        results << "driver " << name << " key_sharded=" << run.key_sharded << " " << report_json(rh, run.r) << "\n";
        if (name.starts_with("big") && !run.key_sharded) ++failures, std::fprintf(stderr, "FAIL driver %s: refused\n", name.c_str());
      }
    }
  }

  void check_gather_budget() {
    // The gather budget. A valid history is decided on the shards (nothing
    // gathered, so a tiny budget is no obstacle); a violated one needs its
    // witness chosen on the whole graph: exit 3 naming the option to raise.
    {
      dist::KeyShardOptions ko;
      ko.history_budget = 1024;
      CheckOptions graph_path;
      graph_path.serial_witness = false;  // the replay would settle a valid history without any graph
      dist::KeyShardOutcome ks = dist::check_key_sharded(rmw_history(1, RmwOptions{}), graph_path, ko);
      if (me == 0 && (ks.refused || ks.gathered || !ks.r.all_hold()))
        ++failures, std::fprintf(stderr, "FAIL budget: a valid history under a tiny budget was not decided on the shards\n");
      std::string msg;
      try {
        RmwOptions stale;
        stale.stale_per_mille = 5;
        dist::check_key_sharded(rmw_history(1, stale), graph_path, ko);
      } catch (const ResourceError& e) {
        msg = e.what();
      }
      if (me == 0 && msg.find("--history-budget") == std::string::npos)
        ++failures, std::fprintf(stderr, "FAIL budget: no ResourceError naming --history-budget (got \"%s\")\n", msg.c_str());
    }

  }

  void check_peel() {
    // The distributed peel (mpi/dist_acyclic.h) against the one-process cycle
    // search on random graphs: DAGs numbered in topological order, DAGs with
    // shuffled numbering (edges cross blocks both ways), planted cycles
    // (self-loops, two-cycles, long cycles through the second segment), and
    // multi-edges. Every rank holds an arbitrary share of the pairs.
    {
      int peel_cases = 0, cyclic = 0;
      for (uint64_t seed = 1; seed <= 300; ++seed) {
        std::mt19937_64 rng(seed * 7919);
        const uint32_t n = static_cast<uint32_t>(rng() % 200), m = seed % 3 == 0 ? 0 : static_cast<uint32_t>(rng() % 100);
        const uint32_t V = n + m;
        std::vector<uint32_t> perm(V);
        for (uint32_t v = 0; v < V; ++v) perm[v] = v;
        if (seed % 2) std::shuffle(perm.begin(), perm.end(), rng);
        std::vector<uint32_t> src, dst;
        if (V > 1) {
          const uint32_t edges = static_cast<uint32_t>(rng() % (4 * V));
          for (uint32_t i = 0; i < edges; ++i) {
            uint32_t a = static_cast<uint32_t>(rng() % V), b = static_cast<uint32_t>(rng() % V);
            if (a == b) continue;
            if (a > b) std::swap(a, b);
            // Chains: most edges short, as in a history.
            if (seed % 5 == 0) b = std::min(V - 1, a + 1 + static_cast<uint32_t>(rng() % 3));
            src.push_back(perm[a]), dst.push_back(perm[b]);
            if (rng() % 10 == 0) src.push_back(perm[a]), dst.push_back(perm[b]);  // multi-edge
          }
        }
        const int planted = V == 0 ? 0 : static_cast<int>(seed % 4);
        if (planted == 1) {
          uint32_t v = static_cast<uint32_t>(rng() % V);
          src.push_back(v), dst.push_back(v);
        } else if (planted >= 2) {
          uint32_t len = planted == 2 ? 2 : 2 + static_cast<uint32_t>(rng() % 8), first = static_cast<uint32_t>(rng() % V);
          uint32_t prev = first;
          for (uint32_t i = 1; i < len; ++i) {
            uint32_t v = static_cast<uint32_t>(rng() % V);
            src.push_back(prev), dst.push_back(v);
            prev = v;
          }
          src.push_back(prev), dst.push_back(first);
        }
        const bool want = find_cycle(csr_from_pairs(V, src, dst), V).empty();
        std::vector<uint32_t> my_src, my_dst;
        for (size_t i = 0; i < src.size(); ++i)
          if (static_cast<int>((i * 2654435761u) % dist::size()) == me) my_src.push_back(src[i]), my_dst.push_back(dst[i]);
        dist::PeelStats ps = dist::peel_acyclic(n, m, my_src, my_dst);
        if (me != 0) continue;
        ++peel_cases, cyclic += !want;
        if (ps.acyclic != want || ps.edges != src.size() || (ps.left == 0) != want)
          ++failures, std::fprintf(stderr, "FAIL peel seed %llu: acyclic=%d, the cycle search says %d\n",
                                   static_cast<unsigned long long>(seed), ps.acyclic, want);
        results << "peel " << seed << " acyclic=" << ps.acyclic << " left=" << ps.left << "\n";
      }
      if (me == 0 && (peel_cases != 300 || cyclic < 100 || cyclic > 250))
        ++failures, std::fprintf(stderr, "FAIL peel: %d cases, %d cyclic: not the mix intended\n", peel_cases, cyclic);
    }
    // The file-order proof (dist::acyclic_by_file_order) on graphs numbered
    // almost in topological order, as a history in time order is: a DAG
    // over file positions with short edges, a few vertices swapped with a
    // near neighbour (backward pairs with short spans), sometimes a planted
    // cycle between near positions or far apart, in the plain and in SI's
    // split layout. It must never say acyclic of a graph with a cycle, and
    // must decide most of the acyclic ones.
    {
      int cases = 0, acyclic_cases = 0, decided = 0, with_backward = 0;
      for (uint64_t seed = 1; seed <= 300; ++seed) {
        std::mt19937_64 rng(seed * 104729);
        const uint32_t n = 2 + static_cast<uint32_t>(rng() % 300);
        const bool split = seed % 3 == 0;
        const uint32_t m = split ? n : 0, V = n + m;
        // The vertex at each file position (split: copy n + t, then t).
        std::vector<uint32_t> at(V);
        for (uint32_t q = 0; q < V; ++q) at[q] = !split ? q : q % 2 == 0 ? n + q / 2 : q / 2;
        const uint32_t swaps = static_cast<uint32_t>(rng() % 4);
        for (uint32_t k = 0; k < swaps; ++k) {
          const uint32_t q = static_cast<uint32_t>(rng() % V), r = std::min(V - 1, q + 1 + static_cast<uint32_t>(rng() % 4));
          std::swap(at[q], at[r]);
          with_backward += me == 0;
        }
        std::vector<uint32_t> src, dst;
        for (uint32_t q = 0; q + 1 < V; ++q)
          for (int e = static_cast<int>(rng() % 3); e > 0; --e) {
            const uint32_t r = std::min(V - 1, q + 1 + static_cast<uint32_t>(rng() % 6));
            src.push_back(at[q]), dst.push_back(at[r]);
          }
        const int planted = static_cast<int>(seed % 4);
        if (planted == 1 || planted == 2) {  // near: within 8 positions; far: anywhere
          const uint32_t len = 2 + static_cast<uint32_t>(rng() % 4), first = static_cast<uint32_t>(rng() % V);
          uint32_t prev = first;
          for (uint32_t i = 1; i < len; ++i) {
            const uint32_t q = planted == 1 ? std::min(V - 1, first + static_cast<uint32_t>(rng() % 8))
                                            : static_cast<uint32_t>(rng() % V);
            src.push_back(at[prev]), dst.push_back(at[q]);
            prev = q;
          }
          src.push_back(at[prev]), dst.push_back(at[first]);
        }
        const bool want = find_cycle(csr_from_pairs(V, src, dst), V).empty();
        std::vector<uint32_t> my_src, my_dst;
        for (size_t i = 0; i < src.size(); ++i)
          if (static_cast<int>((i * 2654435761u) % dist::size()) == me) my_src.push_back(src[i]), my_dst.push_back(dst[i]);
        const std::vector<uint32_t> kept_src = my_src, kept_dst = my_dst;
        dist::PeelStats ps;
        const bool got = dist::acyclic_by_file_order(n, m, split, my_src, my_dst, ps);
        if (my_src != kept_src || my_dst != kept_dst)
          ++failures, std::fprintf(stderr, "FAIL file order seed %llu: the pairs were changed\n", static_cast<unsigned long long>(seed));
        if (me != 0) continue;
        ++cases, acyclic_cases += want, decided += got;
        if (got && (!want || ps.edges != src.size()))
          ++failures, std::fprintf(stderr, "FAIL file order seed %llu: said acyclic (%llu pairs) of a graph the cycle search finds a cycle in: %d\n",
                                   static_cast<unsigned long long>(seed), static_cast<unsigned long long>(ps.edges), !want);
        results << "file order " << seed << " decided=" << got << "\n";
      }
      if (me == 0 && (cases != 300 || with_backward < 200 || acyclic_cases < 120 || decided < acyclic_cases * 3 / 4))
        ++failures, std::fprintf(stderr, "FAIL file order: %d cases, %d acyclic, %d decided: not the mix intended\n", cases,
                                 acyclic_cases, decided);
    }
  }

  // RangeNames (mpi/range_names.h) against one process's read_jsonl: JSONL
  // files whose keys and values mix integers and strings are numbered across
  // ranks, and every operation's key and value symbol, slice by slice (the
  // key shards' rounds), equals the one-process symbol. The files: string
  // keys from the first line; integer keys for the first 40 % of the lines,
  // then strings too (the integers before the first string move up one);
  // strings with an integer's digits ("7" and 7 are two names); integer keys
  // with string values from the middle on; null reads; names first seen in a
  // later rank's range. Then name_report gives a report history the names
  // one process gives those operations.
  void check_range_names() {
    struct Shape {
      const char* name;
      double keys_from, values_from;  // where strings start (fraction of the lines; > 1: never)
    };
    const std::vector<Shape> shapes = {{"keys_first", 0.0, 2.0}, {"keys_late", 0.4, 2.0}, {"both_late", 0.4, 0.7},
                                       {"values_only", 2.0, 0.5}, {"keys_last_line", 0.999, 2.0}};
    int files = 0, compared_ops = 0;
    for (size_t f = 0; f < shapes.size(); ++f) {
      const std::string path = out + "/names_" + shapes[f].name + ".jsonl";
      if (me == 0) {
        std::mt19937_64 rng(900 + f);
        std::ofstream o(path);
        o << "{\"isocheck\":1}\n";
        const int lines = 3000;
        for (int t = 0; t < lines; ++t) {
          const bool skeys = t >= shapes[f].keys_from * lines, svals = t >= shapes[f].values_from * lines;
          o << "{\"id\":" << t << ",\"session\":" << t % 5 << ",\"status\":\"committed\",\"ops\":[";
          const int n = 1 + static_cast<int>(rng() % 3);
          for (int i = 0; i < n; ++i) {
            // Later lines reach further keys: names first seen in later ranges.
            const uint64_t k = rng() % (20 + t / 10);
            std::string key = std::to_string(k);
            if (skeys && rng() % 3) key = rng() % 4 ? "\"k" + key + "\"" : "\"" + key + "\"";
            const bool read = rng() % 2;
            std::string value = std::to_string(rng() % 50);
            if (svals && rng() % 2) value = "\"v" + value + "\"";
            if (read && rng() % 5 == 0) value = "null";
            o << (i ? "," : "") << "[\"" << (read ? "r" : "w") << "\"," << key << "," << value << "]";
          }
          o << "]}\n";
        }
      }
      MPI_Barrier(MPI_COMM_WORLD);
      std::unique_ptr<dist::RangeSource> src = dist::jsonl_source(path);
      const uint64_t count = src->last - src->first;
      auto read = [&](uint64_t lo, uint64_t hi) { return src->chunk(src->first + lo, src->first + hi); };
      dist::RangeNames names;
      // Keys asked for first: a file with string values says so, and is numbered again with them.
      int found = names.number(count, read, dist::RangeNames::kKeys);
      if (found & ~dist::RangeNames::kKeys) found = names.number(count, read, found);
      struct Sym3 {
        uint64_t txn, key, value;
      };
      std::vector<Sym3> mine;
      constexpr uint64_t kSlices = 32;
      const uint64_t step = std::max<uint64_t>(1, (count + kSlices - 1) / kSlices);
      for (uint64_t k = 0; k < kSlices; ++k) {
        const uint64_t lo = std::min(count, k * step), hi = std::min(count, lo + step);
        std::optional<History> sl;
        if (lo < hi) sl = read(lo, hi);
        names.renumber(sl ? &*sl : nullptr);
        if (!sl) continue;
        for (TxnIdx t = 0; t < sl->txn_count(); ++t)
          for (OpIdx o = sl->op_begin(t); o < sl->op_end(t); ++o)
            mine.push_back({src->first + lo + t, sl->op_key[o], sl->op_value[o]});
      }
      const std::vector<Sym3> all = dist::gather_records(mine);
      // A report of the first and the last transactions, in the history's symbols.
      History whole, part;
      CheckResult none;
      if (me == 0) {
        whole = read_jsonl(path);
        for (TxnIdx t : {TxnIdx{0}, static_cast<TxnIdx>(whole.txn_count() - 1)}) {
          part.begin_txn(whole.txn_id[t], 0, TxnStatus::committed, kNoTime, kNoTime);
          for (OpIdx o = whole.op_begin(t); o < whole.op_end(t); ++o) part.add_op(whole.op_kind[o], whole.op_key[o], whole.op_value[o]);
          part.end_txn();
        }
        part.session_name.push_back(0);
      }
      names.name_report(true, part, none);
      if (me != 0) continue;
      ++files;
      const int want_tables = (whole.keys.named() ? 1 : 0) | (whole.values.named() ? 2 : 0);
      if (found != want_tables || names.tables() != want_tables)
        ++failures, std::fprintf(stderr, "FAIL range names %s: tables %d, numbered %d, one process %d\n", shapes[f].name,
                                 found, names.tables(), want_tables);
      if (all.size() != whole.op_count()) {
        ++failures, std::fprintf(stderr, "FAIL range names %s: %zu operations, one process %llu\n", shapes[f].name,
                                 all.size(), static_cast<unsigned long long>(whole.op_count()));
        continue;
      }
      for (OpIdx o = 0; o < whole.op_count(); ++o) {
        if (all[o].txn != whole.txn_of_op(o) || all[o].key != whole.op_key[o] || all[o].value != whole.op_value[o]) {
          ++failures, std::fprintf(stderr, "FAIL range names %s: operation %llu has key %llu value %llu, one process %llu %llu\n",
                                   shapes[f].name, static_cast<unsigned long long>(o), static_cast<unsigned long long>(all[o].key),
                                   static_cast<unsigned long long>(all[o].value), static_cast<unsigned long long>(whole.op_key[o]),
                                   static_cast<unsigned long long>(whole.op_value[o]));
          break;
        }
        ++compared_ops;
      }
      for (TxnIdx t = 0; t < part.txn_count(); ++t) {
        const TxnIdx w = t == 0 ? 0 : static_cast<TxnIdx>(whole.txn_count() - 1);
        for (uint32_t i = 0; i < part.op_end(t) - part.op_begin(t); ++i) {
          const OpIdx a = part.op_begin(t) + i, b = whole.op_begin(w) + i;
          if (part.keys.text(part.op_key[a]) != whole.keys.text(whole.op_key[b]) ||
              value_text(part, part.op_value[a]) != value_text(whole, whole.op_value[b]))
            ++failures, std::fprintf(stderr, "FAIL range names %s: the report names %s=%s, one process %s=%s\n", shapes[f].name,
                                     part.keys.text(part.op_key[a]).c_str(), value_text(part, part.op_value[a]).c_str(),
                                     whole.keys.text(whole.op_key[b]).c_str(), value_text(whole, whole.op_value[b]).c_str());
        }
      }
      results << "range names " << shapes[f].name << " tables=" << want_tables << "\n";
    }
    if (me == 0 && (files != 5 || compared_ops < 5 * 5000))
      ++failures, std::fprintf(stderr, "FAIL range names: %d files, %d operations compared\n", files, compared_ops);
  }

  // Rank 0 prints the counts and fails a corpus that exercises too little.
  void summarise() {
    if (me == 0) {
      std::fprintf(stderr,
                   "key shards on %d ranks: %d decided (%d holding, %d with a witness, %d with anomalies, %d with unknown "
                   "transactions included, %d gathered, %d with blind writes), %d refused; %d decided by the sharded serial witness: %d failures\n",
                   dist::size(), decided, holding, with_witness, with_anomalies, unknown_included, gathered, decided_blind, refused, by_witness,
                   failures);
      // The corpus must exercise what it claims.
      std::fprintf(stderr, "general engine on the shards: %d settled; generated blind-write cases %d, %d violated\n",
                   general_settled, blind_cases, blind_violated);
      if (gathered < 30 || decided < 300 || with_witness < 60 || with_anomalies < 20 || holding < 60 || decided_blind < 80 || unknown_included < 3 ||
          by_witness < 50 || general_settled < 20 || blind_violated < 2 || blind_violated > blind_cases - 4)
        ++failures, std::fprintf(stderr, "FAIL: the corpus does not exercise enough cases\n");
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  dist::init();
  std::string src = argv[1], out = argv[2];
  const int me = dist::rank();
  if (me == 0) fs::create_directories(out);
  MPI_Barrier(MPI_COMM_WORLD);
  KeyShardsTest t;
  t.src = src, t.out = out;
  t.me = me;
  if (me == 0) t.results.open(out + "/results.txt");
  t.check_examples_and_random();
  t.check_large_components();
  t.check_driver();
  t.check_gather_budget();
  t.check_peel();
  t.check_range_names();
  t.summarise();
  int failures = t.failures;
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dist::finalize();
  return failures ? 1 : 0;
}
