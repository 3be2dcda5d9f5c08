#include "partition/partition.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace isocheck {

Blocks biconnected_components(uint32_t n, const std::vector<UEdge>& edges) {
  Blocks b;
  b.edge_block.assign(edges.size(), ~0u);
  b.articulation.assign(n, 0);
  // CSR adjacency: slot -> (neighbour, edge id).
  std::vector<uint64_t> off(n + 1, 0);
  for (auto& e : edges) off[e.first + 1]++, off[e.second + 1]++;
  for (uint32_t v = 0; v < n; ++v) off[v + 1] += off[v];
  std::vector<uint32_t> nb(off[n]), eid(off[n]);
  {
    std::vector<uint64_t> pos(off.begin(), off.end() - 1);
    for (uint32_t i = 0; i < edges.size(); ++i) {
      auto [u, v] = edges[i];
      nb[pos[u]] = v, eid[pos[u]++] = i;
      nb[pos[v]] = u, eid[pos[v]++] = i;
    }
  }
  constexpr uint32_t kUnseen = ~0u;
  std::vector<uint32_t> disc(n, kUnseen), low(n, 0), parent_edge(n, kUnseen);
  std::vector<uint64_t> next(n, 0);
  std::vector<uint32_t> estack, vstack;
  std::vector<uint32_t> block_count(n, 0);
  uint32_t time = 0;
  auto close_block = [&](uint32_t until_edge) {
    uint32_t id = static_cast<uint32_t>(b.vertices.size());
    std::vector<uint32_t> vs;
    while (true) {
      uint32_t e = estack.back();
      estack.pop_back();
      b.edge_block[e] = id;
      vs.push_back(edges[e].first), vs.push_back(edges[e].second);
      if (e == until_edge) break;
    }
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
    for (uint32_t v : vs) block_count[v]++;
    b.vertices.push_back(std::move(vs));
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (disc[root] != kUnseen) continue;
    disc[root] = low[root] = time++;
    if (off[root] == off[root + 1]) {  // isolated: a block of its own
      b.vertices.push_back({root});
      block_count[root]++;
      continue;
    }
    vstack.push_back(root);
    next[root] = off[root];
    while (!vstack.empty()) {
      uint32_t u = vstack.back();
      if (next[u] < off[u + 1]) {
        uint64_t s = next[u]++;
        uint32_t v = nb[s], e = eid[s];
        if (e == parent_edge[u]) continue;
        if (disc[v] == kUnseen) {
          estack.push_back(e);
          parent_edge[v] = e;
          disc[v] = low[v] = time++;
          next[v] = off[v];
          vstack.push_back(v);
        } else if (disc[v] < disc[u]) {  // back edge to an ancestor (or a duplicate of the tree edge)
          estack.push_back(e);
          low[u] = std::min(low[u], disc[v]);
        }
        continue;
      }
      vstack.pop_back();
      if (vstack.empty()) break;
      uint32_t p = vstack.back();
      low[p] = std::min(low[p], low[u]);
      if (low[u] >= disc[p]) close_block(parent_edge[u]);
    }
  }
  for (uint32_t v = 0; v < n; ++v) b.articulation[v] = block_count[v] >= 2;
  return b;
}

CommGraph communication_graph(uint32_t sessions, std::vector<std::pair<Sym, uint32_t>> ks) {
  CommGraph g;
  g.sessions = sessions;
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::vector<UEdge> raw;
  std::vector<std::pair<size_t, UEdge>> key_first;  // per key: (key index, its first edge)
  for (size_t i = 0; i < ks.size();) {
    size_t j = i;
    while (j < ks.size() && ks[j].first == ks[i].first) ++j;
    size_t ki = g.keys.size();
    g.keys.push_back(ks[i].first);
    g.key_session.push_back(ks[i].second);
    size_t m = j - i;
    if (m >= 2) {
      for (size_t a = i; a + 1 < j; ++a) raw.push_back({ks[a].second, ks[a + 1].second});
      if (m >= 3) raw.push_back({ks[i].second, ks[j - 1].second});
      key_first.push_back({ki, {ks[i].second, ks[i + 1].second}});
    }
    i = j;
  }
  std::sort(raw.begin(), raw.end());
  raw.erase(std::unique(raw.begin(), raw.end()), raw.end());
  g.edges = std::move(raw);
  g.key_edge.assign(g.keys.size(), ~0u);
  for (auto& [ki, e] : key_first)
    g.key_edge[ki] = static_cast<uint32_t>(std::lower_bound(g.edges.begin(), g.edges.end(), e) - g.edges.begin());
  return g;
}

CommGraph communication_graph(const History& h) {
  std::vector<std::pair<Sym, uint32_t>> ks;
  ks.reserve(h.op_count());
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) ks.push_back({h.op_key[o], h.txn_session[t]});
  return communication_graph(static_cast<uint32_t>(h.session_count()), std::move(ks));
}

uint32_t Partition::component_of_key(Sym k) const {
  auto it = std::lower_bound(keys.begin(), keys.end(), k);
  return it != keys.end() && *it == k ? key_comp[it - keys.begin()] : ~0u;
}

KeyComponents::KeyComponents(const Partition& p) {
  const Sym top = p.keys.empty() ? 0 : p.keys.back();  // keys are sorted
  if (p.keys.empty() || top < 2 * static_cast<uint64_t>(p.keys.size()) + 4096) {
    direct_ = true;
    table_.assign(p.keys.empty() ? 0 : top + 1, ~0u);
    for (size_t i = 0; i < p.keys.size(); ++i) table_[p.keys[i]] = p.key_comp[i];
    return;
  }
  hashed_ = FlatMap64(p.keys.size());
  bool inserted = false;
  for (size_t i = 0; i < p.keys.size(); ++i) hashed_.get_or_insert(p.keys[i], p.key_comp[i], inserted);
}

Partition partition_from_graph(const CommGraph& g, const std::vector<uint64_t>& key_ops,
                               const std::vector<uint64_t>& key_txns) {
  Blocks b = biconnected_components(g.sessions, g.edges);
  uint32_t nb = static_cast<uint32_t>(b.vertices.size());
  // Lowest discovery-numbered block of each session (for single-session keys;
  // renumbered below, so pick by the final numbering afterwards).
  std::vector<uint32_t> key_block(g.keys.size());
  std::vector<std::vector<uint32_t>> session_blocks(g.sessions);
  for (uint32_t i = 0; i < nb; ++i)
    for (uint32_t v : b.vertices[i]) session_blocks[v].push_back(i);
  std::vector<uint64_t> ops(nb, 0), txns(nb, 0);
  // First pass: multi-session keys have their block; sizes from those.
  for (size_t k = 0; k < g.keys.size(); ++k)
    if (g.key_edge[k] != ~0u) key_block[k] = b.edge_block[g.key_edge[k]], ops[key_block[k]] += key_ops[k];
  // Order blocks: by multi-session ops, then smallest session. Single-session
  // keys then go to the block of their session that comes first in this order
  // (a choice independent of the rank count), and sizes are final.
  auto order_of = [&](std::vector<uint64_t>& weight) {
    std::vector<uint32_t> ord(nb);
    std::iota(ord.begin(), ord.end(), 0);
    std::sort(ord.begin(), ord.end(), [&](uint32_t x, uint32_t y) {
      if (weight[x] != weight[y]) return weight[x] > weight[y];
      return b.vertices[x][0] < b.vertices[y][0] || (b.vertices[x][0] == b.vertices[y][0] && b.vertices[x] < b.vertices[y]);
    });
    return ord;
  };
  std::vector<uint32_t> ord = order_of(ops), rank_of(nb);
  for (uint32_t i = 0; i < nb; ++i) rank_of[ord[i]] = i;
  for (size_t k = 0; k < g.keys.size(); ++k) {
    if (g.key_edge[k] != ~0u) continue;
    uint32_t best = ~0u;
    for (uint32_t bl : session_blocks[g.key_session[k]])
      if (best == ~0u || rank_of[bl] < rank_of[best]) best = bl;
    key_block[k] = best;
    ops[best] += key_ops[k];
  }
  for (size_t k = 0; k < g.keys.size(); ++k) if (!key_txns.empty()) txns[key_block[k]] += key_txns[k];
  ord = order_of(ops);
  for (uint32_t i = 0; i < nb; ++i) rank_of[ord[i]] = i;
  Partition p;
  p.sessions = g.sessions;
  p.keys = g.keys;
  p.key_comp.resize(g.keys.size());
  for (size_t k = 0; k < g.keys.size(); ++k) p.key_comp[k] = rank_of[key_block[k]];
  for (uint32_t i = 0; i < nb; ++i) {
    p.comp_sessions.push_back(b.vertices[ord[i]]);
    p.comp_ops.push_back(ops[ord[i]]);
    p.comp_txns.push_back(txns[ord[i]]);
  }
  return p;
}

Partition partition_history(const History& h) {
  CommGraph g = communication_graph(h);
  std::vector<uint64_t> key_ops(g.keys.size(), 0);
  for (OpIdx o = 0; o < h.op_count(); ++o)
    key_ops[std::lower_bound(g.keys.begin(), g.keys.end(), h.op_key[o]) - g.keys.begin()]++;
  Partition p = partition_from_graph(g, key_ops);
  // Transactions per block (a transaction spanning blocks counts in each).
  std::vector<uint32_t> seen(p.comp_sessions.size(), ~0u);
  const KeyComponents comp_of(p);
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      uint32_t c = comp_of(h.op_key[o]);
      if (seen[c] != t) seen[c] = t, p.comp_txns[c]++;
    }
  return p;
}

SessionTxns session_txns(const History& h) {
  SessionTxns st;
  st.offset.assign(h.session_count() + 1, 0);
  for (TxnIdx t = 0; t < h.txn_count(); ++t) st.offset[h.txn_session[t] + 1]++;
  for (size_t s = 0; s < h.session_count(); ++s) st.offset[s + 1] += st.offset[s];
  st.txns.resize(h.txn_count());
  std::vector<uint64_t> pos(st.offset.begin(), st.offset.end() - 1);
  for (TxnIdx t = 0; t < h.txn_count(); ++t) st.txns[pos[h.txn_session[t]]++] = t;
  return st;
}

Projection project(const History& h, const Partition& p, uint32_t comp, const std::vector<uint8_t>& included,
                   const SessionTxns* index) {
  SessionTxns own;
  if (!index) own = session_txns(h), index = &own;
  Projection pr;
  History& out = pr.h;
  out.time_unit = h.time_unit;
  // The block's transactions in file order (sessions' lists merged).
  std::vector<TxnIdx> ts;
  for (uint32_t s : p.comp_sessions[comp])
    ts.insert(ts.end(), index->txns.begin() + index->offset[s], index->txns.begin() + index->offset[s + 1]);
  std::sort(ts.begin(), ts.end());
  std::unordered_map<uint32_t, uint32_t> local_session;
  for (TxnIdx t : ts) {
    bool any = false;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t) && !any; ++o) any = p.component_of_key(h.op_key[o]) == comp;
    if (!any) continue;
    uint32_t s = h.txn_session[t];
    auto [it, fresh] = local_session.try_emplace(s, static_cast<uint32_t>(out.session_name.size()));
    if (fresh) out.session_name.push_back(h.session_name[s]);
    TxnStatus st = h.txn_status[t];
    if (st == TxnStatus::unknown && included[t]) st = TxnStatus::committed;
    out.begin_txn(h.txn_id[t], it->second, st, h.txn_begin[t], h.txn_end[t]);
    pr.txn.push_back(t);
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (p.component_of_key(h.op_key[o]) != comp) continue;
      const OpIdx local = static_cast<OpIdx>(out.op_count());
      if (h.op_kind[o] == OpKind::read_list) out.add_list_read(h.op_key[o], h.list(o));
      else out.add_op(h.op_kind[o], h.op_key[o], h.op_value[o]);
      pr.op.push_back(o);
      // The range-scan marks go with their reads (reports name phantoms by
      // them); local indices grow, so the lists stay sorted.
      out.mark_predicate(local, h.predicate_mark(o));
      out.copy_value_predicate(h, o, local);
    }
    out.end_txn();
  }
  return pr;
}

std::vector<int> assign_largest_first(const std::vector<uint64_t>& w, int ranks) {
  std::vector<uint32_t> ord(w.size());
  std::iota(ord.begin(), ord.end(), 0);
  std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) { return w[a] > w[b]; });
  using Load = std::pair<uint64_t, int>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> q;
  for (int r = 0; r < ranks; ++r) q.push({0, r});
  std::vector<int> out(w.size(), 0);
  for (uint32_t i : ord) {
    auto [load, r] = q.top();
    q.pop();
    out[i] = r;
    q.push({load + w[i], r});
  }
  return out;
}

}  // namespace isocheck
