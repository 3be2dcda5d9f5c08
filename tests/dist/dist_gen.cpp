// Writes histories for the distributed tests and the scaling benchmark.
//   dist_gen glued OUT --parts N --seed S [--share]
//       N oracle random histories glued on disjoint keys (many blocks);
//       --share makes consecutive parts share a session (articulation).
//   dist_gen many OUT --components C --txns T [--sessions-per K] [--seed S] [--violate]
//       C independent groups of K sessions, each on its own keys, T
//       read-modify-write transactions in all (2 keys each), serial inside a
//       group, so serializable; --violate plants a lost update in the last group;
//       --dup-id A:B gives transaction B (0-based) the id of transaction A;
//       --bad-kind O writes operation O's kind as 99 (malformed; HDF5 only).
// OUT ending in .h5/.hdf5 is written as HDF5, otherwise JSONL.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dist/glue.h"
#include "io/hdf5.h"
#include "io/jsonl.h"
#include "oracle/random_history.h"

using namespace isocheck;

static void write(const History& h, const std::string& out) {
  bool h5 = out.size() > 3 && (out.ends_with(".h5") || out.ends_with(".hdf5"));
  if (h5) write_hdf5(h, out);
  else write_jsonl(h, out);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dist_gen glued|many OUT [options]\n");
    return 2;
  }
  std::string mode = argv[1], out = argv[2];
  uint64_t parts = 3, seed = 1, comps = 100, txns = 10000, per = 4;
  bool share = false, violate = false;
  int64_t dup_from = -1, dup_to = -1, bad_kind = -1;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    auto num = [&] { return std::stoull(argv[++i]); };
    if (a == "--parts") parts = num();
    else if (a == "--seed") seed = num();
    else if (a == "--share") share = true;
    else if (a == "--components") comps = num();
    else if (a == "--txns") txns = num();
    else if (a == "--sessions-per") per = num();
    else if (a == "--violate") violate = true;
    else if (a == "--bad-kind") bad_kind = static_cast<int64_t>(num());
    else if (a == "--dup-id" && i + 1 < argc) {
      std::string v = argv[++i];
      dup_from = std::stoll(v.substr(0, v.find(':'))), dup_to = std::stoll(v.substr(v.find(':') + 1));
    }
    else { std::fprintf(stderr, "dist_gen: unknown option %s\n", a.c_str()); return 2; }
  }
  if (mode == "glued") {
    std::vector<History> ps;
    RandomHistoryOptions ro;
    for (uint64_t i = 0; i < parts; ++i) {
      ro.mode = (seed + i) % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
      ps.push_back(random_history(seed * 100 + i, ro));
    }
    write(testing_glue::glue(ps, share), out);
    return 0;
  }
  if (mode != "many") return 2;
  History h;
  h.time_unit = "us";
  std::mt19937_64 rng(seed);
  for (uint64_t s = 0; s < comps * per; ++s) h.session_name.push_back(static_cast<int64_t>(s));
  const uint64_t keys_per = 16;
  std::vector<Sym> last(comps * keys_per, kNullValue);
  std::vector<int64_t> next_val(comps * keys_per, 1);
  for (uint64_t t = 0; t < txns; ++t) {
    uint64_t c = rng() % comps, s = c * per + rng() % per;
    h.begin_txn(static_cast<int64_t>(t + 1), static_cast<uint32_t>(s), TxnStatus::committed, kNoTime, kNoTime);
    uint64_t k1 = rng() % keys_per, k2 = (k1 + 1 + rng() % (keys_per - 1)) % keys_per;
    for (uint64_t k : {k1, k2}) {
      uint64_t g = c * keys_per + k;
      h.add_op(OpKind::read, g, last[g]);
      Sym v = static_cast<Sym>(next_val[g]++);
      h.add_op(OpKind::write, g, v);
      last[g] = v;
    }
    h.end_txn();
  }
  if (violate) {  // lost update: two transactions read one version of a key and both write it
    uint64_t c = comps - 1, g = c * keys_per;
    for (int i = 0; i < 2; ++i) {
      h.begin_txn(static_cast<int64_t>(txns + 1 + i), static_cast<uint32_t>(c * per + i % per), TxnStatus::committed, kNoTime, kNoTime);
      h.add_op(OpKind::read, g, last[g]);
      h.add_op(OpKind::write, g, static_cast<Sym>(next_val[g]++));
      h.end_txn();
    }
  }
  if (dup_to >= 0) h.txn_id.at(static_cast<size_t>(dup_to)) = h.txn_id.at(static_cast<size_t>(dup_from));
  if (bad_kind >= 0) h.op_kind.at(static_cast<size_t>(bad_kind)) = static_cast<OpKind>(99);
  write(h, out);
  return 0;
}
