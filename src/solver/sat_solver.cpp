#include "solver/sat_solver.h"

#include <algorithm>
#include <queue>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>

#include "closure/graph_algos.h"
#include "solver/pk_order.h"

namespace isocheck {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr uint8_t kUndef = 2;
// Theory propagation after inserting an edge may do this much work: choice
// edges looked at plus adjacency entries its searches examine (each search
// also expands at most OwnSatOptions::propagation_budget vertices). A writer
// of a busy key is an endpoint of thousands of choice edges and lists them
// all, inserted or not: unbounded, one insertion cost millions of steps (a
// 30 000-transaction region whose 30 000 constraints the solver satisfied
// without a single conflict took 20 s). Propagation only infers; what it
// leaves, decisions and conflicts find.
constexpr uint64_t kPropagationWork = 1024;

// Literal of variable v: 2v = side A (v true), 2v+1 = side B (v false).
inline uint32_t var_of(uint32_t l) { return l >> 1; }

double luby(double y, int x) {
  int size = 1, seq = 0;
  while (size < x + 1) ++seq, size = 2 * size + 1;
  while (size - 1 != x) size = (size - 1) >> 1, --seq, x = x % size;
  return std::pow(y, seq);
}

class OwnSolver {
 public:
  OwnSolver(const Polygraph& pg, const SatLimits& lim, const OwnSatOptions& o) : pg_(pg), lim_(lim), opt_(o) {}
  SatResult run();

 private:
  struct Clause {
    std::vector<uint32_t> lits;
    uint32_t lbd = 0;
    bool learnt = false, deleted = false;
    float activity = 0;
  };
  struct Watch {
    uint32_t clause, blocker;
  };

  // ---- problem (internal edges: known first, then one per constraint side edge)
  const Polygraph& pg_;
  SatLimits lim_;
  OwnSatOptions opt_;
  uint32_t nv_ = 0, n_ = 0;       // variables, vertices
  uint64_t nknown_ = 0;
  std::vector<uint32_t> esrc_, edst_;
  std::vector<EdgeRef> eref_;      // internal edge -> polygraph edge
  std::vector<uint32_t> elit_;     // internal edge -> owning literal (kNone for known)
  std::vector<uint64_t> lit_off_;  // literal l: internal edges lit_edges_[lit_off_[l] .. lit_off_[l+1])
  std::vector<uint32_t> lit_edges_;
  std::vector<uint64_t> out_off_, in_off_;
  std::vector<uint32_t> out_e_, in_e_;
  // Rows list known edges first (edge ids ascending): where each row's choice
  // edges begin, so theory propagation skips the known ones.
  std::vector<uint64_t> out_choice_, in_choice_;
  std::vector<uint8_t> inserted_;  // per internal edge (known: always 1)

  // ---- theory state
  std::vector<uint32_t> ord_;   // vertex -> topological position
  std::vector<uint32_t> mark_;  // DFS stamps
  uint32_t stamp_ = 0;
  std::vector<uint32_t> parent_;  // DFS: internal edge that entered a vertex
  std::vector<uint32_t> fwd_, bwd_, stack_, pool_;
  size_t theory_head_ = 0;  // trail prefix whose edges are inserted
  uint64_t work_left_ = 0;  // what this theory propagation may still do (kPropagationWork)

  // ---- CDCL state
  std::vector<Clause> clauses_;
  std::vector<std::vector<Watch>> watches_;  // by literal that became false
  std::vector<uint8_t> assign_;              // per var: 0 = A, 1 = B, kUndef
  std::vector<uint32_t> level_, reason_;
  std::vector<uint32_t> trail_, trail_lim_;
  size_t qhead_ = 0;
  std::vector<double> activity_;
  double var_inc_ = 1, cla_inc_ = 1;
  std::vector<uint32_t> heap_, heap_pos_;
  std::vector<uint8_t> phase_, seen_, in_lemma_;
  std::vector<uint32_t> learnt_;
  std::vector<EdgeRef> best_cycle_;
  std::vector<uint8_t> best_cycle_side_;
  SatStats st_;
  std::chrono::steady_clock::time_point t0_;

  // helpers
  uint8_t lit_value(uint32_t l) const {  // 1 true, 0 false, kUndef
    const uint8_t a = assign_[var_of(l)];
    return a == kUndef ? kUndef : static_cast<uint8_t>(a == (l & 1));
  }
  uint32_t decision_level() const { return static_cast<uint32_t>(trail_lim_.size()); }
  bool active(uint32_t e) const { return inserted_[e]; }

  void build();
  bool initial_order();
  void enqueue(uint32_t l, uint32_t from) {
    assign_[var_of(l)] = l & 1;
    level_[var_of(l)] = decision_level();
    reason_[var_of(l)] = from;
    trail_.push_back(l);
  }
  uint32_t add_clause(std::vector<uint32_t> lits, bool learnt, uint32_t lbd);
  uint32_t propagate_bcp();
  bool theory_insert(uint32_t lit, std::vector<uint32_t>& conflict);
  bool insert_edge(uint32_t e, std::vector<uint32_t>& cycle_edges);
  void theory_propagate(uint32_t e);
  bool reaches(uint32_t from, uint32_t to, uint32_t budget, std::vector<uint32_t>& path);
  template <class Inside>
  bool search(bool forward, uint32_t from, uint32_t to, uint32_t budget, Inside inside,
              std::vector<uint32_t>* entered);
  void append_path(uint32_t from, uint32_t to, std::vector<uint32_t>& out) const;
  void record_cycle(const std::vector<uint32_t>& cycle_edges);
  std::vector<uint32_t> lemma_from_cycle(const std::vector<uint32_t>& cycle_edges);
  void analyze(const std::vector<uint32_t>& conflict, std::vector<uint32_t>& out, uint32_t& bt);
  bool redundant(uint32_t l);
  void backtrack(uint32_t lvl);
  void bump_var(uint32_t v);
  void bump_clause(Clause& c);
  void reduce_db();
  // heap
  bool heap_less(uint32_t a, uint32_t b) const { return activity_[a] > activity_[b]; }
  void heap_up(uint32_t i);
  void heap_down(uint32_t i);
  void heap_insert(uint32_t v);
  uint32_t heap_pop();
  bool out_of_budget();
  SatResult unsat_result();
};

void OwnSolver::build() {
  nv_ = static_cast<uint32_t>(pg_.constraints.size());
  n_ = pg_.vertex_count;
  nknown_ = pg_.known.size();
  for (uint64_t i = 0; i < nknown_; ++i) {
    esrc_.push_back(pg_.known.src[i]), edst_.push_back(pg_.known.dst[i]);
    eref_.push_back({false, i}), elit_.push_back(kNone);
  }
  lit_off_.assign(2 * uint64_t{nv_} + 1, 0);
  for (uint32_t v = 0; v < nv_; ++v) {
    const Constraint& c = pg_.constraints[v];
    for (int s = 0; s < 2; ++s) {
      const uint64_t b = s ? c.b_begin : c.a_begin, e = s ? c.b_end : c.a_end;
      for (uint64_t i = b; i < e; ++i) {
        lit_edges_.push_back(static_cast<uint32_t>(esrc_.size()));
        esrc_.push_back(pg_.choice_edges.src[i]), edst_.push_back(pg_.choice_edges.dst[i]);
        eref_.push_back({true, i}), elit_.push_back(2 * v + s);
      }
      lit_off_[2 * v + s + 1] = lit_edges_.size();
    }
  }
  const uint64_t m = esrc_.size();
  out_off_.assign(n_ + 1, 0), in_off_.assign(n_ + 1, 0);
  for (uint64_t e = 0; e < m; ++e) ++out_off_[esrc_[e] + 1], ++in_off_[edst_[e] + 1];
  for (uint32_t v = 0; v < n_; ++v) out_off_[v + 1] += out_off_[v], in_off_[v + 1] += in_off_[v];
  out_e_.resize(m), in_e_.resize(m);
  {
    std::vector<uint64_t> po(out_off_.begin(), out_off_.end() - 1), pi(in_off_.begin(), in_off_.end() - 1);
    for (uint64_t e = 0; e < m; ++e) out_e_[po[esrc_[e]]++] = static_cast<uint32_t>(e), in_e_[pi[edst_[e]]++] = static_cast<uint32_t>(e);
  }
  out_choice_.resize(n_), in_choice_.resize(n_);
  for (uint32_t v = 0; v < n_; ++v) {
    uint64_t o = out_off_[v], i = in_off_[v];
    while (o < out_off_[v + 1] && out_e_[o] < nknown_) ++o;
    while (i < in_off_[v + 1] && in_e_[i] < nknown_) ++i;
    out_choice_[v] = o, in_choice_[v] = i;
  }
  inserted_.assign(m, 0);
  std::fill(inserted_.begin(), inserted_.begin() + nknown_, 1);
  ord_.assign(n_, 0), mark_.assign(n_, 0), parent_.assign(n_, kNone);
  watches_.resize(2 * nv_);
  assign_.assign(nv_, kUndef), level_.assign(nv_, 0), reason_.assign(nv_, kNone);
  activity_.assign(nv_, 0), heap_pos_.assign(nv_, kNone), phase_.assign(nv_, 0);
  seen_.assign(nv_, 0), in_lemma_.assign(nv_, 0);
}

// Topological order of the known graph; phases prefer the side whose edges
// agree with it. False: the known graph is cyclic (cycle recorded).
bool OwnSolver::initial_order() {
  EdgeList k;
  k.src.assign(esrc_.begin(), esrc_.begin() + nknown_);
  k.dst.assign(edst_.begin(), edst_.begin() + nknown_);
  k.why.assign(nknown_, 0), k.kind.assign(nknown_, EdgeKind::aux);
  const Csr g = build_csr(n_, k);
  // Kahn's order, smallest vertex first: vertices are transactions in file
  // order (then auxiliary nodes), so the initial order — and the phases it
  // suggests — stay close to the order the history was recorded in, which
  // for a valid history is nearly a serialization: fewer conflicts than a
  // breadth-first order.
  std::vector<uint32_t> order;
  bool acyclic;
  {
    std::vector<uint32_t> indeg(n_, 0);
    for (uint32_t t : g.target) ++indeg[t];
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
    for (uint32_t v = 0; v < n_; ++v)
      if (indeg[v] == 0) ready.push(v);
    order.reserve(n_);
    while (!ready.empty()) {
      const uint32_t v = ready.top();
      ready.pop();
      order.push_back(v);
      for (uint64_t i = g.offset[v]; i < g.offset[v + 1]; ++i)
        if (--indeg[g.target[i]] == 0) ready.push(g.target[i]);
    }
    acyclic = order.size() == n_;
  }
  if (!acyclic) {
    auto cyc = short_cycle(g);
    std::vector<uint32_t> edges(cyc.begin(), cyc.end());
    record_cycle(edges);
    return false;
  }
  for (uint32_t i = 0; i < n_; ++i) ord_[order[i]] = i;
  for (uint32_t v = 0; v < nv_; ++v) {
    int score[2] = {0, 0};
    for (int s = 0; s < 2; ++s)
      for (uint64_t i = lit_off_[2 * v + s]; i < lit_off_[2 * v + s + 1]; ++i) {
        const uint32_t e = lit_edges_[i];
        score[s] += ord_[esrc_[e]] < ord_[edst_[e]] ? 1 : -1;
      }
    const double a = score[0] / std::max(1.0, double(lit_off_[2 * v + 1] - lit_off_[2 * v]));
    const double b = score[1] / std::max(1.0, double(lit_off_[2 * v + 2] - lit_off_[2 * v + 1]));
    phase_[v] = a >= b ? 0 : 1;
  }
  return true;
}

uint32_t OwnSolver::add_clause(std::vector<uint32_t> lits, bool learnt, uint32_t lbd) {
  const uint32_t ci = static_cast<uint32_t>(clauses_.size());
  Clause c;
  c.lits = std::move(lits);
  c.learnt = learnt, c.lbd = lbd;
  c.activity = static_cast<float>(cla_inc_);
  if (c.lits.size() >= 2) {
    watches_[c.lits[0]].push_back({ci, c.lits[1]});
    watches_[c.lits[1]].push_back({ci, c.lits[0]});
  }
  clauses_.push_back(std::move(c));
  return ci;
}

// Boolean propagation over watched literals. Returns a conflicting clause or kNone.
uint32_t OwnSolver::propagate_bcp() {
  while (qhead_ < trail_.size()) {
    const uint32_t p = trail_[qhead_++];
    const uint32_t falsel = p ^ 1;
    auto& ws = watches_[falsel];
    size_t i = 0, j = 0;
    ++st_.propagations;
    while (i < ws.size()) {
      const Watch w = ws[i++];
      if (lit_value(w.blocker) == 1) { ws[j++] = w; continue; }
      Clause& c = clauses_[w.clause];
      if (c.deleted) continue;  // drop lazily
      auto& L = c.lits;
      if (L[0] == falsel) std::swap(L[0], L[1]);
      if (lit_value(L[0]) == 1) { ws[j++] = {w.clause, L[0]}; continue; }
      bool moved = false;
      for (size_t k = 2; k < L.size(); ++k)
        if (lit_value(L[k]) != 0) {
          std::swap(L[1], L[k]);
          watches_[L[1]].push_back({w.clause, L[0]});
          moved = true;
          break;
        }
      if (moved) continue;
      ws[j++] = {w.clause, L[0]};
      if (lit_value(L[0]) == 0) {
        while (i < ws.size()) ws[j++] = ws[i++];
        ws.resize(j);
        qhead_ = trail_.size();
        return w.clause;
      }
      enqueue(L[0], w.clause);
    }
    ws.resize(j);
  }
  return kNone;
}

// Depth-first over inserted edges from `from`: forward (out-edges, to their
// heads) or backward (in-edges, to their tails), into vertices not yet
// entered that `inside` admits, recording in parent_ the edge that entered
// each. True when it enters `to`; false when it runs out of vertices or has
// expanded `budget` of them. Every other vertex entered, `from` first, goes
// to *entered (if given).
template <class Inside>
bool OwnSolver::search(bool forward, uint32_t from, uint32_t to, uint32_t budget, Inside inside,
                       std::vector<uint32_t>* entered) {
  const std::vector<uint64_t>& off = forward ? out_off_ : in_off_;
  const std::vector<uint32_t>& edges = forward ? out_e_ : in_e_;
  const std::vector<uint32_t>& far_end = forward ? edst_ : esrc_;
  ++stamp_;
  stack_.clear();
  stack_.push_back(from), mark_[from] = stamp_;
  if (entered) entered->push_back(from);
  uint32_t visited = 0;
  const bool bounded = budget != std::numeric_limits<uint32_t>::max();  // theory propagation's
  while (!stack_.empty()) {
    const uint32_t x = stack_.back();
    stack_.pop_back();
    if (++visited > budget) return false;
    if (bounded) {
      const uint64_t d = off[x + 1] - off[x];
      if (d > work_left_) { work_left_ = 0; return false; }
      work_left_ -= d, st_.propagation_work += d;
    }
    for (uint64_t k = off[x]; k < off[x + 1]; ++k) {
      const uint32_t f = edges[k];
      if (!active(f)) continue;
      const uint32_t y = far_end[f];
      if (mark_[y] == stamp_ || !inside(y)) continue;
      mark_[y] = stamp_, parent_[y] = f;
      if (y == to) return true;
      if (entered) entered->push_back(y);
      stack_.push_back(y);
    }
  }
  return false;
}

// Appends the edges of the path a forward search just found, from -> to.
void OwnSolver::append_path(uint32_t from, uint32_t to, std::vector<uint32_t>& out) const {
  const size_t first = out.size();
  for (uint32_t z = to; z != from; z = esrc_[parent_[z]]) out.push_back(parent_[z]);
  std::reverse(out.begin() + first, out.end());
}

bool OwnSolver::reaches(uint32_t from, uint32_t to, uint32_t budget, std::vector<uint32_t>& path) {
  // Path from -> to over inserted edges, only through vertices ordered before `to`.
  path.clear();
  if (ord_[from] >= ord_[to]) return false;
  const uint32_t limit = ord_[to];
  if (!search(true, from, to, budget, [&](uint32_t y) { return ord_[y] <= limit; }, nullptr)) return false;
  append_path(from, to, path);
  return true;
}

// Pearce–Kelly insertion of internal edge e. False: it closes a cycle, whose
// edges (e first, then the path back) are left in cycle_edges.
bool OwnSolver::insert_edge(uint32_t e, std::vector<uint32_t>& cycle_edges) {
  const uint32_t u = esrc_[e], w = edst_[e];
  if (u == w) { cycle_edges = {e}; return false; }
  if (ord_[u] < ord_[w]) { inserted_[e] = 1; return true; }
  const uint32_t ub = ord_[u], lb = ord_[w];
  constexpr uint32_t kUnbounded = std::numeric_limits<uint32_t>::max();
  // Forward from w within ord <= ub.
  fwd_.clear();
  if (search(true, w, u, kUnbounded, [&](uint32_t y) { return ord_[y] <= ub; }, &fwd_)) {
    cycle_edges.assign(1, e);
    append_path(w, u, cycle_edges);
    return false;
  }
  // Backward from u within ord >= lb (disjoint from the forward set).
  const uint32_t fstamp = stamp_;
  bwd_.clear();
  auto inside_bwd = [&](uint32_t y) {
    if (ord_[y] < lb) return false;
    assert(mark_[y] != fstamp);
    return true;
  };
  search(false, u, kNone, kUnbounded, inside_bwd, &bwd_);
  (void)fstamp;
  pk_reorder(ord_, fwd_, bwd_, pool_);
  ++st_.reorders;
  inserted_[e] = 1;
  return true;
}

void OwnSolver::record_cycle(const std::vector<uint32_t>& cycle_edges) {
  if (!best_cycle_.empty() && best_cycle_.size() <= cycle_edges.size()) return;
  best_cycle_.clear(), best_cycle_side_.assign(nv_, 0);
  for (uint32_t e : cycle_edges) {
    best_cycle_.push_back(eref_[e]);
    if (elit_[e] != kNone) best_cycle_side_[var_of(elit_[e])] = elit_[e] & 1;
  }
}

// The clause forbidding a cycle: the negations of the owning literals.
std::vector<uint32_t> OwnSolver::lemma_from_cycle(const std::vector<uint32_t>& cycle_edges) {
  std::vector<uint32_t> c;
  for (uint32_t e : cycle_edges)
    if (elit_[e] != kNone) c.push_back(elit_[e] ^ 1), in_lemma_[var_of(elit_[e])] = 1;
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

// After inserting e = u -> w: an unassigned side whose edge (a, b) now has
// b ->* u -> w ->* a closes a cycle; cheap cases only (an endpoint shared with
// e, bounded search). The other side is implied, with the cycle as reason.
void OwnSolver::theory_propagate(uint32_t e) {
  const uint32_t u = esrc_[e], w = edst_[e];
  std::vector<uint32_t> path;
  work_left_ = kPropagationWork;
  auto try_edge = [&](uint32_t f, bool b_is_u) {
    --work_left_, ++st_.propagation_work;
    const uint32_t l = elit_[f];
    if (l == kNone || assign_[var_of(l)] != kUndef) return;
    const uint32_t a = esrc_[f], b = edst_[f];
    std::vector<uint32_t> cyc;  // f, path b ->* u, e, path w ->* a
    if (b_is_u) {               // b == u: need w ->* a
      if (a != w && !reaches(w, a, opt_.propagation_budget, path)) return;
      cyc.push_back(f), cyc.push_back(e);
      if (a != w) cyc.insert(cyc.end(), path.begin(), path.end());
    } else {  // a == w: need b ->* u
      if (b != u && !reaches(b, u, opt_.propagation_budget, path)) return;
      cyc.push_back(f);
      if (b != u) cyc.insert(cyc.end(), path.begin(), path.end());
      cyc.push_back(e);
    }
    std::vector<uint32_t> lemma = lemma_from_cycle(cyc);
    in_lemma_[var_of(l)] = 1;
    record_cycle(cyc);  // a real cycle were f's side chosen
    // lemma contains l^1 (f's literal negated) = the implied literal; put it first.
    const uint32_t implied = l ^ 1;
    auto it = std::find(lemma.begin(), lemma.end(), implied);
    if (it == lemma.end()) lemma.push_back(implied), it = lemma.end() - 1;
    std::iter_swap(lemma.begin(), it);
    // Second watch: the false literal of the highest level.
    for (size_t k = 2; k < lemma.size(); ++k)
      if (level_[var_of(lemma[k])] > level_[var_of(lemma[1])]) std::swap(lemma[1], lemma[k]);
    const uint32_t lbd = static_cast<uint32_t>(lemma.size());
    const uint32_t ci = add_clause(std::move(lemma), true, lbd);
    enqueue(implied, ci);
    ++st_.theory_propagations;
  };
  for (uint64_t k = in_choice_[u]; k < in_off_[u + 1] && work_left_ > 0; ++k) try_edge(in_e_[k], true);  // choice edges (a, u)
  for (uint64_t k = out_choice_[w]; k < out_off_[w + 1] && work_left_ > 0; ++k) try_edge(out_e_[k], false);  // (w, b)
}

// Inserts every edge of a true literal; on a cycle, undoes this literal's
// edges and returns the conflict clause.
bool OwnSolver::theory_insert(uint32_t lit, std::vector<uint32_t>& conflict) {
  std::vector<uint32_t> cyc;
  const uint64_t b = lit_off_[lit], e = lit_off_[lit + 1];
  for (uint64_t i = b; i < e; ++i) {
    const uint32_t ed = lit_edges_[i];
    if (!insert_edge(ed, cyc)) {
      for (uint64_t j = b; j < i; ++j) inserted_[lit_edges_[j]] = 0;
      ++st_.theory_conflicts;
      record_cycle(cyc);
      conflict = lemma_from_cycle(cyc);
      return false;
    }
  }
  if (opt_.theory_propagation)
    for (uint64_t i = b; i < e; ++i) theory_propagate(lit_edges_[i]);
  return true;
}

void OwnSolver::bump_var(uint32_t v) {
  if ((activity_[v] += var_inc_) > 1e100) {
    for (auto& a : activity_) a *= 1e-100;
    var_inc_ *= 1e-100;
  }
  if (heap_pos_[v] != kNone) heap_up(heap_pos_[v]);
}

void OwnSolver::bump_clause(Clause& c) {
  if ((c.activity += static_cast<float>(cla_inc_)) > 1e20f) {
    for (auto& x : clauses_) x.activity *= 1e-20f;
    cla_inc_ *= 1e-20;
  }
}

bool OwnSolver::redundant(uint32_t l) {
  // Local minimisation: l's reason clause is covered by seen literals.
  const uint32_t r = reason_[var_of(l)];
  if (r == kNone) return false;
  for (uint32_t q : clauses_[r].lits)
    if (var_of(q) != var_of(l) && !seen_[var_of(q)] && level_[var_of(q)] > 0) return false;
  return true;
}

void OwnSolver::analyze(const std::vector<uint32_t>& conflict, std::vector<uint32_t>& out, uint32_t& bt) {
  out.clear();
  out.push_back(kNone);
  int open = 0;
  uint32_t p = kNone;
  size_t idx = trail_.size();
  const std::vector<uint32_t>* lits = &conflict;
  std::vector<uint32_t> touched;
  for (;;) {
    for (uint32_t q : *lits) {
      if (p != kNone && q == p) continue;
      const uint32_t v = var_of(q);
      if (seen_[v] || level_[v] == 0) continue;
      seen_[v] = 1, touched.push_back(v);
      bump_var(v);
      if (level_[v] >= decision_level()) ++open;
      else out.push_back(q);
    }
    // Next seen literal of the current level on the trail.
    do --idx; while (!seen_[var_of(trail_[idx])]);
    p = trail_[idx];
    seen_[var_of(p)] = 0;
    if (--open == 0) break;
    Clause& c = clauses_[reason_[var_of(p)]];
    if (c.learnt) bump_clause(c);
    lits = &c.lits;
  }
  out[0] = p ^ 1;
  // Minimise.
  size_t j = 1;
  for (size_t i = 1; i < out.size(); ++i)
    if (!redundant(out[i])) out[j++] = out[i];
  out.resize(j);
  for (uint32_t v : touched) seen_[v] = 0;
  bt = 0;
  if (out.size() > 1) {
    size_t best = 1;
    for (size_t i = 2; i < out.size(); ++i)
      if (level_[var_of(out[i])] > level_[var_of(out[best])]) best = i;
    std::swap(out[1], out[best]);
    bt = level_[var_of(out[1])];
  }
}

void OwnSolver::backtrack(uint32_t lvl) {
  if (decision_level() <= lvl) return;
  const size_t keep = trail_lim_[lvl];
  for (size_t i = trail_.size(); i-- > keep;) {
    const uint32_t l = trail_[i], v = var_of(l);
    if (i < theory_head_)
      for (uint64_t k = lit_off_[l]; k < lit_off_[l + 1]; ++k) inserted_[lit_edges_[k]] = 0;
    phase_[v] = l & 1;
    assign_[v] = kUndef, reason_[v] = kNone;
    if (heap_pos_[v] == kNone) heap_insert(v);
  }
  trail_.resize(keep), trail_lim_.resize(lvl);
  qhead_ = std::min(qhead_, keep);
  theory_head_ = std::min(theory_head_, keep);
}

void OwnSolver::reduce_db() {
  std::vector<uint32_t> cand;
  for (uint32_t i = 0; i < clauses_.size(); ++i) {
    const Clause& c = clauses_[i];
    if (!c.learnt || c.deleted || c.lits.size() <= 2 || c.lbd <= 2) continue;
    const uint32_t v = var_of(c.lits[0]);
    if (reason_[v] == i && assign_[v] != kUndef) continue;  // locked
    cand.push_back(i);
  }
  std::sort(cand.begin(), cand.end(), [&](uint32_t a, uint32_t b) {
    if (clauses_[a].lbd != clauses_[b].lbd) return clauses_[a].lbd > clauses_[b].lbd;
    return clauses_[a].activity < clauses_[b].activity;
  });
  for (size_t i = 0; i < cand.size() / 2; ++i) {
    Clause& c = clauses_[cand[i]];
    c.deleted = true;
    c.lits.clear();
    c.lits.shrink_to_fit();
  }
  for (auto& ws : watches_)
    ws.erase(std::remove_if(ws.begin(), ws.end(), [&](const Watch& w) { return clauses_[w.clause].deleted; }), ws.end());
}

void OwnSolver::heap_up(uint32_t i) {
  const uint32_t v = heap_[i];
  while (i > 0) {
    const uint32_t p = (i - 1) / 2;
    if (!heap_less(v, heap_[p])) break;
    heap_[i] = heap_[p], heap_pos_[heap_[i]] = i, i = p;
  }
  heap_[i] = v, heap_pos_[v] = i;
}
void OwnSolver::heap_down(uint32_t i) {
  const uint32_t v = heap_[i], n = static_cast<uint32_t>(heap_.size());
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && heap_less(heap_[c + 1], heap_[c])) ++c;
    if (!heap_less(heap_[c], v)) break;
    heap_[i] = heap_[c], heap_pos_[heap_[i]] = i, i = c;
  }
  heap_[i] = v, heap_pos_[v] = i;
}
void OwnSolver::heap_insert(uint32_t v) {
  heap_.push_back(v);
  heap_up(static_cast<uint32_t>(heap_.size() - 1));
}
uint32_t OwnSolver::heap_pop() {
  const uint32_t v = heap_[0];
  heap_pos_[v] = kNone;
  heap_[0] = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) heap_pos_[heap_[0]] = 0, heap_down(0);
  return v;
}

bool OwnSolver::out_of_budget() {
  if (st_.conflicts >= lim_.conflicts) return true;
  if (lim_.stop && lim_.stop->load(std::memory_order_relaxed)) return true;
  if (std::isfinite(lim_.time_s)) {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (el > lim_.time_s) return true;
  }
  return false;
}

SatResult OwnSolver::unsat_result() {
  SatResult r;
  r.status = SatStatus::unsat;
  for (uint32_t v = 0; v < nv_; ++v)
    if (in_lemma_[v]) r.core.push_back(v);
  r.cycle = best_cycle_;
  r.side = best_cycle_side_.empty() ? std::vector<uint8_t>(nv_, 0) : best_cycle_side_;
  r.stats = st_;
  return r;
}

SatResult OwnSolver::run() {
  t0_ = std::chrono::steady_clock::now();
  st_.solver_calls = 1;
  build();
  if (!initial_order()) return unsat_result();
  for (uint32_t v = 0; v < nv_; ++v) heap_insert(v);
  std::vector<uint32_t> conflict, learnt;
  int restart_no = 0;
  uint64_t restart_at = static_cast<uint64_t>(100 * luby(2, restart_no));
  uint64_t conflicts_here = 0, next_reduce = 2000;
  for (;;) {
    // Propagate: BCP to a fixpoint, then the theory for the next literal.
    bool have_conflict = false;
    for (;;) {
      const uint32_t cr = propagate_bcp();
      if (cr != kNone) {
        conflict = clauses_[cr].lits;
        if (clauses_[cr].learnt) bump_clause(clauses_[cr]);
        have_conflict = true;
        break;
      }
      if (theory_head_ == trail_.size()) break;
      if (!theory_insert(trail_[theory_head_], conflict)) { have_conflict = true; break; }
      ++theory_head_;
    }
    if (have_conflict) {
      ++st_.conflicts, ++conflicts_here;
      if (decision_level() == 0) return unsat_result();
      // A conflict clause whose literals are all below the current level
      // (possible for theory lemmas mixed with late propagation) first
      // backtracks to its highest level.
      uint32_t top = 0;
      for (uint32_t q : conflict) top = std::max(top, level_[var_of(q)]);
      if (top == 0) return unsat_result();
      if (top < decision_level()) backtrack(top);
      uint32_t bt;
      analyze(conflict, learnt, bt);
      backtrack(bt);
      if (learnt.size() == 1) {
        enqueue(learnt[0], kNone);
      } else {
        // LBD: distinct levels.
        std::vector<uint32_t> lv;
        for (uint32_t q : learnt) lv.push_back(level_[var_of(q)]);
        std::sort(lv.begin(), lv.end());
        const uint32_t lbd = static_cast<uint32_t>(std::unique(lv.begin(), lv.end()) - lv.begin());
        const uint32_t ci = add_clause(learnt, true, lbd);
        enqueue(learnt[0], ci);
      }
      var_inc_ /= 0.95;
      cla_inc_ /= 0.999;
      if ((st_.conflicts & 255) == 0 && out_of_budget()) {
        SatResult r;
        r.stats = st_;
        return r;
      }
      continue;
    }
    if (st_.conflicts >= next_reduce) {
      reduce_db();
      next_reduce = st_.conflicts + 2000 + 300 * (next_reduce / 2000);
    }
    if (conflicts_here >= restart_at) {
      backtrack(0);
      ++st_.restarts, conflicts_here = 0;
      restart_at = static_cast<uint64_t>(100 * luby(2, ++restart_no));
      if (out_of_budget()) {
        SatResult r;
        r.stats = st_;
        return r;
      }
      continue;
    }
    // Decide.
    uint32_t v = kNone;
    while (!heap_.empty()) {
      const uint32_t x = heap_pop();
      if (assign_[x] == kUndef) { v = x; break; }
    }
    if (v == kNone) {  // all assigned, theory consistent
      SatResult r;
      r.status = SatStatus::sat;
      r.side.assign(assign_.begin(), assign_.end());
      r.stats = st_;
      return r;
    }
    ++st_.decisions;
    trail_lim_.push_back(static_cast<uint32_t>(trail_.size()));
    enqueue(2 * v + phase_[v], kNone);
  }
}

}  // namespace

SatResult solve_own(const Polygraph& pg, const SatLimits& limits, const OwnSatOptions& o) {
  OwnSolver s(pg, limits, o);
  return s.run();
}

bool assignment_acyclic(const Polygraph& pg, const std::vector<uint8_t>& side) {
  // Known edges plus each constraint's chosen side, straight into a CSR
  // without edge ids: this check runs on every answer, so it must stay small.
  const uint32_t n = pg.vertex_count;
  auto each_edge = [&](auto&& fn) {
    for (size_t i = 0; i < pg.known.size(); ++i) fn(pg.known.src[i], pg.known.dst[i]);
    for (size_t c = 0; c < pg.constraints.size(); ++c) {
      const Constraint& k = pg.constraints[c];
      const uint64_t b = side[c] ? k.b_begin : k.a_begin, en = side[c] ? k.b_end : k.a_end;
      for (uint64_t i = b; i < en; ++i) fn(pg.choice_edges.src[i], pg.choice_edges.dst[i]);
    }
  };
  Csr g;
  g.offset.assign(static_cast<size_t>(n) + 1, 0);
  each_edge([&](uint32_t s, uint32_t) { ++g.offset[s + 1]; });
  for (uint32_t v = 0; v < n; ++v) g.offset[v + 1] += g.offset[v];
  g.target.resize(g.offset[n]);
  std::vector<uint64_t> pos(g.offset.begin(), g.offset.end() - 1);
  each_edge([&](uint32_t s, uint32_t d) { g.target[pos[s]++] = d; });
  return is_acyclic(g);
}

}  // namespace isocheck
