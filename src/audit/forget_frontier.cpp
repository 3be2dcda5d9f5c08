// Forgetting: the frontier (per key, the frozen final writes not certainly
// overwritten by another frozen write), ambiguous ones kept or settled by
// later reads (forget.h; docs/audit.md, "Ambiguous frontiers").
#include <algorithm>
#include <cstdio>

#include "audit/forget.h"
#include "core/radix_order.h"

namespace isocheck::audit_detail {

// Whether later rounds can read, for every (key, value) in `chosen`, that
// version as the last frozen write of its key: the frozen transactions
// (`frozen`) checked alone, with one reader per pair added, each in a session
// of its own and certainly after every frozen transaction, as every later
// transaction is: it begins after every frozen one ended (time rule: real
// time) and, under the fence rule, first reads the fence value m (after the
// chain that every frozen transaction precedes; the fences up to m join the
// check). A passing
// check has an order of the frozen transactions with every chosen writer last
// among the frozen writes of its key (docs/audit.md, "Ambiguous
// frontiers"). Only the frozen ones: the kept ones would order the readers
// after more than a later transaction must follow. (Runs beside a check of
// the carry: only reads it.)
bool Auditor::later_read_possible(const std::vector<std::pair<Sym, Sym>>& chosen, const std::vector<uint8_t>& frozen,
                                  int64_t m) {
  const std::vector<Level> levels = checked_levels_;
  const History& c = s_.carry;
  const bool fence = s_.rule == ForgetRule::fence;
  if (levels.empty()) return false;
  History h;  // the frozen transactions, without the tables (check() needs them only for words)
  h.session_name = c.session_name;
  h.time_unit = c.time_unit;
  bool timed = true;
  int64_t last_end = kNegInf, id = kNegInf, fence_value = kNegInf, latest_next_fence = kNegInf;
  Sym fence_sym = kNullValue;
  for (size_t t = 0; t < c.txn_count(); ++t) {
    // Fence rule: with the frozen transactions, every committed fence up to
    // m (kept ones too: they only read and write the fence key), so that the
    // chain from each frozen transaction's next fence to m is whole. (Fences
    // past m are left out: a reader of m's value would precede them.)
    const bool chain = fence && s_.pf[t] == s_.nf[t] && s_.nf[t] <= m && c.txn_status[t] == TxnStatus::committed;
    if (!frozen[t] && !chain) continue;
    const TxnIdx x = static_cast<TxnIdx>(t);
    if (c.txn_status[t] == TxnStatus::committed) timed &= c.has_times(x);
    if (c.has_times(x)) last_end = std::max(last_end, c.txn_end[t]);
    id = std::max(id, c.txn_id[t]);
    if (fence) {
      latest_next_fence = std::max(latest_next_fence, s_.nf[t]);
      if (s_.pf[t] == s_.nf[t] && s_.nf[t] > fence_value && c.txn_status[t] == TxnStatus::committed)
        for (OpIdx o = c.op_begin(x); o < c.op_end(x); ++o)
          if (c.op_kind[o] == OpKind::write && c.op_key[o] == fence_sym_) fence_value = s_.nf[t], fence_sym = c.op_value[o];
    }
    h.begin_txn(c.txn_id[t], c.txn_session[t], c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(x); o < c.op_end(x); ++o)
      if (c.op_kind[o] == OpKind::read_list) h.add_list_read(c.op_key[o], c.list(o));
      else h.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
    h.end_txn();
  }
  // (fence rule: a frozen transaction whose next fence is past the largest
  // frozen one would not be certainly before the readers)
  if (fence && (fence_value == kNegInf || latest_next_fence > fence_value)) {
    if (opt_.debug_timing)
      std::fprintf(stderr, "later-read check: not run (largest frozen fence %lld, a frozen next fence %lld)\n",
                   (long long)fence_value, (long long)latest_next_fence);
    return false;
  }
  const int64_t skew = opt_.check.clock_skew, n = static_cast<int64_t>(chosen.size());
  if (timed && (last_end == kNegInf || last_end > kPosInf / 2 - skew)) return false;
  const int64_t begin = timed ? last_end + skew + 1 : kNoTime, end = timed ? kPosInf - 1 : kNoTime;
  int64_t session = *std::max_element(c.session_name.begin(), c.session_name.end());
  if (id > kPosInf - 1 - n || session > kPosInf - 1 - n) return false;
  for (auto [key, value] : chosen) {
    h.session_name.push_back(++session);
    h.begin_txn(++id, static_cast<uint32_t>(h.session_name.size() - 1), TxnStatus::committed, begin, end);
    if (fence) h.add_op(OpKind::read, fence_sym_, fence_sym);
    h.add_op(OpKind::read, key, value);
    h.end_txn();
  }
  CheckOptions co = opt_.check;
  co.levels = levels;
  Timer ct;
  CheckResult r = check(h, co);
  bool holds = r.anomalies.empty();
  for (auto& lr : r.levels) holds = holds && lr.decided && lr.holds;
  if (opt_.debug_timing)
    std::fprintf(stderr, "later-read check: %zu frozen, %zu readers, %.3f s, %s\n", static_cast<size_t>(h.txn_count()),
                 chosen.size(), ct.seconds(), holds ? "possible" : "not possible: writers kept");
  return holds;
}

// Per key, the frozen final writes not certainly overwritten by another
// frozen write (certain order, or a frozen read-modify-write successor). Two
// or more: ambiguous -> keep them (and what they reach), repeat. Ambiguous
// frontiers are settled by later reads when the index is built: settling by
// a read of one version needs a check of the frozen transactions (never a
// pending reader: those are roots); if that check fails, this round keeps
// such writers.
void ForgetPass::settle_frontier() {
  settle = a_.later_reads_.built();
  settle_one = settle;
  while (!gave_up) {
    collect_final_writes();
    phase("sort");
    if (!frontier_pass()) break;
    propagate();
    if (too_little()) break;
  }
}

// The final writes of frozen transactions, by key; only they can overwrite
// (a later read of a version a frozen transaction certainly overwrote is
// then a violation).
void ForgetPass::collect_final_writes() {
  if (fw_built) {
    // Later passes: the writers the last propagation unfroze drop out; the
    // rest keeps its order, the same list as collecting and sorting again.
    std::erase_if(fw, [&](const FinalWrite& f) { return unfrozen[f.txn] != 0; });
    return;
  }
  fw_built = true;
  // (Collected on threads over ranges of transactions, concatenated in
  // order: the same list as one pass.)
  {
    const size_t parts = n >= kParallelTxns ? threads : 1;
    std::vector<std::vector<FinalWrite>> part(parts);
    parallel_pieces(parts, threads, [&](uint64_t p) {
      std::vector<FinalWrite>& out = p == 0 ? fw : part[p];
      const size_t t0 = n * p / parts, t1 = n * (p + 1) / parts;
      size_t most = touch_off[t1] - touch_off[t0];  // at most one final write per touch
      for (size_t t = t0; t < std::min<size_t>(t1, unindexed); ++t) most += c.op_end(t) - c.op_begin(t);
      out.reserve(most);
      for (size_t t = t0, e = t1; t < e; ++t) {
        if (unfrozen[t] || aborted[t]) continue;
        uint32_t w = static_cast<uint32_t>(t);
        if (t < unindexed) {
          summary_writes(w, [&](OpIdx o, bool) { out.push_back({c.op_key[o], o, w, a_.op_version_[o]}); });
          continue;
        }
        for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
          if (const Touch& tc = touches[i]; tc.has_write) out.push_back({tc.key, tc.write_op, w, tc.wver});
      }
    });
    for (size_t p = 1; p < parts; ++p) fw.insert(fw.end(), part[p].begin(), part[p].end());
  }
  phase("final_writes");
  // By (key, op): fw was collected in transaction order and op indices grow
  // with the transaction, so a stable sort by key is that order. Radix
  // passes move the 24-byte records (a comparison sort of wider records was
  // 15% of a 10^7 RMW audit; ordering (key, index) pairs and gathering the
  // records after, 18% of forget at 10^8).
  radix_sort(fw, [](const FinalWrite& f) { return f.key; });
}

// The frontier of the keys of fw[from, to) (whole keys) into `part`.
void ForgetPass::key_frontier(size_t from, size_t to, KeyPart& part) const {
  std::vector<FinalWrite>& frontier = part.frontier;
  std::vector<FinalWrite>& top = part.top;
  for (size_t a = from; a < to;) {
    size_t b = a;
    // the largest and second largest lim, so that w is compared with the others only
    int64_t lim1 = kNegInf, lim2 = kNegInf;
    uint32_t arg1 = ~0u;
    while (b < to && fw[b].key == fw[a].key) {
      // (the old summary's version is the first of its key: it overwrites
      // nothing, whatever its fence value says of the kept writers, which
      // need not all precede the summary once only read frontiers must)
      if (first_version(fw[b])) {
        ++b;
        continue;
      }
      int64_t l = lim(fw[b].txn);
      if (l > lim1) {
        lim2 = lim1;
        lim1 = l;
        arg1 = fw[b].txn;
      } else {
        lim2 = std::max(lim2, l);
      }
      ++b;
    }
    top.clear();
    for (size_t i = a; i < b; ++i) {
      uint32_t w = fw[i].txn;
      bool over = ord(w) <= (w == arg1 ? lim2 : lim1);
      // The old summary's read-modify-write of the initial state installs
      // the first version of its key: any other frozen write overwrites it
      // (its version order is known in every round's check).
      if (!over && b - a > 1) over = first_version(fw[i]);
      uint32_t v = fw[i].wver;
      for (uint32_t j = sc_off[v]; j < sc_off[v + 1] && !over; ++j) over = !unfrozen[sc_dst[j]] && !aborted[sc_dst[j]];
      if (!over) top.push_back(fw[i]);
    }
    // Two or more: which of their versions a kept transaction or one of a
    // later round reads. None: any one stands for the key in the summary
    // (a later read of the key's initial state, or of an older version, is
    // still a violation against it). One: that version, if a check
    // confirms a later read of it is possible. More: kept.
    size_t reads = 0, which = 0;
    if (top.size() > 1 && settle)
      for (size_t q = 0; q < top.size() && reads < 2; ++q) {
        const FinalWrite& f = top[q];
        bool read = a_.later_reads_.read_after(a_.later_fp(c, f.key, c.op_value[f.op]), round_);
        for (uint32_t j = rd_off[f.wver]; j < rd_off[f.wver + 1] && !read; ++j)
          read = unfrozen[rd_dst[j]] && !aborted[rd_dst[j]];
        if (read) ++reads, which = q;
      }
    if (top.size() == 1) {
      frontier.push_back(top[0]);
    } else if (top.size() > 1 && settle && reads == 0) {
      frontier.push_back(top[0]);
      ++part.unread;
    } else if (top.size() > 1 && settle_one && reads == 1) {
      part.one_read.push_back(top[which]);
      for (const FinalWrite& f : top) part.one_read_tops.push_back(f.txn);
    } else if (top.size() > 1) {
      for (const FinalWrite& f : top) part.ambiguous.push_back(f.txn);
    }
    a = b;
  }
}

// A frontier of a blind key stands first in the summary, before every kept
// write of its key. When a kept or later transaction reads its version, that
// matters: a kept writer not certainly after it may have to precede it (a
// later reader after both reads it), so it is kept. When nobody that remains
// reads it, its place against kept writes is invisible (docs/audit.md,
// "Blind writes": kept writers).
bool ForgetPass::must_precede(const FinalWrite& f) const {
  const uint64_t* slot = key_blind.find(f.key);
  if (!slot || first_version(f)) return false;
  bool before_all = true;
  for (uint32_t j = slot_off[*slot]; j < slot_off[*slot + 1] && before_all; ++j) {
    const uint32_t u = slot_w[j].second;
    if (!unfrozen[u] || aborted[u] || u == f.txn || ord(f.txn) <= lim(u)) continue;
    bool successor = false;  // u read-modify-wrote f's version: certainly after
    for (uint32_t q = sc_off[f.wver]; q < sc_off[f.wver + 1] && !successor; ++q) successor = sc_dst[q] == u;
    before_all = successor;
  }
  if (before_all) return false;
  bool read = !a_.later_reads_.built() || a_.later_reads_.read_after(a_.later_fp(c, f.key, c.op_value[f.op]), round_);
  for (uint32_t j = rd_off[f.wver]; j < rd_off[f.wver + 1] && !read; ++j)
    read = unfrozen[rd_dst[j]] && !aborted[rd_dst[j]];
  return read;
}

// One pass over the final writes: the frontier, and whether it kept more
// writers (then propagation goes on and the pass is repeated).
bool ForgetPass::frontier_pass() {
  frontier.clear();
  bool changed = false;
  // Keys are independent: ranges of whole keys on threads, each with its
  // own frontier and ambiguous writers, put together in key order.
  const size_t parts = fw.size() >= kParallelTxns ? threads : 1;
  std::vector<size_t> cut(parts + 1, fw.size());
  cut[0] = 0;
  for (size_t p = 1; p < parts; ++p) {
    size_t i = std::max(cut[p - 1], fw.size() * p / parts);
    while (i > cut[p - 1] && i < fw.size() && fw[i].key == fw[i - 1].key) ++i;
    cut[p] = i;
  }
  std::vector<KeyPart> kp(parts);
  parallel_pieces(parts, threads, [&](uint64_t p) { key_frontier(cut[p], cut[p + 1], kp[p]); });
  std::vector<FinalWrite> one_read;
  std::vector<uint32_t> one_read_tops;
  settled = 0;
  for (KeyPart& part : kp) {
    frontier.insert(frontier.end(), part.frontier.begin(), part.frontier.end());
    for (uint32_t t : part.ambiguous) extra_root[t] = 1;
    changed |= !part.ambiguous.empty();
    one_read.insert(one_read.end(), part.one_read.begin(), part.one_read.end());
    one_read_tops.insert(one_read_tops.end(), part.one_read_tops.begin(), part.one_read_tops.end());
    settled += part.unread;
  }
  if (any_blind)
    for (const std::vector<FinalWrite>* list : {&frontier, &one_read})
      for (const FinalWrite& f : *list)
        if (must_precede(f) && !extra_root[f.txn]) {
          extra_root[f.txn] = 1;
          changed = true;
        }
  // Once nothing else changes: confirm the versions read later (one
  // check for all keys), or keep their writers and go on without.
  if (!changed && !one_read.empty()) {
    std::vector<std::pair<Sym, Sym>> chosen;
    for (const FinalWrite& f : one_read) chosen.push_back({f.key, c.op_value[f.op]});
    std::vector<uint8_t> frozen_now(n);
    for (size_t t = 0; t < n; ++t) frozen_now[t] = !unfrozen[t] && !aborted[t];
    if (a_.later_read_possible(chosen, frozen_now, m)) {
      const size_t mid = frontier.size();
      frontier.insert(frontier.end(), one_read.begin(), one_read.end());
      std::inplace_merge(frontier.begin(), frontier.begin() + mid, frontier.end(),
                         [](const FinalWrite& x, const FinalWrite& y) { return x.key < y.key; });
      settled += one_read.size();
    } else {
      for (uint32_t t : one_read_tops) extra_root[t] = 1;
      settle_one = false;
      changed = true;
      ++s_.result.unsettled_checks;
    }
  }
  return changed;
}

}  // namespace isocheck::audit_detail
