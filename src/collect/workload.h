// Transaction plans for the collector's workloads: which keys each
// transaction reads and writes, in order. Values are chosen at execution
// time (unique per session), so a plan is pure and deterministic in the seed.
#pragma once
#include <cstdint>
#include <random>
#include <memory>
#include <vector>

#include "collect/collect.h"

namespace isocheck::collect {

enum class PlanOp : uint8_t {
  read,       // SELECT v FROM kv WHERE k
  write,      // upsert v (blind unless the plan read k before)
  append,     // upsert v = v || x
  read_list,  // SELECT v FROM list WHERE k (whole list)
  read_all,   // SELECT k, v, bal FROM kv (bank: every account)
  read_all_lists,  // SELECT k, v FROM list (the final read of append histories)
  transfer,   // bank: write k with balance moved (amount in `arg`, signed)
  // scan workload (`key`: the group, collect.h):
  scan,       // SELECT k, v FROM kv WHERE k BETWEEN the group's first and last key
  on_call,    // after a scan of the group: with two doctors on call (odd v) one goes off, else one goes on
  insert,     // INSERT a row into the group's next unused key (none when the group is full)
  remove,     // rows: DELETE one of the inserted rows the last scan returned (none when it returned none)
  // oncall workload (`key`: the group):
  oncall_scan,    // SELECT k, v FROM kv WHERE k BETWEEN the group's doctors AND v < 0 (on call)
  oncall_update,  // with two on call (by the last such scan) one goes off, else one goes on; read first
  // lwt workload: one statement on one key, its outcome returned
  cas,               // compare-and-set from the value this session last saw (insert-if-absent when none)
  insert_if_absent,  // INSERT ... ON CONFLICT: the present value when there is one
};

struct PlanStep {
  PlanOp op;
  int64_t key;
  int64_t arg = 0;
};

struct Plan {
  std::vector<PlanStep> steps;
  bool read_only() const;
};

// Key choice: uniform or zipf over [0, keys); hot keys are the small ones.
class KeySampler {
 public:
  KeySampler(uint64_t keys, KeyDist dist, double theta);
  template <class Rng> int64_t operator()(Rng& rng) const {
    if (!cdf_) return std::uniform_int_distribution<int64_t>(0, keys_ - 1)(rng);
    double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    return sample_cdf(u);
  }
  uint64_t keys() const { return static_cast<uint64_t>(keys_); }

 private:
  int64_t sample_cdf(double u) const;
  int64_t keys_;
  std::shared_ptr<const std::vector<double>> cdf_;
};

// One generator per session (its own random stream from seed and session).
class WorkloadGen {
 public:
  WorkloadGen(const Options& opt, const KeySampler& keys, uint32_t session);
  Plan next();
  // Same keys and shape as `p` (a retry after an abort).
  Plan retry(const Plan& p) const { return p; }

  // Defaults when Options::ops / read_only are unset.
  static uint32_t default_ops(Workload w);
  static double default_read_only(Workload w);

 private:
  int64_t key() { return keys_(rng_); }
  // `n` distinct keys.
  std::vector<int64_t> distinct_keys(size_t n);
  Plan next_mt();
  Plan next_rmw();
  Plan next_blindw();
  Plan next_append();
  Plan next_bank();
  Plan next_scan();
  Plan next_lwt();
  Plan next_oncall();

  const Options& opt_;
  const KeySampler& keys_;
  std::mt19937_64 rng_;
  uint32_t ops_;
  double read_only_;
};

// Bank: balance of an account with no row, and the total of `keys` accounts.
inline constexpr int64_t kBankInitialBalance = 100;

}  // namespace isocheck::collect
