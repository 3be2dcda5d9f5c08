// Forgetting: the driver and its first phases (forget.h): the candidates,
// what each transaction touches, and the versions with their readers and
// successors.
#include <algorithm>
#include <cstdio>

#include "audit/forget.h"

namespace isocheck::audit_detail {

// Marks the frozen transactions (docs/audit.md), builds the new summary from
// their frontier writes, and drops them (and every aborted transaction).
void Auditor::forget(uint64_t round, RoundStat& st) { ForgetPass(*this, round, st).run(); }

ForgetPass::ForgetPass(Auditor& a, uint64_t round, RoundStat& st)
    : a_(a),
      s_(a.s_),
      opt_(a.opt_),
      c(a.s_.carry),
      round_(round),
      st_(st),
      n(c.txn_count()),
      old_pieces(s_.has_summary ? s_.summary_txns : 0),
      unindexed(opt_.index_summary ? 0 : old_pieces),
      threads(a.audit_threads()),
      fence(s_.rule == ForgetRule::fence),
      skew(opt_.check.clock_skew) {
  for (Level l : opt_.check.levels) rt_edges |= l == Level::sser;
}

void ForgetPass::phase(const char* name) {
  if (!opt_.debug_timing) return;
  char b[64];
  std::snprintf(b, sizeof b, " %s=%.3f", name, ph_timer_.seconds());
  ph_log_ += b;
}

void ForgetPass::run() {
  if (!candidates()) return;
  phase("touches");
  index_touches();
  phase("versions");
  index_versions();
  phase("blind");
  index_blind();
  index_time_edges();
  phase("session");
  next_in_session.assign(n, ~0u);
  std::vector<uint32_t> last_in(c.session_count(), ~0u);
  for (size_t t = n; t-- > 0;) {
    uint32_t s = c.txn_session[t];
    next_in_session[t] = last_in[s];
    last_in[s] = static_cast<uint32_t>(t);
  }
  unfrozen.assign(n, 0);
  extra_root.assign(n, 0);
  phase("propagate");
  propagate();
  too_little();
  settle_frontier();
  phase("frontier");
  if (!build_summary()) return;
  phase("copy");
  copy_kept();
}

int64_t ForgetPass::ord(uint32_t t) const {
  if (fence) return s_.nf[t];
  return c.has_times(t) ? c.txn_end[t] : kPosInf;
}

int64_t ForgetPass::lim(uint32_t u) const {
  if (fence) return s_.pf[u];
  if (!c.has_times(u)) return kNegInf;
  // begin - skew - 1 in 128 bits; below the smallest time nothing is
  // before u (every end is above kNegInf, the "no time" marker)
  const __int128 l = static_cast<__int128>(c.txn_begin[u]) - skew - 1;
  return l < kNegInf ? kNegInf : static_cast<int64_t>(l);
}

// Candidates: ordered before every transaction of future rounds.
bool ForgetPass::candidates() {
  cand.assign(n, 0);
  if (fence) {
    int64_t M = a_.future_min_pf(round_);
    for (size_t t = 0; t < n; ++t)
      // strictly below M: every later transaction then has a fence after the
      // summary's fence before it in its session (docs/audit.md)
      if (s_.pf[t] == s_.nf[t] && s_.nf[t] != kPosInf && s_.nf[t] < M && c.txn_status[t] == TxnStatus::committed)
        m = std::max(m, s_.nf[t]);  // fences (and the summary) have pf == nf
    if (m == kNegInf) return false;
    for (size_t t = 0; t < n; ++t) cand[t] = s_.nf[t] <= m;
    // --time-order (a level other than sser): a later writer that ended
    // before a candidate writer began precedes it in every key they share,
    // and the fence chain puts the candidate first: the summary would lose
    // that cycle. A writer that began after the least end of a later writer
    // (+ skew, in 128 bits) is therefore no candidate (docs/audit.md, "The
    // fence rule with --time-order").
    if (a_.fence_time_order()) {
      const __int128 E = static_cast<__int128>(a_.future_min_write_end(round_)) + skew;
      for (size_t t = 0; t < n; ++t) {
        if (!cand[t] || !c.has_times(static_cast<TxnIdx>(t)) || !(E < c.txn_begin[t])) continue;
        for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
          if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) {
            cand[t] = 0;
            break;
          }
      }
    }
  } else {
    int64_t B = a_.future_min_begin(round_);
    for (size_t t = 0; t < n; ++t)
      // end + skew < B in 128 bits, as check() compares (B - skew overflows
      // when B is near the smallest time)
      cand[t] = c.has_times(static_cast<TxnIdx>(t)) &&
                (B == kPosInf || static_cast<__int128>(c.txn_end[t]) + skew < static_cast<__int128>(B));
  }
  return true;
}

void ForgetPass::index_touches() {
  touch_off.assign(n + 1, 0);
  root.assign(n, 0);
  aborted.assign(n, 0);
  reads_off.assign(n + 1, 0);
  FlatMap64 touch_of(256);                 // key -> touch index, in large transactions
  // (at most one touch and one read per operation: no regrowth, no copies)
  touches.reserve(c.op_count());
  reads.reserve(c.op_count());
  read_op.reserve(c.op_count());
  for (size_t t = 0; t < n; ++t) {
    touch_off[t] = touches.size();
    reads_off[t] = reads.size();
    if (c.txn_status[t] == TxnStatus::aborted) {
      aborted[t] = 1;
      continue;
    }
    if (c.txn_status[t] == TxnStatus::unknown || s_.pending[t] || !cand[t]) root[t] = 1;
    // The old summary's pieces get no touches: an edge out of a piece
    // matters only when the piece is unfrozen, and then nothing is
    // forgotten at all; the edges into a piece are session order, real time
    // and "a read of the initial state precedes every writer" (visited from
    // the ops below); their final writes enter the frontier from the ops
    // (summary_writes). So 2 of every ~4 operations of a round at 10^6
    // keys are not indexed.
    if (t < unindexed) continue;
    size_t first = touches.size();
    // Large transactions (the summary pieces: 128 keys) look their keys up
    // in a table; small ones scan their few touches.
    const bool large = c.op_end(t) - c.op_begin(t) > 16;
    if (large) touch_of = FlatMap64(256);
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o) {
      Sym k = c.op_key[o];
      Touch* tp = nullptr;
      if (touches.size() > first && touches.back().key == k) {
        tp = &touches.back();  // a read-modify-write: the same key as the op before
      } else if (large && k != FlatMap64::kEmpty) {
        bool ins;
        uint64_t& i = touch_of.get_or_insert(k, touches.size(), ins);
        if (!ins) tp = &touches[i];
      } else {
        for (size_t i = first; i < touches.size(); ++i)
          if (touches[i].key == k) tp = &touches[i];
      }
      if (!tp) {
        touches.push_back({k, 0, 0, false, false});
        tp = &touches.back();
      }
      switch (c.op_kind[o]) {
        case OpKind::read:
          if (!tp->has_write && !tp->has_read) {
            tp->has_read = true;
            tp->read_v = c.op_value[o];
            tp->read_at = static_cast<uint32_t>(reads.size());
          }
          if (!tp->has_write) {
            reads.push_back({k, c.op_value[o]});
            read_op.push_back(o);
          }
          break;
        case OpKind::write:
          if (!tp->has_read && !tp->has_write) tp->blind = true;
          tp->has_write = true;
          tp->write_v = c.op_value[o];
          tp->write_op = o;
          break;
        case OpKind::append:
        case OpKind::read_list:
          tp->list = true;
          root[t] = 1;  // list keys: never forgotten (docs/audit.md)
          break;
      }
    }
  }
  touch_off[n] = touches.size();
  reads_off[n] = reads.size();
}

// Versions: (key, value) -> id; writer, readers, read-modify-write successors.
// Written ones as check_round numbered them; the initial state and values
// no carry transaction wrote get ids after those.
uint32_t ForgetPass::read_version(size_t i) {
  uint32_t id = a_.op_version_[read_op[i]];
  if (id != PairMap::kEmpty) return id;
  uint32_t& x = vid.at(reads[i].first, reads[i].second);
  if (x == PairMap::kEmpty) x = nv++;
  return x;
}

namespace {
// Counting sort of (version, txn) pairs by version into offsets and
// destinations (stable: destinations stay in transaction order), adjacent
// repeats dropped.
void csr(uint32_t nv, std::vector<std::pair<uint32_t, uint32_t>>& e, std::vector<uint32_t>& off,
         std::vector<uint32_t>& dst) {
  off.assign(nv + 2, 0);
  for (auto& p : e) ++off[p.first + 2];
  for (uint32_t i = 0; i < nv; ++i) off[i + 2] += off[i + 1];
  dst.resize(e.size());
  for (auto& p : e) dst[off[p.first + 1]++] = p.second;
  off.pop_back();  // off[v] .. off[v+1]: destinations of v
  std::vector<uint32_t> noff(nv + 1, 0);
  size_t k = 0;
  for (uint32_t v = 0; v < nv; ++v) {
    noff[v] = static_cast<uint32_t>(k);
    for (uint32_t j = off[v]; j < off[v + 1]; ++j)
      if (j == off[v] || dst[j] != dst[j - 1]) dst[k++] = dst[j];
  }
  noff[nv] = static_cast<uint32_t>(k);
  dst.resize(k);
  off = std::move(noff);
  e.clear();
}
}  // namespace

void ForgetPass::index_versions() {
  if (a_.numbered_round_ != round_ || a_.op_version_.size() != c.op_count()) a_.number_versions(round_);
  nv = a_.written_versions_;
  size_t unwritten = 0;
  for (OpIdx o : read_op) unwritten += a_.op_version_[o] == PairMap::kEmpty;
  vid = PairMap(unwritten + 1);
  rver.resize(reads.size());
  std::vector<std::pair<uint32_t, uint32_t>> rd, sc;  // (version, reader) / (version, successor)
  rd.reserve(reads.size());
  sc.reserve(reads.size());
  for (size_t t = 0; t < n; ++t) {
    if (aborted[t]) continue;
    for (uint64_t i = reads_off[t]; i < reads_off[t + 1]; ++i) {
      uint32_t v = read_version(i);
      rver[i] = v;
      rd.push_back({v, static_cast<uint32_t>(t)});
    }
    for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i) {
      Touch& tc = touches[i];
      if (tc.has_write) {
        tc.wver = a_.op_version_[tc.write_op];
        // (the first read of the key, before the write: its version is known)
        if (tc.has_read) sc.push_back({rver[tc.read_at], static_cast<uint32_t>(t)});
      }
      // The summary's writes are blind only in form: every retained or later
      // transaction was already certainly after the forgotten ones (docs/audit.md).
      if ((tc.blind || tc.list) && !(t < old_pieces)) {
        bool ins;
        key_blind.get_or_insert(tc.key, 1, ins);
      }
    }
  }
  phase("csr");
  csr(nv, rd, rd_off, rd_dst);
  csr(nv, sc, sc_off, sc_dst);
}

}  // namespace isocheck::audit_detail
