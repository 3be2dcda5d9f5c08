// The round's check: the carry's versions numbered, reads whose writer is not
// (yet) present left out, check() on the open levels (beside forget when it
// can), its verdicts; and the final check of reads that never found a writer.
#include <algorithm>
#include <cstdio>
#include <future>
#include <memory>

#include "audit/auditor.h"
#include "core/timer.h"
#include "report/report.h"

namespace isocheck::audit_detail {

std::vector<Level> Auditor::open_levels() const {
  std::vector<Level> out;
  for (auto& l : s_.result.levels)
    if (l.verdict != "violated") out.push_back(l.level);
  return out;
}

// Numbers every (key, value) the carry writes (writes and appends, whatever
// the writer's status) and finds the version each register read saw:
// op_version_[o], PairMap::kEmpty for a read of the initial state or of a
// value no carry transaction wrote. check_round tells pending reads by it and
// forget builds its version graph on it: one hash probe per operation for
// both.
void Auditor::number_versions(uint64_t round) {
  const History& c = s_.carry;
  const OpIdx ops = c.op_count();
  versions_ = PairMap(count_writes(c) + 1);
  op_version_.assign(ops, PairMap::kEmpty);
  uint32_t nv = 0;
  constexpr OpIdx kAhead = 8;  // prefetch distance in operations
  for (OpIdx o = 0; o < ops; ++o) {
    if (o + kAhead < ops) versions_.prefetch(c.op_key[o + kAhead], c.op_value[o + kAhead]);
    if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) {
      uint32_t& id = versions_.at(c.op_key[o], c.op_value[o]);
      if (id == PairMap::kEmpty) id = nv++;
      op_version_[o] = id;
    }
  }
  unresolved_reads_ = 0;
  for (OpIdx o = 0; o < ops; ++o) {
    if (o + kAhead < ops) versions_.prefetch(c.op_key[o + kAhead], c.op_value[o + kAhead]);
    if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue) {
      op_version_[o] = versions_.find(c.op_key[o], c.op_value[o]);
      unresolved_reads_ += op_version_[o] == PairMap::kEmpty;
    } else if (c.op_kind[o] == OpKind::read_list) {
      ++unresolved_reads_;  // (its values are looked up by check_round)
    }
  }
  written_versions_ = nv;
  numbered_round_ = round;
}

// Checks carry (reads without a present writer left out) on the open levels.
void Auditor::check_round(uint64_t round, bool beside_forget) {
  History& c = s_.carry;
  size_t n = c.txn_count();
  CheckOptions co = opt_.check;
  co.levels = open_levels();
  checked_levels_ = co.levels;
  // Beside forget, the check starts before the versions are numbered (both
  // only read the carry): when the last checked round had no pending read it
  // is likely this one has none either, so the check is started now and kept
  // if so; otherwise it is waited for, dropped, and the stripped carry
  // checked below. (Read-modify-write logs never have pending reads.) Only
  // with 4 threads or more: on 2 cores the read-ahead thread holds the other
  // one, and the early start gained nothing (fenced 10^8 day log 120.8 s
  // with it, 114.8-119.3 s without).
  std::shared_ptr<std::future<CheckResult>> early;
  auto start_check = [&] {
    return std::make_shared<std::future<CheckResult>>(std::async(std::launch::async, [this, co] {
      Timer ct;
      CheckResult r = check(s_.carry, co);
      if (opt_.debug_timing)
        std::fprintf(stderr, "check beside forget: %.3f s, %zu txns, %zu ops\n", ct.seconds(),
                     static_cast<size_t>(s_.carry.txn_count()), static_cast<size_t>(s_.carry.op_count()));
      return r;
    }));
  };
  if (beside_forget && audit_threads() >= 4 && !co.levels.empty() && !last_round_pending_) early = start_check();
  number_versions(round);
  std::vector<uint8_t> keep_op;
  bool any_pending = false;
  if (unresolved_reads_ == 0) std::fill(s_.pending.begin(), s_.pending.end(), 0);  // (every read's writer is here)
  else keep_op.assign(c.op_count(), 1);
  for (TxnIdx t = 0; t < n && unresolved_reads_ > 0; ++t) {
    s_.pending[t] = 0;
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      bool missing = false;
      if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue)
        missing = op_version_[o] == PairMap::kEmpty;
      else if (c.op_kind[o] == OpKind::read_list)
        for (Sym v : c.list(o)) missing |= versions_.find(c.op_key[o], v) == PairMap::kEmpty;
      if (missing) {
        keep_op[o] = 0;
        if (!s_.checked_op[o]) s_.pending[t] = 1;
        any_pending = true;
      }
    }
  }
  last_round_pending_ = any_pending;
  if (co.levels.empty()) return;
  if (early && any_pending) {
    early->wait();  // (its result is of the unstripped carry: dropped)
    early.reset();
  }
  if (beside_forget && !any_pending) {
    auto result = early ? early : start_check();
    finish_check_ = [this, round, result] {
      CheckResult r = result->get();
      apply_check(round, s_.carry, r);
    };
    return;
  }
  History stripped;
  const History* h = &c;
  if (any_pending) {
    stripped.keys = std::move(c.keys);
    stripped.values = std::move(c.values);
    stripped.session_name = c.session_name;
    stripped.time_unit = c.time_unit;
    for (TxnIdx t = 0; t < n; ++t) {
      stripped.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
      for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
        if (!keep_op[o]) continue;
        if (c.op_kind[o] == OpKind::read_list) stripped.add_list_read(c.op_key[o], c.list(o));
        else stripped.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
        copy_predicate_mark(stripped, c, o);
      }
      stripped.end_txn();
    }
    h = &stripped;
  }
  CheckResult r;
  try {
    r = check(*h, co);
  } catch (...) {
    if (any_pending) {
      c.keys = std::move(stripped.keys);
      c.values = std::move(stripped.values);
    }
    throw;
  }
  apply_check(round, *h, r);
  if (any_pending) {
    c.keys = std::move(stripped.keys);
    c.values = std::move(stripped.values);
  }
}

// A round's check() result into the levels' verdicts and explanations (h:
// the history it checked).
void Auditor::apply_check(uint64_t round, const History& hist, CheckResult& r) {
  const History* h = &hist;
  auto& res = s_.result;
  if (!r.anomalies.empty()) {
    res.anomalies += r.anomalies.size();
    // Each level fails by the anomalies it does not allow (a lost update
    // fails SI and above, not read committed); lines: the first five of those.
    for (auto& l : res.levels) {
      if (l.verdict == "violated") continue;
      std::vector<std::string> lines;
      const Anomaly* first = nullptr;
      for (const Anomaly& a : r.anomalies) {
        if (!anomaly_fails(a.kind, l.level)) continue;
        if (!first) first = &a;
        if (lines.size() < 5) lines.push_back(explain_anomaly(*h, a));
      }
      if (!first) continue;
      l.verdict = "violated";
      l.round = round;
      l.anomaly = to_string(first->kind);
      l.explanation = std::move(lines);
    }
  }
  for (auto& lr : r.levels) {
    for (auto& l : res.levels) {
      if (l.level != lr.level || l.verdict == "violated") continue;
      if (!lr.decided) {
        l.verdict = "undecided";
        l.round = round;
        l.explanation = {lr.reason};
      } else if (!lr.holds) {
        l.verdict = "violated";
        l.round = round;
        l.explanation.clear();
        if (lr.witness) {
          l.anomaly = lr.witness->anomaly;
          for (size_t i = 0; i < lr.witness->cycle.size(); ++i) l.explanation.push_back(explain_edge(*h, lr.witness->cycle, i));
        }
      }
    }
  }
}

void Auditor::finish() {
  auto& res = s_.result;
  // Reads whose writer never appeared (or was forgotten): thin air, an
  // aborted/forgotten version; every level fails (docs/audit.md).
  // Only committed transactions and unknown ones some read observed count
  // (an unknown transaction nobody read is left out, as check() does).
  const History& c = s_.carry;
  PairMap writers(count_writes(c) + 1);
  for (TxnIdx t = 0; t < c.txn_count(); ++t)
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) writers.at(c.op_key[o], c.op_value[o]) = t;
  // Observed, as check() includes them: committed transactions, then
  // transitively the unknown ones an included transaction read from (an
  // unknown reader nobody observed does not make its writer count). The
  // readers of an unknown writer are never forgotten (it is a root), so the
  // carry holds every reader that matters.
  std::vector<uint8_t> observed(c.txn_count(), 0);
  std::vector<TxnIdx> stack;
  for (TxnIdx t = 0; t < c.txn_count(); ++t)
    if (c.txn_status[t] == TxnStatus::committed) observed[t] = 1, stack.push_back(t);
  while (!stack.empty()) {
    TxnIdx t = stack.back();
    stack.pop_back();
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      auto see = [&](Sym v) {
        uint32_t w = writers.find(c.op_key[o], v);
        if (w != PairMap::kEmpty && w != t && !observed[w] && c.txn_status[w] == TxnStatus::unknown)
          observed[w] = 1, stack.push_back(w);
      };
      if (c.op_kind[o] == OpKind::read && c.op_value[o] != kNullValue) see(c.op_value[o]);
      else if (c.op_kind[o] == OpKind::read_list)
        for (Sym v : c.list(o)) see(v);
    }
  }
  uint64_t unresolved = 0;
  int64_t example = 0;
  for (size_t t = 0; t < s_.pending.size(); ++t)
    if (s_.pending[t] && (c.txn_status[t] == TxnStatus::committed ||
                          (c.txn_status[t] == TxnStatus::unknown && observed[t]))) {
      if (!unresolved) example = s_.carry.txn_id[t];
      ++unresolved;
    }
  if (unresolved) {
    res.anomalies += unresolved;
    for (auto& l : res.levels)
      if (l.verdict != "violated") {
        l.verdict = "violated";
        l.round = res.rounds ? res.rounds - 1 : 0;
        l.anomaly = "unresolved read";
        l.explanation = {std::to_string(unresolved) + " transaction(s), e.g. T" + std::to_string(example) +
                         ", read a value no transaction of the log wrote, or a version that every later "
                         "transaction was already ordered after (thin air, aborted or stale read)"};
      }
  }
  res.final_kept = s_.carry.txn_count();
  res.complete = true;
}

}  // namespace isocheck::audit_detail
