// Record exchanges between ranks for the key-shard path: fixed-size records
// (trivially copyable) sent as one contiguous MPI datatype.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.h"
#include "mpi/mpi_env.h"

namespace isocheck::dist {

template <class T> MPI_Datatype record_type() {
  MPI_Datatype t;
  MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

// Displacements of consecutive parts of `counts` records; the total. Every
// displacement must fit MPI's int: past it, a ResourceError naming `what`.
inline uint64_t record_displacements(const std::vector<int>& counts, std::vector<int>& disp, const char* what) {
  uint64_t total = 0;
  disp.resize(counts.size());
  for (size_t r = 0; r < counts.size(); ++r) {
    if (total > INT32_MAX) throw ResourceError(std::string("more than 2^31 ") + what + "; run on more ranks");
    disp[r] = static_cast<int>(total), total += counts[r];
  }
  if (total > INT32_MAX) throw ResourceError(std::string("more than 2^31 ") + what + "; run on more ranks");
  return total;
}

// Collective: out[r] goes to rank r; returns what every rank sent here, in
// rank order; `from` (optional) receives where each source's part begins,
// plus the end. `out` is emptied.
template <class T>
std::vector<T> exchange(std::vector<std::vector<T>>& out, std::vector<uint64_t>* from = nullptr) {
  const int P = size();
  std::vector<int> sc(P), rc(P), sd(P), rd(P);
  for (int r = 0; r < P; ++r) {
    if (out[r].size() > INT32_MAX) throw ResourceError("key shards: more than 2^31 records to one rank; run on more ranks");
    sc[r] = static_cast<int>(out[r].size());
  }
  std::vector<T> send;
  send.reserve(record_displacements(sc, sd, "records to send"));
  for (int r = 0; r < P; ++r) {
    send.insert(send.end(), out[r].begin(), out[r].end());
    std::vector<T>().swap(out[r]);
  }
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<T> recv(record_displacements(rc, rd, "records to receive"));
  if (from) {
    from->assign(rd.begin(), rd.end());
    from->push_back(recv.size());
  }
  MPI_Datatype t = record_type<T>();
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), t, recv.data(), rc.data(), rd.data(), t, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  return recv;
}

// Collective: `send` holds the records for rank 0, then rank 1, ...
// (`counts[r]` of them for rank r); returns what each rank sent here, one
// vector per source, each allocated at its size and received in place
// (point-to-point under `tag`, which no other message of the phase may use),
// so a caller that keeps records per source copies nothing on arrival.
template <class T>
std::vector<std::vector<T>> exchange_per_source(const std::vector<T>& send, const std::vector<int>& counts, int tag) {
  const int P = size();
  std::vector<int> sd(P), rc(P);
  record_displacements(counts, sd, "records to send");
  MPI_Alltoall(counts.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<std::vector<T>> got(P);
  MPI_Datatype t = record_type<T>();
  std::vector<MPI_Request> reqs;
  reqs.reserve(2 * P);
  for (int r = 0; r < P; ++r) {
    if (rc[r] == 0) continue;
    got[r].resize(static_cast<size_t>(rc[r]));
    reqs.emplace_back();
    MPI_Irecv(got[r].data(), rc[r], t, r, tag, MPI_COMM_WORLD, &reqs.back());
  }
  for (int r = 0; r < P; ++r) {
    if (counts[r] == 0) continue;
    reqs.emplace_back();
    MPI_Isend(send.data() + sd[r], counts[r], t, r, tag, MPI_COMM_WORLD, &reqs.back());
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  MPI_Type_free(&t);
  return got;
}

// Collective: each record of `recs` to rank owner(record), placed in one send
// buffer by destination (counted first: no per-rank vectors to grow);
// returns what each rank sent here, one vector per source. `recs` is freed
// once packed, before anything is received (at most two copies are held).
template <class T, class Owner>
std::vector<std::vector<T>> route_records(std::vector<T>&& recs, Owner owner, int tag) {
  const int P = size();
  std::vector<int> counts(P, 0);
  for (const T& x : recs) ++counts[owner(x)];
  std::vector<uint64_t> at(P, 0);
  for (int r = 1; r < P; ++r) at[r] = at[r - 1] + static_cast<uint64_t>(counts[r - 1]);
  std::vector<T> send(recs.size());
  for (const T& x : recs) send[at[owner(x)]++] = x;
  std::vector<T>().swap(recs);
  return exchange_per_source(send, counts, tag);
}

// Collective: every rank's records on rank `root` (rank order); `starts`
// (root) receives where each rank's part begins, plus the end.
template <class T>
std::vector<T> gather_records(const std::vector<T>& mine, int root = 0, std::vector<uint64_t>* starts = nullptr) {
  const int P = size(), me = rank();
  if (mine.size() > INT32_MAX) throw ResourceError("key shards: more than 2^31 records on one rank; run on more ranks");
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(P), disp(P);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
  std::vector<T> all;
  if (me == root) {
    all.resize(record_displacements(counts, disp, "records to gather"));
    if (starts) {
      starts->assign(disp.begin(), disp.end());
      starts->push_back(all.size());
    }
  }
  MPI_Datatype t = record_type<T>();
  MPI_Gatherv(mine.data(), count, t, all.data(), counts.data(), disp.data(), t, root, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  return all;
}

// Collective: every rank's records, concatenated in rank order, on every
// rank. `what` names the records in the error past MPI's int counts.
template <class T> std::vector<T> allgather_records(const std::vector<T>& mine, const char* what) {
  const int P = size();
  if (mine.size() > INT32_MAX) throw ResourceError(std::string("more than 2^31 ") + what + " on one rank; run on more ranks");
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(P), disp(P);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<T> all(record_displacements(counts, disp, what));
  MPI_Datatype t = record_type<T>();
  MPI_Allgatherv(mine.data(), count, t, all.data(), counts.data(), disp.data(), t, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  return all;
}

// Collective: `v` of rank `root` on every rank.
template <class T> void bcast_records(std::vector<T>& v, int root = 0) {
  uint64_t n = v.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  if (n > INT32_MAX) throw ResourceError("key shards: more than 2^31 records to broadcast; run on more ranks");
  v.resize(n);
  MPI_Datatype t = record_type<T>();
  MPI_Bcast(v.data(), static_cast<int>(n), t, root, MPI_COMM_WORLD);
  MPI_Type_free(&t);
}

}  // namespace isocheck::dist
