// Forgetting: the new carry, the summary of the frozen transactions'
// frontier first, then the kept ones in order (forget.h).
#include <algorithm>
#include <cstdio>

#include "audit/forget.h"

namespace isocheck::audit_detail {

// The new carry's session index of a session name (its sessions are
// numbered anew, in the order they appear).
uint32_t ForgetPass::new_session(int64_t name) {
  auto [it, fresh] = a_.session_index_.try_emplace(name, static_cast<uint32_t>(nc.session_name.size()));
  if (fresh) nc.session_name.push_back(name);
  return it->second;
}

// The new summary and the kept transactions' sessions (false: nothing is
// dropped, the carry stays as it is).
bool ForgetPass::build_summary() {
  // Preconditions of a summary: the old summary is frozen; a frozen fence
  // carries the chain (fence rule); something to forget.
  size_t frozen = 0;
  bool frozen_fence = false;
  for (size_t t = 0; t < n; ++t)
    if (!unfrozen[t] && !aborted[t]) {
      ++frozen;
      if (fence && s_.pf[t] == s_.nf[t]) frozen_fence = true;
    }
  size_t n_aborted = std::count(aborted.begin(), aborted.end(), 1);
  bool summary_unfrozen = false;
  for (size_t t = 0; t < old_pieces; ++t) summary_unfrozen |= unfrozen[t] != 0;
  bool can = !gave_up && frozen > 0 && !summary_unfrozen && (!fence || frozen_fence);
  if (can) s_.result.settled_frontiers += settled;
  if (!can && n_aborted == 0) return false;
  if (!can) std::fill(unfrozen.begin(), unfrozen.end(), 1);  // drop only the aborted ones
  phase("summary");
  a_.join_check();  // a check beside this forget still reads the carry
  // Build the new carry: summary, then kept transactions in order.
  {
    size_t kept = 0, kept_ops = 0;
    for (size_t t = 0; t < n; ++t)
      if (unfrozen[t] && !aborted[t]) ++kept, kept_ops += c.op_end(t) - c.op_begin(t);
    nc.reserve_more(kept + frontier.size() / 64 + 1, kept_ops + 2 * frontier.size());
  }
  nc.keys = std::move(c.keys);
  nc.values = std::move(c.values);
  nc.time_unit = c.time_unit;
  a_.session_index_.clear();
  summary = can;
  if (summary) {
    // b, e: the pieces' times (when every frozen transaction has times);
    // latest_begin: the latest begin of a frozen one with times (the marker).
    int64_t b = kPosInf, e = kNegInf, latest_begin = kNegInf;
    bool times = true;
    for (size_t t = 0; t < n; ++t)
      if (!unfrozen[t] && !aborted[t]) {
        if (!c.has_times(static_cast<TxnIdx>(t))) times = false;
        else {
          b = std::min(b, c.txn_begin[t]);
          e = std::max(e, c.txn_end[t]);
          latest_begin = std::max(latest_begin, c.txn_begin[t]);
        }
      }
    // The real-time marker (fence rule, sser: docs/audit.md, "The summary's
    // real time"). A later transaction that ended before a frozen one began
    // has a real-time edge into it, while the fence chain orders the frozen
    // one before it: a cycle. The pieces begin at the earliest begin, which
    // keeps that edge only when the later one ended before every frozen one
    // began (and they have no times when one frozen transaction has none). So
    // an empty transaction first in the summary's session spans the latest
    // begin to the latest end: a later transaction ending before it began
    // ended before some frozen one began. (No kept transaction did: real-time
    // successors of kept ones are kept.) It has no operations, so it orders no
    // writes (--time-order) and reads nothing.
    const bool marker = fence && rt_edges && latest_begin != kNegInf && (!times || latest_begin > b);
    // Pieces of at most kPiece keys in the summary session (check() is
    // quadratic in one transaction's operations); session order chains them
    // and the fence key goes last, so every piece precedes the chain's next fence.
    constexpr size_t kPiece = 128;
    // (entries in key order: which piece holds a key does not matter, every
    // piece is the summary, ordered before everything kept or later)
    std::vector<std::pair<Sym, Sym>> kv;
    constexpr Sym kNo = ~0ULL - 1;  // (unset; fence keys are named symbols)
    std::pair<Sym, Sym> fence_kv{kNo, kNo};
    int64_t fval = kNegInf;
    for (const FinalWrite& f : frontier) {
      const Sym value = c.op_value[f.op];
      if (f.key == a_.fence_sym_) {
        fence_kv = {f.key, value};
        sym_int(nc.values, value, fval);
      } else {
        kv.push_back({f.key, value});
      }
    }
    // Only keys a kept transaction touches go into the pieces (and the fence
    // key); the others wait in rest_ until a later round touches them.
    {
      FlatMap64 kept_keys(1024);
      for (size_t t = old_pieces; t < n; ++t)
        if (unfrozen[t] && !aborted[t])
          for (uint64_t j = touch_off[t]; j < touch_off[t + 1]; ++j) {
            bool ins;
            if (touches[j].key != FlatMap64::kEmpty) kept_keys.get_or_insert(touches[j].key, 0, ins);
          }
      size_t w = 0;
      for (size_t i = 0; i < kv.size(); ++i) {
        if (i + 16 < kv.size()) a_.rest_.prefetch(kv[i + 16].first);
        auto& e = kv[i];
        if (e.first == FlatMap64::kEmpty || kept_keys.find(e.first)) {  // (a key the table cannot hold stays)
          kv[w++] = e;
        } else {
          a_.rest_.set(e.first, e.second);
        }
      }
      kv.resize(w);
    }
    if (fence_kv.first != kNo) kv.push_back(fence_kv);
    // Keys whose initial state a kept transaction read: there the summary
    // writes blindly (a kept read-modify-write of the initial state and the
    // summary may be in either order).
    FlatMap64 null_read(64);
    for (size_t t = 0; t < n; ++t)
      if (unfrozen[t] && !aborted[t])
        for (uint64_t i = reads_off[t]; i < reads_off[t + 1]; ++i)
          if (reads[i].second == kNullValue) {
            bool ins;
            null_read.get_or_insert(reads[i].first, 1, ins);
          }
    if (marker) {  // (carry txn 0: fence value as the pieces')
      nc.begin_txn(kSummaryMarkerId, new_session(kSummarySession), TxnStatus::committed, latest_begin, e);
      nc.end_txn();
      npf.push_back(fval);
      nnf.push_back(fval);
      npend.push_back(0);
    }
    size_t pieces = std::max<size_t>(1, (kv.size() + kPiece - 1) / kPiece);
    for (size_t p = 0; p < pieces; ++p) {
      nc.begin_txn(kSummaryId + static_cast<int64_t>(p), new_session(kSummarySession), TxnStatus::committed,
                   times ? b : kNoTime, times ? e : kNoTime);
      // read-modify-write of the initial state: the summary's version is the
      // first of its key (nothing kept or later precedes it), and the version
      // order stays known, so check() needs no general engine for it.
      for (size_t i = p * kPiece; i < std::min(kv.size(), (p + 1) * kPiece); ++i) {
        if (!null_read.find(kv[i].first)) nc.add_op(OpKind::read, kv[i].first, kNullValue);
        nc.add_op(OpKind::write, kv[i].first, kv[i].second);
      }
      nc.end_txn();
      npf.push_back(fence ? fval : kNegInf);
      nnf.push_back(fence ? fval : kPosInf);
      npend.push_back(0);
    }
    s_.summary_txns = static_cast<uint32_t>(pieces + marker);
    st_.frontier = frontier.size();
  }
  return true;
}

// The kept transactions copied after the summary; the carry replaced.
void ForgetPass::copy_kept() {
  std::vector<uint8_t> nchecked(nc.op_count(), 0);
  uint64_t forgotten = 0;
  for (size_t t = 0; t < n; ++t) {
    if (aborted[t] || !unfrozen[t]) {
      if (!(t < old_pieces)) ++forgotten;
      continue;
    }
    nc.begin_txn(c.txn_id[t], new_session(c.session_name[c.txn_session[t]]), c.txn_status[t], c.txn_begin[t], c.txn_end[t]);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      if (c.op_kind[o] == OpKind::read_list) nc.add_list_read(c.op_key[o], c.list(o));
      else nc.add_op(c.op_kind[o], c.op_key[o], c.op_value[o]);
      copy_predicate_mark(nc, c, o);
      uint8_t chk = s_.checked_op[o];
      nchecked.push_back(chk);
    }
    nc.end_txn();
    npf.push_back(s_.pf[t]);
    nnf.push_back(s_.nf[t]);
    npend.push_back(s_.pending[t]);
  }
  phase("end");
  if (opt_.debug_timing) std::fprintf(stderr, "forget phases (cumulative s):%s\n", ph_log_.c_str());
  a_.awaiting_nf_.assign(nc.session_count(), {});
  for (size_t t = summary ? s_.summary_txns : old_pieces; t < nc.txn_count(); ++t)
    if (nnf[t] == kPosInf) a_.awaiting_nf_[nc.txn_session[t]].push_back(static_cast<uint32_t>(t));
  s_.carry = std::move(nc);
  s_.pf = std::move(npf);
  s_.nf = std::move(nnf);
  s_.pending = std::move(npend);
  s_.checked_op = std::move(nchecked);
  s_.has_summary = summary || s_.has_summary;
  st_.forgotten = forgotten;
  s_.result.forgotten += forgotten;
}

}  // namespace isocheck::audit_detail
