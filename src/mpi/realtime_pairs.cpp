#include "mpi/realtime_pairs.h"

#include <mpi.h>

#include <algorithm>
#include <limits>

#include "core/errors.h"
#include "core/history.h"
#include "mpi/exchange.h"
#include "mpi/mpi_env.h"

namespace isocheck::dist {

namespace {

// A node asked of a bucket: `exact` (the node of end time v) or the last
// node whose time is below v (`below`), or at most v (`at_most`: begin - δ
// past the int64 range).
struct Query {
  int64_t v;
  uint32_t kind, pad;
};
enum : uint32_t { kExact = 0, kBelow = 1, kAtMost = 2 };

}  // namespace

uint32_t realtime_pairs(const OwnedTimes& t, uint32_t n, int64_t skew, std::vector<uint32_t>& src,
                        std::vector<uint32_t>& dst) {
  const int P = size(), me = rank();
  const auto& begin = *t.begin;
  const auto& end = *t.end;
  const auto& inc = *t.included;
  auto timed = [&](size_t i) { return inc[i] && begin[i] != kNoTime && end[i] != kNoTime; };
  // This rank's distinct end times.
  std::vector<int64_t> local;
  for (size_t i = 0; i < end.size(); ++i)
    if (timed(i)) local.push_back(end[i]);
  std::sort(local.begin(), local.end());
  local.erase(std::unique(local.begin(), local.end()), local.end());
  // Splitters from P regular samples of every rank.
  std::vector<int64_t> samples;
  for (int s = 0; s < P && !local.empty(); ++s) samples.push_back(local[local.size() * s / P]);
  std::vector<int64_t> all = allgather_records(samples, "end-time samples");
  std::sort(all.begin(), all.end());
  std::vector<int64_t> split;  // bucket of x: the number of splitters <= x
  for (int r = 1; r < P && !all.empty(); ++r) split.push_back(all[all.size() * r / P]);
  auto bucket = [&](int64_t x) {
    return static_cast<int>(std::upper_bound(split.begin(), split.end(), x) - split.begin());
  };
  // The distinct end times of my bucket, and the number of them before it.
  std::vector<int64_t> mybucket;
  {
    std::vector<std::vector<int64_t>> out(P);
    for (int64_t e : local) out[bucket(e)].push_back(e);
    std::vector<int64_t>().swap(local);
    mybucket = exchange(out);
  }
  std::sort(mybucket.begin(), mybucket.end());
  mybucket.erase(std::unique(mybucket.begin(), mybucket.end()), mybucket.end());
  uint64_t count = mybucket.size(), before = 0, m = 0;
  MPI_Exscan(&count, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) before = 0;
  MPI_Allreduce(&count, &m, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (uint64_t{n} + m > std::numeric_limits<uint32_t>::max())
    throw ResourceError("key shards: more than 2^32 vertices in the SSER graph; run on more ranks");
  // The chain of time nodes: my bucket's, and the link from the previous bucket's last.
  for (uint64_t i = 0; i < count; ++i)
    if (before + i > 0) src.push_back(n + static_cast<uint32_t>(before + i - 1)), dst.push_back(n + static_cast<uint32_t>(before + i));
  // Each timed transaction asks for the node of its end and the node below its begin - δ.
  std::vector<std::vector<Query>> ask(P);
  std::vector<std::vector<uint32_t>> who(P);  // per bucket: (local index << 1) | (1 for a begin query)
  for (size_t i = 0; i < end.size(); ++i) {
    if (!timed(i)) continue;
    ask[bucket(end[i])].push_back({end[i], kExact, 0});
    who[bucket(end[i])].push_back(static_cast<uint32_t>(i) << 1);
    const __int128 q = static_cast<__int128>(begin[i]) - skew;  // e + δ < begin  <=>  e < begin - δ
    if (q <= std::numeric_limits<int64_t>::min()) continue;   // no end time lies below
    Query b{};
    if (q > std::numeric_limits<int64_t>::max()) b = {std::numeric_limits<int64_t>::max(), kAtMost, 0};
    else b = {static_cast<int64_t>(q), kBelow, 0};
    ask[bucket(b.v)].push_back(b);
    who[bucket(b.v)].push_back((static_cast<uint32_t>(i) << 1) | 1);
  }
  std::vector<uint64_t> from;
  std::vector<Query> asked = exchange(ask, &from);
  // Answers: node numbers (-1: none), back to the askers in their order.
  std::vector<std::vector<int64_t>> reply(P);
  for (int r = 0; r < P; ++r)
    for (uint64_t k = from[r]; k < from[r + 1]; ++k) {
      const Query& q = asked[k];
      int64_t node;
      if (q.kind == kExact) node = static_cast<int64_t>(before) + (std::lower_bound(mybucket.begin(), mybucket.end(), q.v) - mybucket.begin());
      else if (q.kind == kBelow) node = static_cast<int64_t>(before) + (std::lower_bound(mybucket.begin(), mybucket.end(), q.v) - mybucket.begin()) - 1;
      else node = static_cast<int64_t>(before) + (std::upper_bound(mybucket.begin(), mybucket.end(), q.v) - mybucket.begin()) - 1;
      reply[r].push_back(node);
    }
  std::vector<Query>().swap(asked);
  std::vector<uint64_t> at;
  std::vector<int64_t> answers = exchange(reply, &at);
  for (int r = 0; r < P; ++r) {  // bucket r answers in the order it was asked
    uint64_t k = at[r];
    for (uint32_t w : who[r]) {
      const uint32_t tx = static_cast<uint32_t>(t.first + (w >> 1));
      const int64_t node = answers[k++];
      if (!(w & 1)) src.push_back(tx), dst.push_back(n + static_cast<uint32_t>(node));
      else if (node >= 0) src.push_back(n + static_cast<uint32_t>(node)), dst.push_back(tx);
    }
  }
  return static_cast<uint32_t>(m);
}

}  // namespace isocheck::dist
