#include "mpi/shard_partition.h"

#include <algorithm>
#include <array>

#include "mpi/collectives.h"
#include "mpi/exchange.h"

namespace isocheck::dist {
Partition sharded_partition(const History& h) {
  int P = size(), me = rank();
  uint64_t n = h.txn_count();
  TxnIdx first = static_cast<TxnIdx>(n * me / P), last = static_cast<TxnIdx>(n * (me + 1) / P);
  // Local (key, session) -> ops, deduplicated.
  std::vector<KeyTriple> local;
  {
    std::vector<std::pair<uint64_t, uint64_t>> ks;
    for (TxnIdx t = first; t < last; ++t)
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) ks.push_back({h.op_key[o], h.txn_session[t]});
    std::sort(ks.begin(), ks.end());
    for (size_t i = 0; i < ks.size();) {
      size_t j = i;
      while (j < ks.size() && ks[j] == ks[i]) ++j;
      local.push_back({ks[i].first, ks[i].second, j - i});
      i = j;
    }
  }
  Partition p = partition_from_triples(std::move(local), static_cast<uint32_t>(h.session_count()));
  // Transactions per block (informational; `info --components`).
  std::vector<uint64_t> txns(p.comp_sessions.size(), 0);
  std::vector<uint32_t> seen(p.comp_sessions.size(), ~0u);
  const KeyComponents comp_of(p);
  for (TxnIdx t = first; t < last; ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      uint32_t c = comp_of(h.op_key[o]);
      if (seen[c] != t) seen[c] = t, txns[c]++;
    }
  MPI_Allreduce(txns.data(), p.comp_txns.data(), static_cast<int>(txns.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return p;
}

namespace {

// `v` sorted by (key, session): an LSD radix sort, 16 bits a pass, over the
// bits that differ between rows only (a few passes for the small integer
// keys and session numbers of most histories, at most six), instead of a
// comparison sort of every row.
void sort_rows(std::vector<KeyTriple>& v) {
  // Every size takes this path (the equivalence tests' small histories
  // check it): a pass's 2^16 counters cost microseconds.
  if (v.size() < 2) return;
  uint64_t key_bits = 0, session_bits = 0;  // bits in which some row differs from the first
  for (const KeyTriple& t : v) key_bits |= t.key ^ v[0].key, session_bits |= t.session ^ v[0].session;
  std::vector<KeyTriple> tmp(v.size());
  std::vector<uint64_t> count(1 << 16);
  auto pass = [&](bool by_key, int shift) {
    std::fill(count.begin(), count.end(), 0);
    auto digit = [&](const KeyTriple& t) { return ((by_key ? t.key : t.session) >> shift) & 0xffff; };
    for (const KeyTriple& t : v) count[digit(t)]++;
    uint64_t at = 0;
    for (uint64_t& c : count) {
      const uint64_t n = c;
      c = at, at += n;
    }
    for (const KeyTriple& t : v) tmp[count[digit(t)]++] = t;
    v.swap(tmp);
  };
  // Least significant first: the session, then the key.
  for (int shift = 0; shift < 64; shift += 16)
    if ((session_bits >> shift) & 0xffff) pass(false, shift);
  for (int shift = 0; shift < 64; shift += 16)
    if ((key_bits >> shift) & 0xffff) pass(true, shift);
}

// Edges sorted and deduplicated: an LSD radix sort of u·2^b + v (b the bits
// of the largest session), 16 bits a pass (one pass below 256 sessions).
void sort_edges(std::vector<UEdge>& e) {
  if (e.size() >= 2) {
    uint32_t top = 0;
    for (const UEdge& x : e) top = std::max({top, x.first, x.second});
    const int b = std::max(1, 32 - __builtin_clz(top | 1));
    std::vector<uint64_t> code(e.size()), tmp(e.size());
    for (size_t i = 0; i < e.size(); ++i) code[i] = uint64_t{e[i].first} << b | e[i].second;
    std::vector<uint64_t> count(1 << 16);
    for (int shift = 0; shift < 2 * b; shift += 16) {
      std::fill(count.begin(), count.end(), 0);
      for (uint64_t c : code) count[(c >> shift) & 0xffff]++;
      uint64_t at = 0;
      for (uint64_t& c : count) {
        const uint64_t n = c;
        c = at, at += n;
      }
      for (uint64_t c : code) tmp[count[(c >> shift) & 0xffff]++] = c;
      code.swap(tmp);
    }
    const uint64_t mask = (uint64_t{1} << b) - 1;
    for (size_t i = 0; i < e.size(); ++i) e[i] = {static_cast<uint32_t>(code[i] >> b), static_cast<uint32_t>(code[i] & mask)};
  }
  e.erase(std::unique(e.begin(), e.end()), e.end());
}

}  // namespace

Partition partition_from_triples(std::vector<KeyTriple> local, uint32_t sessions) {
  const int P = size();
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_UINT64_T, &triple);
  MPI_Type_commit(&triple);
  std::vector<int> scount(P, 0), rcount(P, 0), sdisp(P, 0), rdisp(P, 0);
  std::vector<std::vector<KeyTriple>> out(P);
  for (auto& k : local) out[mix(k.key) % P].push_back(k);
  std::vector<KeyTriple>().swap(local);
  std::vector<KeyTriple> send;
  for (int r = 0; r < P; ++r) {
    if (out[r].size() > INT32_MAX) throw ResourceError("key shard exchange: more than 2^31 (key, session) pairs for one rank; run on more ranks");
    scount[r] = static_cast<int>(out[r].size());
    sdisp[r] = static_cast<int>(send.size());
    send.insert(send.end(), out[r].begin(), out[r].end());
    std::vector<KeyTriple>().swap(out[r]);
  }
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t total = 0;
  for (int r = 0; r < P; ++r) rdisp[r] = static_cast<int>(total), total += rcount[r];
  std::vector<KeyTriple> mine(total);
  MPI_Alltoallv(send.data(), scount.data(), sdisp.data(), triple, mine.data(), rcount.data(), rdisp.data(), triple,
                MPI_COMM_WORLD);
  MPI_Type_free(&triple);
  std::vector<KeyTriple>().swap(send);
  // My keys: sessions sorted, ops summed; cycle edges and per-key rows.
  sort_rows(mine);
  std::vector<uint64_t> edges;  // pairs flattened
  std::vector<uint64_t> rows;   // key, ops, s1, s2 (s2 = ~0 when single-session)
  std::vector<uint64_t> ss;     // one key's sessions (room kept from key to key)
  for (size_t i = 0; i < mine.size();) {
    size_t j = i;
    uint64_t ops = 0;
    ss.clear();
    while (j < mine.size() && mine[j].key == mine[i].key) {
      ops += mine[j].ops;
      if (ss.empty() || ss.back() != mine[j].session) ss.push_back(mine[j].session);
      ++j;
    }
    rows.insert(rows.end(), {mine[i].key, ops, ss[0], ss.size() > 1 ? ss[1] : ~uint64_t{0}});
    for (size_t a = 0; a + 1 < ss.size(); ++a) edges.insert(edges.end(), {ss[a], ss[a + 1]});
    if (ss.size() >= 3) edges.insert(edges.end(), {ss.front(), ss.back()});
    i = j;
  }
  // Every shard's rows and edges on every rank, in rank order (one
  // all-gather each; it was two broadcasts per rank, one after another).
  const std::vector<uint64_t> all_edges = allgather_records(edges, "communication-graph edge ends");
  const std::vector<uint64_t> all_rows = allgather_records(rows, "key rows' words");
  std::vector<uint64_t>().swap(edges), std::vector<uint64_t>().swap(rows);
  CommGraph g;
  g.sessions = sessions;
  for (size_t i = 0; i < all_edges.size(); i += 2)
    g.edges.push_back({static_cast<uint32_t>(all_edges[i]), static_cast<uint32_t>(all_edges[i + 1])});
  sort_edges(g.edges);
  std::vector<std::array<uint64_t, 4>> krows;
  for (size_t i = 0; i < all_rows.size(); i += 4) krows.push_back({all_rows[i], all_rows[i + 1], all_rows[i + 2], all_rows[i + 3]});
  std::sort(krows.begin(), krows.end());
  std::vector<uint64_t> key_ops;
  for (auto& k : krows) {
    g.keys.push_back(k[0]);
    key_ops.push_back(k[1]);
    g.key_session.push_back(static_cast<uint32_t>(k[2]));
    if (k[3] == ~uint64_t{0}) {
      g.key_edge.push_back(~0u);
    } else {
      UEdge e{static_cast<uint32_t>(k[2]), static_cast<uint32_t>(k[3])};
      g.key_edge.push_back(static_cast<uint32_t>(std::lower_bound(g.edges.begin(), g.edges.end(), e) - g.edges.begin()));
    }
  }
  return partition_from_graph(g, key_ops);
}

}  // namespace isocheck::dist
