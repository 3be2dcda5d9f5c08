#include "mpi/unique_ids.h"

#include <mpi.h>

#include <algorithm>

#include "mpi/collectives.h"
#include "mpi/exchange.h"
#include "mpi/mpi_env.h"

namespace isocheck::dist {

FirstRepeat first_repeated_id(std::vector<std::pair<int64_t, uint64_t>> ids) {
  const int P = size();
  // Ids increasing across the file: nothing repeats.
  IdsInOrder mine;
  for (const auto& x : ids) mine.add(&x.first, 1);
  int64_t fields[4] = {mine.any, mine.increasing, mine.first, mine.last};
  std::vector<int64_t> all(4 * static_cast<size_t>(P));
  MPI_Allgather(fields, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, MPI_COMM_WORLD);
  IdsInOrder file;
  for (int r = 0; r < P; ++r) {
    const int64_t* f = all.data() + 4 * r;
    file.add(IdsInOrder{f[0] != 0, f[1] != 0, f[2], f[3]});
  }
  if (file.increasing) return {};
  // Every occurrence of an id meets the others at the rank its hash picks.
  struct IdAt {
    int64_t id;
    uint64_t at;
    bool operator<(const IdAt& o) const { return id != o.id ? id < o.id : at < o.at; }
  };
  std::vector<std::vector<IdAt>> out(static_cast<size_t>(P));
  for (const auto& [id, at] : ids) out[mix(static_cast<uint64_t>(id)) % static_cast<uint64_t>(P)].push_back({id, at});
  std::vector<std::pair<int64_t, uint64_t>>().swap(ids);
  std::vector<IdAt> got = exchange(out);
  std::sort(got.begin(), got.end());
  FirstRepeat rep;
  for (const IdAt& x : got) rep.see(x.id, x.at);
  // (An id meets all its occurrences on one rank: the ranks' answers merge.)
  uint64_t best[3] = {rep.b, rep.a, static_cast<uint64_t>(rep.id)};
  std::vector<uint64_t> bests(3 * static_cast<size_t>(P));
  MPI_Allgather(best, 3, MPI_UINT64_T, bests.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
  FirstRepeat r;
  for (int k = 0; k < P; ++k) {
    FirstRepeat o;
    o.b = bests[3 * k], o.a = bests[3 * k + 1], o.id = static_cast<int64_t>(bests[3 * k + 2]);
    r.merge(o);
  }
  return r;
}

}  // namespace isocheck::dist
