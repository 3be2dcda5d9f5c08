#include "mpi/dist_acyclic.h"

#include <mpi.h>

#include <algorithm>
#include <string>

#include "mpi/exchange.h"
#include "mpi/mpi_env.h"
#include "core/errors.h"

namespace isocheck::dist {

int VertexBlocks::block_of(uint32_t x, uint32_t s, int P) {
  // The first guess is exact or one below (floor rounding of the block ends).
  int r = static_cast<int>((uint64_t{x} * P) / (s ? s : 1));
  if (r >= P) r = P - 1;
  while (r + 1 < P && lo(s, r + 1, P) <= x) ++r;
  while (r > 0 && lo(s, r, P) > x) --r;
  return r;
}

namespace {

// Values bucketed by destination rank, exchanged with one MPI_Alltoallv.
// `fields` uint32 per record, sent as one contiguous MPI datatype.
// (`out` is emptied as it is packed.)
std::vector<uint32_t> to_owners(std::vector<std::vector<uint32_t>>& out, int fields) {
  const int P = size();
  std::vector<int> sc(P), rc(P), sd(P), rd(P);
  uint64_t total = 0;
  for (int r = 0; r < P; ++r) {
    sd[r] = static_cast<int>(total);
    sc[r] = static_cast<int>(out[r].size() / fields);
    total += sc[r];
    if (total > INT32_MAX) throw ResourceError("distributed acyclicity: more than 2^31 edges leave one rank; run on more ranks");
  }
  std::vector<uint32_t> send;
  send.reserve(total * fields);
  for (int r = 0; r < P; ++r) send.insert(send.end(), out[r].begin(), out[r].end()), std::vector<uint32_t>().swap(out[r]);
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t got = 0;
  for (int r = 0; r < P; ++r) {
    rd[r] = static_cast<int>(got);
    got += rc[r];
    if (got > INT32_MAX) throw ResourceError("distributed acyclicity: more than 2^31 edges reach one rank; run on more ranks");
  }
  std::vector<uint32_t> recv(got * fields);
  MPI_Datatype rec;
  MPI_Type_contiguous(fields, MPI_UINT32_T, &rec);
  MPI_Type_commit(&rec);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), rec, recv.data(), rc.data(), rd.data(), rec, MPI_COMM_WORLD);
  MPI_Type_free(&rec);
  return recv;
}

// Kahn's peeling in supersteps over this rank's vertices (local ids): a
// vertex whose count in `deg` is 0 is removed, and each vertex on its list
// adj[off[v]], ..., adj[off[v + 1] - 1] (global ids) has its count lowered:
// at once when it is this rank's, else by its owner in the next superstep.
// `ready`: this rank's vertices at 0 to begin with; `left`: its vertices not
// removed. Ends when no vertex is left anywhere (done) or a superstep sends
// nothing (stuck); returns the vertices left on all ranks together.
uint64_t peel(const VertexBlocks& vb, const std::vector<uint64_t>& off, const std::vector<uint32_t>& adj,
              std::vector<uint32_t>& deg, std::vector<uint32_t>& ready, std::vector<uint8_t>& removed, uint64_t left,
              uint32_t& supersteps) {
  const int P = size(), me = rank();
  std::vector<std::vector<uint32_t>> out(P);
  while (true) {
    ++supersteps;
    while (!ready.empty()) {
      const uint32_t v = ready.back();
      ready.pop_back();
      removed[v] = 1;
      --left;
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
        const uint32_t w = adj[e];
        const int o = vb.owner(w);
        if (o != me) out[o].push_back(w);
        else if (--deg[vb.local(w, me)] == 0) ready.push_back(vb.local(w, me));
      }
    }
    uint64_t sent = 0;
    for (auto& o : out) sent += o.size();
    uint64_t state[2] = {left, sent};
    MPI_Allreduce(MPI_IN_PLACE, state, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (state[0] == 0 || state[1] == 0) return state[0];
    for (uint32_t w : to_owners(out, 1))
      if (--deg[vb.local(w, me)] == 0) ready.push_back(vb.local(w, me));
    for (auto& o : out) o.clear();
  }
}

}  // namespace

PeelStats peel_acyclic(uint32_t n, uint32_t m, std::vector<uint32_t>& src, std::vector<uint32_t>& dst,
                       std::vector<uint32_t>* core) {
  const int P = size(), me = rank();
  const VertexBlocks vb{n, m, P};
  PeelStats st;

  // Route every pair to its source's owner.
  std::vector<uint32_t> mine;  // (src, dst) pairs whose source is mine
  {
    std::vector<std::vector<uint32_t>> out(P);
    for (size_t i = 0; i < src.size(); ++i) {
      auto& o = out[vb.owner(src[i])];
      o.push_back(src[i]), o.push_back(dst[i]);
    }
    std::vector<uint32_t>().swap(src);
    std::vector<uint32_t>().swap(dst);
    mine = to_owners(out, 2);
  }
  // Out-edges of my vertices (CSR by local source), in-degrees of mine, and
  // the in-degree contributions owed to other ranks' vertices.
  const uint32_t count = vb.count(me);
  std::vector<uint64_t> off(uint64_t{count} + 1, 0);
  std::vector<uint32_t> target(mine.size() / 2);
  std::vector<uint32_t> indeg(count, 0);
  uint64_t cross = 0;
  {
    std::vector<std::vector<uint32_t>> owed(P);
    for (size_t i = 0; i < mine.size(); i += 2) {
      ++off[vb.local(mine[i], me) + 1];
      const uint32_t d = mine[i + 1];
      const int o = vb.owner(d);
      if (o == me) ++indeg[vb.local(d, me)];
      else owed[o].push_back(d), ++cross;
    }
    for (uint32_t v = 0; v < count; ++v) off[v + 1] += off[v];
    std::vector<uint64_t> at(off.begin(), off.end() - 1);
    for (size_t i = 0; i < mine.size(); i += 2) target[at[vb.local(mine[i], me)]++] = mine[i + 1];
    std::vector<uint32_t>().swap(mine);
    for (uint32_t d : to_owners(owed, 1)) ++indeg[vb.local(d, me)];
  }
  uint64_t counts[2] = {target.size(), cross};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  st.edges = counts[0], st.cross_edges = counts[1];

  // Kahn's peeling in supersteps.
  std::vector<uint32_t> ready;  // local ids with no in-edge left
  for (uint32_t v = 0; v < count; ++v)
    if (indeg[v] == 0) ready.push_back(v);
  std::vector<uint8_t> removed(count, 0);
  st.left = peel(vb, off, target, indeg, ready, removed, count, st.supersteps);
  st.acyclic = st.left == 0;
  if (st.acyclic || !core) return st;
  std::vector<uint32_t>().swap(indeg);
  std::vector<uint32_t>().swap(ready);

  // The core: peel backwards what is left (vertices without an out-edge to
  // another vertex left), so that only vertices that reach a cycle remain.
  const uint32_t lo_n = VertexBlocks::lo(n, me, P), lo_m = VertexBlocks::lo(m, me, P);
  const uint32_t mine_n = VertexBlocks::lo(n, me + 1, P) - lo_n;
  auto global = [&](uint32_t l) { return l < mine_n ? lo_n + l : n + lo_m + (l - mine_n); };
  // Out-degrees towards vertices left; the in-edges of my vertices left
  // (sources, global), as a CSR by local target.
  std::vector<uint32_t> outdeg(count, 0);
  std::vector<uint32_t> rev_pairs;  // (local target, global source)
  {
    std::vector<std::vector<uint32_t>> ask(P);  // (target, source) to the target's owner
    for (uint32_t v = 0; v < count; ++v) {
      if (removed[v]) continue;
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
        const uint32_t w = target[e];
        const int o = vb.owner(w);
        if (o != me) {
          ask[o].push_back(w), ask[o].push_back(global(v));
        } else if (!removed[vb.local(w, me)]) {
          ++outdeg[v];
          rev_pairs.push_back(vb.local(w, me)), rev_pairs.push_back(global(v));
        }
      }
    }
    const std::vector<uint32_t> asked = to_owners(ask, 2);
    std::vector<std::vector<uint32_t>> live(P);  // sources whose target is left
    for (size_t i = 0; i < asked.size(); i += 2) {
      const uint32_t w = vb.local(asked[i], me);
      if (removed[w]) continue;
      rev_pairs.push_back(w), rev_pairs.push_back(asked[i + 1]);
      live[vb.owner(asked[i + 1])].push_back(asked[i + 1]);
    }
    for (uint32_t v : to_owners(live, 1)) ++outdeg[vb.local(v, me)];
  }
  std::vector<uint64_t>().swap(off);
  std::vector<uint32_t>().swap(target);
  std::vector<uint64_t> roff(uint64_t{count} + 1, 0);
  std::vector<uint32_t> rsrc(rev_pairs.size() / 2);
  for (size_t i = 0; i < rev_pairs.size(); i += 2) ++roff[rev_pairs[i] + 1];
  for (uint32_t v = 0; v < count; ++v) roff[v + 1] += roff[v];
  {
    std::vector<uint64_t> at(roff.begin(), roff.end() - 1);
    for (size_t i = 0; i < rev_pairs.size(); i += 2) rsrc[at[rev_pairs[i]]++] = rev_pairs[i + 1];
    std::vector<uint32_t>().swap(rev_pairs);
  }
  std::vector<uint32_t> back;
  uint64_t left = 0;
  for (uint32_t v = 0; v < count; ++v)
    if (!removed[v]) {
      ++left;
      if (outdeg[v] == 0) back.push_back(v);
    }
  st.core = peel(vb, roff, rsrc, outdeg, back, removed, left, st.supersteps);
  core->clear();
  for (uint32_t v = 0; v < count; ++v)
    if (!removed[v]) core->push_back(global(v));
  return st;
}

bool acyclic_by_file_order(uint32_t n, uint32_t m, bool split, const std::vector<uint32_t>& src,
                           const std::vector<uint32_t>& dst, PeelStats& st) {
  if (m != 0 && !split) return false;  // SSER's time nodes have no file position
  auto pos = [&](uint32_t v) -> uint64_t { return !split ? v : v < n ? 2 * uint64_t{v} + 1 : 2 * uint64_t{v - n}; };
  const uint64_t domain = split ? 2 * uint64_t{n} : n;
  constexpr uint64_t kMaxBackward = uint64_t{1} << 21;
  std::vector<uint64_t> back;  // (low, high) spans of this rank's backward pairs
  for (size_t i = 0; i < src.size(); ++i) {
    const uint64_t p = pos(src[i]), q = pos(dst[i]);
    if (p >= q) {
      back.push_back(q), back.push_back(p);
      if (back.size() > 2 * kMaxBackward) break;  // over the limit on this rank alone
    }
  }
  uint64_t totals[2] = {back.size() / 2, src.size()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (totals[0] > kMaxBackward) return false;
  // Every rank's spans, merged into disjoint intervals (overlapping or
  // sharing an end: a cycle's spans overlap where it turns).
  std::vector<uint64_t> spans = allgather_records(back, "backward pairs");
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  for (size_t i = 0; i < spans.size(); i += 2) iv.push_back({spans[i], spans[i + 1]});
  std::vector<uint64_t>().swap(spans);
  std::sort(iv.begin(), iv.end());
  std::vector<uint64_t> lo, hi;  // the merged intervals, ascending
  uint64_t covered = 0;
  for (const auto& [a, b] : iv) {
    if (!lo.empty() && a <= hi.back()) hi.back() = std::max(hi.back(), b);
    else lo.push_back(a), hi.push_back(b);
  }
  for (size_t k = 0; k < lo.size(); ++k) covered += hi[k] - lo[k] + 1;
  if (2 * covered > domain) return false;
  // This rank's pairs inside one interval (every rank merged the same spans).
  std::vector<uint32_t> in_src, in_dst;
  for (size_t i = 0; i < src.size(); ++i) {
    const uint64_t p = pos(src[i]), q = pos(dst[i]);
    const size_t k = static_cast<size_t>(std::upper_bound(lo.begin(), lo.end(), p) - lo.begin());
    if (k == 0 || p > hi[k - 1]) continue;
    if (q >= lo[k - 1] && q <= hi[k - 1]) in_src.push_back(src[i]), in_dst.push_back(dst[i]);
  }
  const PeelStats inside = peel_acyclic(n, m, in_src, in_dst, nullptr);
  if (!inside.acyclic) return false;
  st = inside;
  st.edges = totals[1];
  return true;
}

}  // namespace isocheck::dist
