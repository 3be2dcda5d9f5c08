#include "collect/workload.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace isocheck::collect {
namespace {

// A draw in [0, 1), the workloads' chance of read-only transactions and shapes.
double uniform01(std::mt19937_64& rng) { return std::uniform_real_distribution<double>(0, 1)(rng); }

}  // namespace

bool Plan::read_only() const {
  for (const auto& s : steps)
    if (s.op == PlanOp::write || s.op == PlanOp::append || s.op == PlanOp::transfer) return false;
  return true;
}

KeySampler::KeySampler(uint64_t keys, KeyDist dist, double theta)
    : keys_(static_cast<int64_t>(keys)) {
  if (keys == 0) throw UsageError("--keys must be at least 1");
  if (dist == KeyDist::zipf) {
    if (keys > (uint64_t{1} << 27)) throw UsageError("--dist zipf supports at most 2^27 keys");
    if (!(theta > 0)) throw UsageError("--zipf-theta must be positive");
    auto cdf = std::make_shared<std::vector<double>>(keys);
    double sum = 0;
    for (uint64_t i = 0; i < keys; ++i) sum += 1.0 / std::pow(double(i + 1), theta);
    double acc = 0;
    for (uint64_t i = 0; i < keys; ++i) {
      acc += 1.0 / std::pow(double(i + 1), theta) / sum;
      (*cdf)[i] = acc;
    }
    cdf->back() = 1.0;
    cdf_ = std::move(cdf);
  }
}

int64_t KeySampler::sample_cdf(double u) const {
  auto it = std::lower_bound(cdf_->begin(), cdf_->end(), u);
  if (it == cdf_->end()) --it;
  return it - cdf_->begin();
}

uint32_t WorkloadGen::default_ops(Workload w) {
  switch (w) {
    case Workload::mt: return 4;
    case Workload::rmw: return 8;
    case Workload::blindw_rw:
    case Workload::blindw_rm: return 8;
    case Workload::append: return 4;
    case Workload::bank: return 4;
    case Workload::scan:
    case Workload::rows:
    case Workload::oncall: return 3;  // (fixed shapes: --ops is not used)
    case Workload::lwt: return 1;
  }
  return 4;
}

double WorkloadGen::default_read_only(Workload w) {
  switch (w) {
    case Workload::mt: return 0.25;
    case Workload::rmw: return 0.25;
    case Workload::blindw_rw: return 0.5;
    case Workload::blindw_rm: return 0.9;
    case Workload::append: return 0.0;  // reads are mixed into every txn instead
    case Workload::bank: return 0.2;
    case Workload::scan:
    case Workload::rows:
    case Workload::oncall: return 0.3;
    case Workload::lwt: return 0.0;  // (a failed compare-and-set is the read)
  }
  return 0.25;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

WorkloadGen::WorkloadGen(const Options& opt, const KeySampler& keys, uint32_t session)
    : opt_(opt), keys_(keys), rng_(splitmix64(opt.seed * 0x100000001b3ULL + session)) {
  ops_ = opt.ops ? opt.ops : default_ops(opt.workload);
  read_only_ = opt.read_only >= 0 ? opt.read_only : default_read_only(opt.workload);
  if (opt.workload == Workload::mt && ops_ > 4)
    throw UsageError("mini-transactions have at most 4 operations (--ops <= 4)");
  if (read_only_ > 1) throw UsageError("--read-only is a share in [0, 1]");
}

std::vector<int64_t> WorkloadGen::distinct_keys(size_t n) {
  n = std::min<size_t>(n, keys_.keys());
  std::vector<int64_t> out;
  out.reserve(n);
  // Rejection while the sample is small against the key space; the zipf head
  // may need many draws, so fall back to a scan after a bound.
  for (size_t tries = 0; out.size() < n && tries < 64 * n + 64; ++tries) {
    int64_t k = key();
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  for (int64_t k = 0; out.size() < n; ++k)
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

Plan WorkloadGen::next() {
  switch (opt_.workload) {
    case Workload::mt: return next_mt();
    case Workload::rmw: return next_rmw();
    case Workload::blindw_rw:
    case Workload::blindw_rm: return next_blindw();
    case Workload::append: return next_append();
    case Workload::bank: return next_bank();
    case Workload::scan:
    case Workload::rows: return next_scan();
    case Workload::lwt: return next_lwt();
    case Workload::oncall: return next_oncall();
  }
  return {};
}

// Mini-transactions (MTC Def. 8): one or two reads, at most two writes, each
// write preceded by a read of its key. Shapes, with x != y:
//   read-only: r(x) | r(x) r(y)
//   update:    r(x) w(x) | r(x) r(y) w(x) | r(x) r(y) w(x) w(y)
// r(x) r(y) w(x) against r(x) r(y) w(y) is the write-skew pair.
Plan WorkloadGen::next_mt() {
  Plan p;
  bool two = ops_ >= 2 && keys_.keys() >= 2;
  auto ks = distinct_keys(two ? 2 : 1);
  if (uniform01(rng_) < read_only_) {
    p.steps.push_back({PlanOp::read, ks[0]});
    if (ks.size() > 1 && uniform01(rng_) < 0.5) p.steps.push_back({PlanOp::read, ks[1]});
    return p;
  }
  double shape = uniform01(rng_);
  if (ks.size() < 2 || ops_ < 3 || shape < 0.25) {  // r(x) w(x)
    p.steps = {{PlanOp::read, ks[0]}, {PlanOp::write, ks[0]}};
  } else if (ops_ < 4 || shape < 0.75) {            // r(x) r(y) w(x)
    p.steps = {{PlanOp::read, ks[0]}, {PlanOp::read, ks[1]}, {PlanOp::write, ks[0]}};
  } else {                                          // r(x) r(y) w(x) w(y)
    p.steps = {{PlanOp::read, ks[0]}, {PlanOp::read, ks[1]}, {PlanOp::write, ks[0]},
               {PlanOp::write, ks[1]}};
  }
  return p;
}

// Read-modify-write: `ops` operations on distinct keys, each a read or a read
// followed by a write of that key; an update txn starts with a read+write.
// Every write follows a read of its key, so the version order is known.
Plan WorkloadGen::next_rmw() {
  Plan p;
  bool ro = uniform01(rng_) < read_only_;
  auto ks = distinct_keys(ops_);
  uint32_t used = 0;
  for (size_t i = 0; i < ks.size() && used < ops_; ++i) {
    p.steps.push_back({PlanOp::read, ks[i]});
    ++used;
    bool write = !ro && used < ops_ && (i == 0 || uniform01(rng_) < 0.5);
    if (write) {
      p.steps.push_back({PlanOp::write, ks[i]});
      ++used;
    }
  }
  return p;
}

// Cobra's BlindW: read-only txns of `ops` reads, or write-only txns of `ops`
// blind writes (distinct keys). -rw: half read-only; -rm: 90% read-only.
Plan WorkloadGen::next_blindw() {
  Plan p;
  bool ro = uniform01(rng_) < read_only_;
  auto ks = distinct_keys(ops_);
  // Writers take their row locks in key order: no deadlocks among them.
  if (!ro) std::sort(ks.begin(), ks.end());
  for (int64_t k : ks) p.steps.push_back({ro ? PlanOp::read : PlanOp::write, k});
  return p;
}

// List-append: `ops` operations on distinct lists, each an append of a unique
// value or a read of the whole list (half and half).
Plan WorkloadGen::next_append() {
  Plan p;
  bool ro = uniform01(rng_) < read_only_;
  auto ks = distinct_keys(ops_);
  std::sort(ks.begin(), ks.end());  // appends lock rows in key order: no deadlocks
  for (int64_t k : ks)
    p.steps.push_back({(ro || uniform01(rng_) < 0.5) ? PlanOp::read_list : PlanOp::append, k});
  return p;
}

// Bank: a transfer reads two accounts and writes both (a read-modify-write of
// each: the money moves, the recorded value is the unique version tag), or a
// read of every balance in one statement.
Plan WorkloadGen::next_bank() {
  Plan p;
  if (uniform01(rng_) < read_only_ || keys_.keys() < 2) {
    p.steps.push_back({PlanOp::read_all, 0});
    return p;
  }
  auto ks = distinct_keys(2);
  std::sort(ks.begin(), ks.end());  // accounts locked in key order: no deadlocks
  int64_t amount = std::uniform_int_distribution<int64_t>(1, 10)(rng_);
  if (uniform01(rng_) < 0.5) amount = -amount;  // either direction
  p.steps = {{PlanOp::read, ks[0]},
             {PlanOp::read, ks[1]},
             {PlanOp::transfer, ks[0], -amount},
             {PlanOp::transfer, ks[1], amount}};
  return p;
}

// Range scans over a group of rows (collect.h), three shapes:
//   read-only (--read-only share): scan, point read of a doctor, scan again —
//     the two scans differ when a row was inserted between them (a phantom
//     READ COMMITTED allows);
//   on call: scan, then one doctor's row goes off call when two are on call,
//     else one goes on — two such transactions on a snapshot each take a
//     different doctor off (the predicate write skew of REPEATABLE READ);
//   check then insert: scan, then insert the group's next row — each saw the
//     other's row absent (a phantom cycle on a snapshot).
Plan WorkloadGen::next_scan() {
  Plan p;
  const bool deletes = opt_.workload == Workload::rows;
  const int64_t groups = std::max<int64_t>(1, static_cast<int64_t>(keys_.keys()) / kScanGroupKeys);
  const int64_t g = key() % groups;
  if (uniform01(rng_) < read_only_) {
    const int64_t doctor = g * kScanGroupKeys + std::uniform_int_distribution<int64_t>(0, kScanDoctors - 1)(rng_);
    p.steps = {{PlanOp::scan, g}, {PlanOp::read, doctor}, {PlanOp::scan, g}};
  } else if (const double u = uniform01(rng_); u < (deletes ? 0.45 : 0.6)) {
    p.steps = {{PlanOp::scan, g}, {PlanOp::on_call, g}};
  } else if (!deletes || u < 0.75) {
    p.steps = {{PlanOp::scan, g}, {PlanOp::insert, g}};
  } else {
    p.steps = {{PlanOp::scan, g}, {PlanOp::remove, g}};  // rows: a quarter of the updates delete
  }
  return p;
}

// Doctors on call through a value predicate: read-only (--read-only share):
// the on-call scan, a point read of a doctor, the scan again (READ COMMITTED
// shows them differ); else the on-call scan, then a doctor goes off call when
// two are on, or one goes on — two such on a snapshot each take a different
// doctor off (predicate write skew through `WHERE v < 0`).
Plan WorkloadGen::next_oncall() {
  Plan p;
  const int64_t groups = std::max<int64_t>(1, static_cast<int64_t>(keys_.keys()) / kScanGroupKeys);
  const int64_t g = key() % groups;
  if (uniform01(rng_) < read_only_) {
    const int64_t doctor = g * kScanGroupKeys + std::uniform_int_distribution<int64_t>(0, kScanDoctors - 1)(rng_);
    p.steps = {{PlanOp::oncall_scan, g}, {PlanOp::read, doctor}, {PlanOp::oncall_scan, g}};
  } else {
    p.steps = {{PlanOp::oncall_scan, g}, {PlanOp::oncall_update, g}};
  }
  return p;
}

// Lightweight transactions (verify --level lin): one statement on one key,
// a compare-and-set (80%) or an insert-if-absent.
Plan WorkloadGen::next_lwt() {
  Plan p;
  p.steps.push_back({uniform01(rng_) < 0.8 ? PlanOp::cas : PlanOp::insert_if_absent, key()});
  return p;
}

}  // namespace isocheck::collect
