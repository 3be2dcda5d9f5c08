#include "mpi/unique_ids.h"

#include <mpi.h>

#include <algorithm>

#include "mpi/collectives.h"
#include "mpi/exchange.h"
#include "mpi/mpi_env.h"

namespace isocheck::dist {

RepeatedId first_repeated_id(std::vector<std::pair<int64_t, uint64_t>> ids) {
  const int P = size();
  // Ids increasing across the file: nothing repeats.
  int64_t mine[3] = {1, INT64_MAX, INT64_MIN};  // increasing, smallest, largest
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i && ids[i - 1].first >= ids[i].first) mine[0] = 0;
    mine[1] = std::min(mine[1], ids[i].first), mine[2] = std::max(mine[2], ids[i].first);
  }
  std::vector<int64_t> all(3 * static_cast<size_t>(P));
  MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, MPI_COMM_WORLD);
  bool ordered = true, any = false;
  int64_t top = INT64_MIN;
  for (int r = 0; r < P; ++r) {
    if (!all[3 * r]) ordered = false;
    if (all[3 * r + 1] > all[3 * r + 2]) continue;  // empty range
    if (any && all[3 * r + 1] <= top) ordered = false;
    top = all[3 * r + 2], any = true;
  }
  if (ordered) return {};
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
  uint64_t best[3] = {UINT64_MAX, 0, 0};  // b, a, id
  for (size_t i = 1; i < got.size(); ++i)  // i: the second of its id's group
    if (got[i].id == got[i - 1].id && (i < 2 || got[i - 2].id != got[i].id) && got[i].at < best[0])
      best[0] = got[i].at, best[1] = got[i - 1].at, best[2] = static_cast<uint64_t>(got[i].id);
  std::vector<uint64_t> bests(3 * static_cast<size_t>(P));
  MPI_Allgather(best, 3, MPI_UINT64_T, bests.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
  RepeatedId r;
  for (int k = 0; k < P; ++k)
    if (bests[3 * k] < r.b) r.b = bests[3 * k], r.a = bests[3 * k + 1], r.id = static_cast<int64_t>(bests[3 * k + 2]);
  return r;
}

}  // namespace isocheck::dist
