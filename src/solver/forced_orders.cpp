#include "solver/forced_orders.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "solver/witness.h"

namespace isocheck {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// The level's certain edges between transactions: what the history shows
// (and the initial state's place first), never an order the engine inferred.
// Split copies are folded onto their transactions; time nodes are left out.
EdgeList certain_edges(const LevelPolygraph& lp) {
  const uint32_t n = lp.txn_count;
  const bool split = lp.layout == GraphLayout::split;
  const EdgeList& k = lp.pg.known;
  EdgeList out;
  for (size_t i = 0; i < k.size(); ++i) {
    if (why_inferred(k.why[i]) || k.kind[i] == EdgeKind::aux || k.kind[i] == EdgeKind::rt) continue;
    uint32_t s = k.src[i], d = k.dst[i];
    if (split) {
      if (s >= 2 * n || d >= 2 * n) continue;
      s = s < n ? s : s - n, d = d < n ? d : d - n;
    } else if (s >= n || d >= n) {
      continue;
    }
    if (s != d) out.add(s, d, k.kind[i], k.why[i]);
  }
  return out;
}

// The two chains of `key` an inferred edge orders (first: the one it puts
// first), or false when the edge does not come from a chain pair.
bool chains_of(const Witness& w, size_t i, const DependencyGraph& g, const History& h, VersionChain& first,
               VersionChain& second) {
  const EdgeList& c = w.cycle;
  const uint32_t pos = why_pos(c.why[i]);
  const TxnIdx holder = c.kind[i] == EdgeKind::rw ? c.src[i] : c.dst[i];
  if (h.op_begin(holder) + pos >= h.op_end(holder)) return false;
  const Sym key = h.op_key[h.op_begin(holder) + pos];
  for (const UnorderedKey& uk : g.unordered) {
    if (uk.key != key) continue;
    bool have_first = false, have_second = false;
    for (uint32_t ch = uk.first_chain; ch < uk.end_chain; ++ch) {
      const VersionChain vc = g.chains.chain(ch);
      if (!vc.txns.empty() && vc.txns.front() == c.dst[i]) second = vc, have_second = true;
      if (c.kind[i] == EdgeKind::ww) {
        if (!vc.txns.empty() && vc.txns.back() == c.src[i]) first = vc, have_first = true;
      } else {
        for (size_t r = 0; r < vc.readers_of_tail.size(); ++r)
          if (vc.readers_of_tail[r] == c.src[i] && vc.reader_pos[r] == pos) first = vc, have_first = true;
      }
    }
    return have_first && have_second;
  }
  return false;
}

// The other place of a scan's open absence an inferred edge chose (graph/
// known_graph.h AbsentChoice): for "the scan ran before the run's first
// writer" the delete ending the run -wr-> the scan, and the reverse; false
// when the edge is not such a choice.
bool absence_other(const Witness& w, size_t i, const DependencyGraph& g, EdgeList& other) {
  const EdgeList& c = w.cycle;
  const bool before = c.kind[i] == EdgeKind::rw;
  if (!before && c.kind[i] != EdgeKind::wr) return false;
  const TxnIdx reader = before ? c.src[i] : c.dst[i], writer = before ? c.dst[i] : c.src[i];
  const uint32_t pos = why_pos(c.why[i]);
  for (const AbsentChoice& a : g.absent_choices) {
    if (a.reader != reader || a.read_pos != pos || (before ? a.first : a.end) != writer) continue;
    if (before) other.add(a.end, a.reader, EdgeKind::wr, a.read_pos);
    else other.add(a.reader, a.first, EdgeKind::rw, a.read_pos);
    return true;
  }
  return false;
}

bool si_cycle(const EdgeList& c) {
  for (size_t i = 0; i < c.size(); ++i)
    if (c.kind[i] == EdgeKind::rw && c.kind[(i + 1) % c.size()] == EdgeKind::rw) return false;
  return true;
}

}  // namespace

void explain_forced_orders(Witness& w, const LevelPolygraph& lp, const DependencyGraph& g, const History& h) {
  std::vector<size_t> inferred;
  for (size_t i = 0; i < w.cycle.size(); ++i)
    if (why_inferred(w.cycle.why[i]) && (w.cycle.kind[i] == EdgeKind::ww || w.cycle.kind[i] == EdgeKind::rw ||
                                        (w.cycle.kind[i] == EdgeKind::wr && !g.absent_choices.empty())))
      inferred.push_back(i);
  if (inferred.empty()) return;
  const uint32_t n = lp.txn_count;
  const EdgeList certain = certain_edges(lp);
  const Csr csr = build_csr(n, certain);
  std::vector<uint64_t> via(n);  // BFS: the certain edge a vertex was reached by
  std::vector<uint8_t> seen(n), target(n);
  for (size_t i : inferred) {
    VersionChain first, second;
    EdgeList other;
    TxnIdx head;
    if (chains_of(w, i, g, h, first, second)) {
      // The other order, `second` before `first`: second's tail and the readers
      // of its tail precede first's head. Each such edge x -> head closes a
      // cycle with a certain path head ~> x; one breadth-first search from the
      // head finds the shortest over all x.
      head = first.txns.front();
      if (!second.txns.empty() && second.txns.back() != head)
        other.add(second.txns.back(), head, EdgeKind::ww, first.write_pos.front());
      for (size_t r = 0; r < second.readers_of_tail.size(); ++r)
        if (second.readers_of_tail[r] != head) other.add(second.readers_of_tail[r], head, EdgeKind::rw, second.reader_pos[r]);
    } else if (absence_other(w, i, g, other)) {
      head = other.dst[0];  // the scan's other place, one edge x -> head
    } else {
      continue;
    }
    std::fill(target.begin(), target.end(), 0);
    for (size_t e = 0; e < other.size(); ++e) target[other.src[e]] = 1;
    std::fill(seen.begin(), seen.end(), 0);
    std::deque<uint32_t> queue{head};
    seen[head] = 1;
    uint32_t reached = kNone;
    // Without a target the search still ends (every vertex is queued once).
    while (!queue.empty() && reached == kNone) {
      const uint32_t v = queue.front();
      queue.pop_front();
      for (uint64_t s = csr.offset[v]; s < csr.offset[v + 1]; ++s) {
        const uint32_t u = csr.target[s];
        if (seen[u]) continue;
        seen[u] = 1, via[u] = csr.edge_id[s];
        if (target[u]) { reached = u; break; }
        queue.push_back(u);
      }
    }
    if (reached == kNone) continue;
    // The cycle: the other order's edge from `reached`, then the path back.
    EdgeList path;
    for (uint32_t v = reached; v != head; v = certain.src[via[v]]) path.add(certain.src[via[v]], v, certain.kind[via[v]], certain.why[via[v]]);
    ForcedOrder f;
    f.edge = i;
    for (size_t e = 0; e < other.size(); ++e)
      if (other.src[e] == reached) {
        f.other_cycle.add(other.src[e], other.dst[e], other.kind[e], other.why[e]);
        break;
      }
    for (size_t e = path.size(); e-- > 0;) f.other_cycle.add(path.src[e], path.dst[e], path.kind[e], path.why[e]);
    if (lp.layout == GraphLayout::split && !si_cycle(f.other_cycle)) continue;
    f.anomaly = name_cycle(f.other_cycle, h);
    w.forced.push_back(std::move(f));
  }
  // A cycle of inferred write orders alone (G0 and its -process/-realtime
  // forms) says nothing the clients saw; when every one of its orders rests on
  // what they saw, name the refutation by the observed cycle that rules out
  // the weakest level. Cycles with reads keep their names (a read-your-writes
  // violation through one inferred order is that, whatever forced the order).
  if (w.forced.size() != inferred.size() || w.anomaly.rfind("G0", 0) != 0) return;
  const ForcedOrder* best = nullptr;
  for (const ForcedOrder& f : w.forced) {
    if (!best) { best = &f; continue; }
    const Model a = weakest_ruled_out(f.other_cycle), b = weakest_ruled_out(best->other_cycle);
    if (a < b || (a == b && f.other_cycle.size() < best->other_cycle.size())) best = &f;
  }
  if (best->anomaly != w.anomaly) w.cycle_anomaly = w.anomaly, w.anomaly = best->anomaly;
}

}  // namespace isocheck
