// Random polygraphs shaped like the ones histories produce, and a brute-force
// decision procedure: for tests and benchmarks.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "solver/sat_types.h"

namespace isocheck {

struct RandomPolygraphSpec {
  uint32_t vertices = 10;
  uint32_t known_edges = 10;
  uint32_t constraints = 5;
  uint32_t extra_per_side = 1;   // edges beyond the pair edge, 0..extra per side
  double backward = 0.05;        // chance a known edge goes against the hidden order
  uint32_t locality = 0;         // 0: anywhere; else pairs within this distance in the hidden order
  // true: like a serializable history: known edges and one side of every
  // constraint follow the hidden order (so an acyclic choice exists); the
  // other side holds the reverse pair edge plus random anti-dependencies.
  bool satisfiable = false;
};

Polygraph random_polygraph(std::mt19937_64& rng, const RandomPolygraphSpec& s);

// A random 3-CNF (vars variables, clauses clauses) as a polygraph: variable
// x is constraint x (side A = x true); clause (l1 ∨ l2 ∨ l3) gets fresh
// vertices u1 u2 u3 and the falsifying side of li holds edge ui -> u(i+1), so
// the graph is acyclic iff the assignment satisfies every clause. Pruning
// cannot decide these; they exercise the search. `noise` known edges between
// gadget vertices respecting a hidden order are added on top.
Polygraph random_3sat_polygraph(std::mt19937_64& rng, uint32_t vars, uint32_t clauses, uint32_t noise = 0);

// Exhaustive: tries all 2^c choices (c <= 24). True iff some
// choice is acyclic; then *side holds the first one found.
bool brute_force_acyclic(const Polygraph& pg, std::vector<uint8_t>* side = nullptr);

// Checks that `cycle` is a cycle of known ∪ the sides in `side`: consecutive,
// closed, and every choice edge on it belongs to its constraint's chosen side.
bool is_witness_cycle(const Polygraph& pg, const std::vector<uint8_t>& side, const std::vector<EdgeRef>& cycle);

}  // namespace isocheck
