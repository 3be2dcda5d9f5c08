// Forgetting: the edges that may exist between the carry's transactions, and
// "unfrozen" propagated along them from the roots (forget.h).
#include <algorithm>

#include "audit/forget.h"

namespace isocheck::audit_detail {

// Blind (or list) keys: their writers sorted by how late they can be
// "before" others. Only writers: an edge on key k into a transaction that
// only reads k is a read-from edge, which is certain (from the writer of
// the version read, followed below); write-write and anti-dependency edges
// end at a writer of k. (List keys: their touchers are roots anyway.)
// One slot per key, its writers as (ord, txn) in one flat array by slot.
void ForgetPass::index_blind() {
  any_blind = key_blind.size() > 0;
  if (!any_blind) return;
  constexpr uint32_t kTwoWriters = ~0u - 1;
  uint32_t nslots = 0;
  std::vector<Sym> ks;
  ks.reserve(key_blind.size());
  key_blind.for_each([&](uint64_t k, uint64_t) { ks.push_back(k); });
  for (Sym k : ks) *key_blind.find(k) = nslots++;
  slot_off.assign(nslots + 2, 0);
  for (size_t t = unindexed; t < n; ++t)
    for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i) {
      Touch& tc = touches[i];
      const uint64_t* p = key_blind.find(tc.key);
      tc.slot = p ? static_cast<uint32_t>(*p) : ~0u;
      if (tc.slot != ~0u && tc.has_write && t >= old_pieces) ++slot_off[tc.slot + 2];
    }
  for (uint32_t k = 0; k < nslots; ++k) slot_off[k + 2] += slot_off[k + 1];
  slot_w.resize(slot_off[nslots + 1]);
  for (size_t t = std::max<size_t>(old_pieces, unindexed); t < n; ++t)
    for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
      if (const Touch& tc = touches[i]; tc.slot != ~0u && tc.has_write)
        slot_w[slot_off[tc.slot + 1]++] = {ord(static_cast<uint32_t>(t)), static_cast<uint32_t>(t)};
  slot_off.pop_back();  // slot_off[k] .. slot_off[k+1]: slot k's writers
  for (uint32_t k = 0; k < nslots; ++k) std::sort(slot_w.begin() + slot_off[k], slot_w.begin() + slot_off[k + 1]);
  slot_done.assign(slot_off.begin() + 1, slot_off.end());
  slot_skipped.resize(nslots);
  // The writer of each written version (~0u: two writers, a duplicate
  // write, which fails every level anyway).
  writer_of.assign(a_.written_versions_, ~0u);
  for (size_t t = 0; t < n; ++t)
    for (OpIdx o = c.op_begin(t); o < c.op_end(t); ++o)
      if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append)
        if (uint32_t v = a_.op_version_[o]; v < writer_of.size()) {
          uint32_t& w = writer_of[v];
          w = w == ~0u || w == static_cast<uint32_t>(t) ? static_cast<uint32_t>(t) : kTwoWriters;
        }
  for (uint32_t& w : writer_of)
    if (w == kTwoWriters) w = ~0u;
}

// Real-time successors (sser), sorted by begin; --time-order's successors
// without sser's real time.
void ForgetPass::index_time_edges() {
  if (rt_edges) {
    // (begin, txn) pairs: the sort compares contiguous data, not through an
    // index; order among equal begins is irrelevant (visited together)
    std::vector<std::pair<int64_t, uint32_t>> bt;
    for (size_t t = 0; t < n; ++t)
      if (!aborted[t] && c.has_times(static_cast<TxnIdx>(t))) bt.push_back({c.txn_begin[t], static_cast<uint32_t>(t)});
    if (!std::is_sorted(bt.begin(), bt.end())) std::sort(bt.begin(), bt.end());
    by_begin.reserve(bt.size());
    for (auto& p : bt) by_begin.push_back(p.second);
    rt_done = by_begin.size();
  }
  // --time-order without sser's real time (which has these edges and more):
  // a timed writer u precedes every timed writer t of a key u writes with
  // end(u) + skew < begin(t), a certain edge. Per key, its timed writers by
  // begin (t >= old_pieces: the summary's pieces, like every frozen
  // transaction, began no later than any kept or later writer ended plus
  // the skew, docs/audit.md); each is visited once, from the top.
  tw_edges = opt_.check.time_order && !rt_edges;
  if (!tw_edges) return;
  tw_slot = FlatMap64(1024);
  auto timed_writes = [&](auto&& f) {
    for (size_t t = std::max<size_t>(old_pieces, unindexed); t < n; ++t)
      if (!aborted[t] && c.has_times(static_cast<TxnIdx>(t)))
        for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
          if (touches[i].has_write) f(static_cast<uint32_t>(t), touches[i].key);
  };
  std::vector<uint32_t> count;
  timed_writes([&](uint32_t, Sym k) {
    bool ins;
    uint64_t& slot = tw_slot.get_or_insert(k, count.size(), ins);
    if (ins) count.push_back(0);
    ++count[slot];
  });
  tw_off.assign(count.size() + 1, 0);
  for (size_t k = 0; k < count.size(); ++k) tw_off[k + 1] = tw_off[k] + count[k];
  tw_done.assign(tw_off.begin(), tw_off.end() - 1);  // (fill position first)
  tw_w.resize(tw_off.back());
  timed_writes([&](uint32_t t, Sym k) { tw_w[tw_done[*tw_slot.find(k)]++] = {c.txn_begin[t], t}; });
  for (size_t k = 0; k < count.size(); ++k) std::sort(tw_w.begin() + tw_off[k], tw_w.begin() + tw_off[k + 1]);
}

// Propagation of "unfrozen" along every edge that may exist, from the roots
// (transactions that can still gain an incoming edge). A reached transaction
// is kept: no kept transaction may have a certain edge into a forgotten one
// (the summary merges them). Pruning what a root reaches by how its order
// values compare (with ser/sser a root never reaches a transaction certainly
// before it) is unsound when a "maybe" edge is in fact certain (a read of a
// version older than a blind write certainly ordered after it): the kept
// reader would have a certain edge into a forgotten transaction. So only the
// per-edge test stays (a maybe-edge into a transaction certainly before the
// reader does not exist). docs/audit.md.
void ForgetPass::visit(uint32_t t, bool maybe) {
  if (t == ~0u || aborted[t]) return;
  if (maybe && ord(t) == kNegInf) return;  // certainly before every transaction
  if (unfrozen[t]) return;
  unfrozen[t] = 1;
  stack_.push_back(t);
}

// A read of the initial state by an unfrozen transaction unfreezes every
// writer of the key. The writers are looked up only for such keys (few:
// only unfrozen readers ask), a batch of keys per pass over the touches,
// not listed for every key some transaction read as null. The old summary's
// reads of the initial state are left out: when the summary is unfrozen
// nothing is forgotten, whatever else it reaches.
void ForgetPass::ask_writers(Sym k) {
  bool ins = false;
  if (k == FlatMap64::kEmpty) ins = !minus_one_asked, minus_one_asked = true;
  else null_asked.get_or_insert(k, 0, ins);
  if (ins) wanted.push_back(k);
}

void ForgetPass::visit_wanted_writers() {
  FlatMap64 want(wanted.size());
  bool minus_one = false;
  for (Sym k : wanted) {
    bool ins;
    if (k == FlatMap64::kEmpty) minus_one = true;
    else want.get_or_insert(k, 0, ins);
  }
  wanted.clear();
  auto wanted_key = [&](Sym k) { return k == FlatMap64::kEmpty ? minus_one : want.find(k) != nullptr; };
  for (uint32_t t = 0; t < unindexed; ++t)  // (pieces: committed, no touches)
    summary_writes(t, [&](OpIdx o, bool) {
      if (wanted_key(c.op_key[o])) visit(t, false);
    });
  for (size_t t = unindexed; t < n; ++t) {
    if (aborted[t]) continue;
    for (uint64_t i = touch_off[t]; i < touch_off[t + 1]; ++i)
      if (const Touch& tc = touches[i]; tc.has_write && wanted_key(tc.key)) visit(static_cast<uint32_t>(t), false);
  }
}

// Maybe-edges u -> t: u read a version of a blind key, and any writer t of
// the key not certainly before u may follow that version and u (an
// anti-dependency), except the version's own writer.
void ForgetPass::visit_blind_successors(uint32_t u) {
  for (uint64_t i = reads_off[u]; i < reads_off[u + 1]; ++i) {
    const uint64_t* slot = key_blind.find(reads[i].first);
    if (!slot) continue;
    const uint32_t v = rver[i];
    const uint32_t skip = v < writer_of.size() ? writer_of[v] : ~0u;
    const int64_t thr = lim(u);
    std::vector<uint32_t>& sk = slot_skipped[*slot];
    for (size_t j = 0; j < sk.size();)
      if (sk[j] != skip && ord(sk[j]) > thr) {
        visit(sk[j], true);
        sk[j] = sk.back();
        sk.pop_back();
      } else {
        ++j;
      }
    uint32_t& done = slot_done[*slot];
    const uint32_t first = slot_off[*slot];
    if (done > first && slot_w[done - 1].first > thr) {
      uint32_t lo = static_cast<uint32_t>(
          std::upper_bound(slot_w.begin() + first, slot_w.begin() + done, thr,
                           [](int64_t x, const std::pair<int64_t, uint32_t>& e) { return x < e.first; }) -
          slot_w.begin());
      for (uint32_t j = lo; j < done; ++j)
        if (slot_w[j].second == skip) sk.push_back(skip);
        else visit(slot_w[j].second, true);  // maybe
      done = lo;
    }
  }
}

// Real-time successors (sser) and --time-order's, each visited once.
void ForgetPass::visit_time_successors(uint32_t u) {
  if (rt_edges && c.has_times(u)) {
    // end + skew, saturated: past the largest time nothing begins after it
    const __int128 e128 = static_cast<__int128>(c.txn_end[u]) + skew;
    const int64_t e = e128 > kPosInf ? kPosInf : static_cast<int64_t>(e128);
    size_t lo = std::upper_bound(by_begin.begin(), by_begin.end(), e,
                                 [&](int64_t x, uint32_t t) { return x < c.txn_begin[t]; }) - by_begin.begin();
    for (size_t j = lo; j < rt_done; ++j) visit(by_begin[j], false);
    rt_done = std::min(rt_done, lo);
  }
  if (tw_edges && u >= old_pieces && c.has_times(u)) {
    const __int128 e128 = static_cast<__int128>(c.txn_end[u]) + skew;
    const int64_t e = e128 > kPosInf ? kPosInf : static_cast<int64_t>(e128);
    for (uint64_t i = touch_off[u]; i < touch_off[u + 1]; ++i) {
      if (!touches[i].has_write) continue;
      const uint64_t* slot = tw_slot.find(touches[i].key);
      if (!slot) continue;
      uint32_t& done = tw_done[*slot];
      const uint32_t lo = static_cast<uint32_t>(
          std::upper_bound(tw_w.begin() + tw_off[*slot], tw_w.begin() + done, e,
                           [](int64_t x, const std::pair<int64_t, uint32_t>& w) { return x < w.first; }) -
          tw_w.begin());
      for (uint32_t j = lo; j < done; ++j) visit(tw_w[j].second, false);
      done = std::min(done, lo);
    }
  }
}

// Incremental: the frontier loop only adds roots, and what a call unfroze
// (and the slots, real-time ranges and keys it followed) stays valid, so a
// later call goes on from there: the closure is the same as from scratch.
void ForgetPass::propagate() {
  for (size_t t = 0; t < n; ++t)
    if (root[t] || extra_root[t]) visit(static_cast<uint32_t>(t), false);
  while (!stack_.empty() || !wanted.empty()) {
    if (stack_.empty()) {
      visit_wanted_writers();
      continue;
    }
    const uint32_t u = stack_.back();
    stack_.pop_back();
    visit(next_in_session[u], false);  // certain
    for (uint64_t i = touch_off[u]; i < touch_off[u + 1]; ++i) {
      const Touch& tc = touches[i];
      if (tc.has_write) {
        uint32_t v = tc.wver;
        for (uint32_t j = rd_off[v]; j < rd_off[v + 1]; ++j) visit(rd_dst[j], false);
        for (uint32_t j = sc_off[v]; j < sc_off[v + 1]; ++j) visit(sc_dst[j], false);
      }
    }
    if (any_blind) visit_blind_successors(u);
    for (uint64_t i = reads_off[u]; i < reads_off[u + 1]; ++i) {
      uint32_t v = rver[i];
      for (uint32_t j = sc_off[v]; j < sc_off[v + 1]; ++j) visit(sc_dst[j], false);
      // a read of the initial state precedes every write of the key: certain
      if (reads[i].second == kNullValue && u >= old_pieces) ask_writers(reads[i].first);
    }
    visit_time_successors(u);
  }
}

// Too little to gain (the frontier only keeps more): leave it all, and the
// caller defers the next attempt (blind-write logs). Only the aborted
// transactions are dropped then, as when the old summary is unfrozen (so
// indexing the summary's pieces or not still ends alike).
bool ForgetPass::too_little() {
  size_t gain = 0;
  for (size_t t = 0; t < n; ++t) gain += !unfrozen[t] || aborted[t];
  if (gain * 16 >= n) return false;
  phase("gave_up");
  return gave_up = true;
}

}  // namespace isocheck::audit_detail
