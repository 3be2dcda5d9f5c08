#include "mpi/driver.h"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "mpi/key_shards.h"
#include "mpi/messages.h"
#include "mpi/mpi_env.h"
#include "io/errors.h"
#include "io/hdf5.h"
#include "io/load.h"
#include "partition/partition.h"
#include "report/report.h"
#include "solver/witness.h"
#include "util/timer.h"

namespace isocheck::dist {
namespace {

constexpr const char* kVersion = "isocheck 0.1.0";
// 2: piece results carry the pairs forced while building (stats).
constexpr const char* kCheckpointMagic = "isocheck-checkpoint 2";
constexpr int kTagRequest = 11, kTagAssign = 12;
// The running stage, for out-of-memory messages (cli/limits.cpp is not a library).
const char* g_stage = "start";
constexpr uint64_t kChunk = uint64_t{1} << 28;  // elements per MPI call (counts are int)

// ---- typed bulk arrays -------------------------------------------------------

template <class T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<int64_t>() { return MPI_INT64_T; }
template <> MPI_Datatype mpi_type<uint64_t>() { return MPI_UINT64_T; }
template <> MPI_Datatype mpi_type<uint32_t>() { return MPI_UINT32_T; }
template <> MPI_Datatype mpi_type<char>() { return MPI_CHAR; }
template <> MPI_Datatype mpi_type<TxnStatus>() { return MPI_UINT8_T; }
template <> MPI_Datatype mpi_type<OpKind>() { return MPI_UINT8_T; }

template <class T> void bcast_vec(std::vector<T>& v, int root) {
  uint64_t n = v.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  v.resize(n);
  for (uint64_t s = 0; s < n; s += kChunk)
    MPI_Bcast(v.data() + s, static_cast<int>(std::min(kChunk, n - s)), mpi_type<T>(), root, MPI_COMM_WORLD);
}

void bcast_string(std::string& s, int root) {
  std::vector<char> v(s.begin(), s.end());
  bcast_vec(v, root);
  s.assign(v.begin(), v.end());
}

void send_string(const std::string& s, int dest, int tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

// Waits for a message without spinning a core at 100% (ranks share cores).
MPI_Status wait_probe(int source, int tag) {
  int flag = 0;
  MPI_Status st;
  for (int spins = 0;; ++spins) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
    if (spins > 100) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

std::string recv_string(MPI_Status st) {
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string s(static_cast<size_t>(count), '\0');
  MPI_Recv(s.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}

// Test hook (tests/dist/held_job.sh): when the variable `env` is 1, every rank
// holds here until a signal arrives, so that a test stops the job at a known
// point without sleeping; rank 0 first says "held" into the FIFO named by
// ISOCHECK_TEST_READY_FIFO, which the test is blocked reading.
void test_hold(const char* env) {
  const char* hold = std::getenv(env);
  if (!hold || *hold != '1') return;
  if (const char* fifo = std::getenv("ISOCHECK_TEST_READY_FIFO"); fifo && rank() == 0)
    if (std::FILE* f = std::fopen(fifo, "w")) std::fputs("held\n", f), std::fclose(f);
  while (!g_terminate) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// ---- errors agreed by every rank --------------------------------------------

// Runs fn on every rank; if any rank threw, every rank throws the error of
// the lowest failing rank.
template <class F> void collective(F&& fn) {
  int code = 0;
  std::string msg;
  try {
    fn();
  } catch (const InputError& e) {
    code = 1, msg = e.what();
  } catch (const UsageError& e) {
    code = 2, msg = e.what();
  } catch (const ResourceError& e) {
    code = 3, msg = e.what();
  } catch (const std::bad_alloc&) {
    code = 3, msg = std::string("out of memory during stage \"") + g_stage + "\"; raise --memory-limit (or the machine's memory)";
  } catch (const std::exception& e) {
    code = 4, msg = e.what();
  }
  int me = code ? rank() : size(), first = 0;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size()) return;
  MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
  bcast_string(msg, first);
  if (code == 1) throw InputError(msg.substr(0, msg.find(": ")), msg.find(": ") == std::string::npos ? msg : msg.substr(msg.find(": ") + 2));
  if (code == 2) throw UsageError(msg);
  if (code == 3) throw ResourceError(msg);
  throw std::runtime_error(msg);
}

// ---- history exchange --------------------------------------------------------

void bcast_symbols(SymbolTable& t, int root) {
  // Names through one Boost-free flat encoding: count, then (is_int, len, bytes).
  std::string buf;
  if (rank() == root && t.named()) {
    for (size_t i = 0; i < t.names().size(); ++i) {
      const std::string& n = t.names()[i];
      uint64_t len = n.size();
      buf.push_back(static_cast<char>(t.int_flags()[i]));
      buf.append(reinterpret_cast<const char*>(&len), 8);
      buf.append(n);
    }
  }
  int named = rank() == root ? t.named() : 0;
  uint64_t count = rank() == root ? t.size() : 0;
  MPI_Bcast(&named, 1, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Bcast(&count, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  if (!named) {
    if (rank() != root) t.note_int_count(count);
    return;
  }
  bcast_string(buf, root);
  if (rank() == root) return;
  std::vector<std::string> names;
  std::vector<uint8_t> is_int;
  for (size_t p = 0; p < buf.size();) {
    is_int.push_back(static_cast<uint8_t>(buf[p]));
    uint64_t len;
    std::memcpy(&len, buf.data() + p + 1, 8);
    names.emplace_back(buf.data() + p + 9, len);
    p += 9 + len;
  }
  t.set_named(std::move(names), std::move(is_int));
}

void bcast_history(History& h, int root) {
  bcast_vec(h.txn_id, root);
  bcast_vec(h.txn_session, root);
  bcast_vec(h.txn_status, root);
  bcast_vec(h.txn_begin, root);
  bcast_vec(h.txn_end, root);
  bcast_vec(h.txn_op_offset, root);
  bcast_vec(h.op_kind, root);
  bcast_vec(h.op_key, root);
  bcast_vec(h.op_value, root);
  bcast_vec(h.op_list_offset, root);
  bcast_vec(h.list_value, root);
  bcast_vec(h.session_name, root);
  bcast_string(h.time_unit, root);
  bcast_symbols(h.keys, root);
  bcast_symbols(h.values, root);
}

// Every rank read transactions [first_r, last_r); afterwards every rank holds
// the whole history, in file order, sessions numbered by first appearance as
// read_hdf5 numbers them. Symbol tables are global in the file (every range
// reads them whole), so symbols need no remapping.
// One column gathered from every rank into place (MPI_Allgatherv): rank r's
// elements land after those of ranks < r. False, with `all` untouched, when a
// count or displacement exceeds an int (the caller then broadcasts in chunks).
template <class T> bool allgather_column(const std::vector<T>& mine, std::vector<T>& all, size_t skip = 0) {
  const int P = size();
  const uint64_t n = mine.size() - std::min(skip, mine.size());
  std::vector<uint64_t> counts(P);
  MPI_Allgather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<int> c(P), d(P);
  uint64_t total = 0;
  for (int r = 0; r < P; ++r) {
    if (counts[r] > INT32_MAX || total > INT32_MAX) return false;
    c[r] = static_cast<int>(counts[r]), d[r] = static_cast<int>(total);
    total += counts[r];
  }
  const size_t base = all.size();
  all.resize(base + total);
  MPI_Allgatherv(mine.data() + (mine.size() - n), c[rank()], mpi_type<T>(), all.data() + base, c.data(), d.data(),
                 mpi_type<T>(), MPI_COMM_WORLD);
  return true;
}

// The old way, for columns past an int count: every rank broadcasts its
// range in turn and the others append it.
History allgather_ranges_by_bcast(History&& mine) {
  History all;
  all.keys = std::move(mine.keys);
  all.values = std::move(mine.values);
  all.time_unit = mine.time_unit;
  std::unordered_map<int64_t, uint32_t> dense;
  for (int r = 0; r < size(); ++r) {
    History part;
    if (r == rank()) {
      part.txn_id = mine.txn_id, part.txn_session = mine.txn_session, part.txn_status = mine.txn_status;
      part.txn_begin = mine.txn_begin, part.txn_end = mine.txn_end, part.txn_op_offset = mine.txn_op_offset;
      part.op_kind = mine.op_kind, part.op_key = mine.op_key, part.op_value = mine.op_value;
      part.op_list_offset = mine.op_list_offset, part.list_value = mine.list_value, part.session_name = mine.session_name;
    }
    bcast_vec(part.txn_id, r);
    bcast_vec(part.txn_session, r);
    bcast_vec(part.txn_status, r);
    bcast_vec(part.txn_begin, r);
    bcast_vec(part.txn_end, r);
    bcast_vec(part.txn_op_offset, r);
    bcast_vec(part.op_kind, r);
    bcast_vec(part.op_key, r);
    bcast_vec(part.op_value, r);
    bcast_vec(part.op_list_offset, r);
    bcast_vec(part.list_value, r);
    bcast_vec(part.session_name, r);
    uint64_t op_base = all.op_kind.size(), list_base = all.list_value.size();
    for (size_t t = 0; t < part.txn_id.size(); ++t) {
      int64_t name = part.session_name[part.txn_session[t]];
      auto [it, fresh] = dense.try_emplace(name, static_cast<uint32_t>(all.session_name.size()));
      if (fresh) all.session_name.push_back(name);
      all.txn_id.push_back(part.txn_id[t]);
      all.txn_session.push_back(it->second);
      all.txn_status.push_back(part.txn_status[t]);
      all.txn_begin.push_back(part.txn_begin[t]);
      all.txn_end.push_back(part.txn_end[t]);
      all.txn_op_offset.push_back(op_base + part.txn_op_offset[t + 1]);
    }
    all.op_kind.insert(all.op_kind.end(), part.op_kind.begin(), part.op_kind.end());
    all.op_key.insert(all.op_key.end(), part.op_key.begin(), part.op_key.end());
    all.op_value.insert(all.op_value.end(), part.op_value.begin(), part.op_value.end());
    for (size_t o = 1; o < part.op_list_offset.size(); ++o) all.op_list_offset.push_back(list_base + part.op_list_offset[o]);
    all.list_value.insert(all.list_value.end(), part.list_value.begin(), part.list_value.end());
  }
  return all;
}

// Every rank's transaction range (read_hdf5_range) joined on every rank, in
// rank order: one MPI_Allgatherv per column, then the per-range offsets and
// session numbers fixed up. Sessions are numbered by first appearance in
// transaction order, as when one process reads the file.
History allgather_ranges(History&& mine) {
  const int P = size();
  // MPI counts and displacements are ints: past that, in whole or in any
  // column, the chunked broadcasts (every column is at most this long).
  uint64_t total[4] = {mine.txn_id.size(), mine.op_kind.size(), mine.list_value.size(), mine.session_name.size()};
  MPI_Allreduce(MPI_IN_PLACE, total, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (mine.op_list_offset.size() != mine.op_kind.size() + 1) {  // freed: no list values in this range
    if (!mine.list_value.empty()) throw std::logic_error("allgather_ranges: list values without offsets");
    mine.op_list_offset.assign(mine.op_kind.size() + 1, 0);
  }
  // (Test hook, tests/dist/dist_cli.sh: the broadcasts at any size.)
  if (std::max({total[0], total[1], total[2], total[3]}) + 1 > INT32_MAX || std::getenv("ISOCHECK_TEST_ALLGATHER_BY_BCAST"))
    return allgather_ranges_by_bcast(std::move(mine));
  History all;
  all.keys = std::move(mine.keys);
  all.values = std::move(mine.values);
  all.time_unit = mine.time_unit;
  // Per-rank counts: transactions, operations, list values, session names.
  const uint64_t here[4] = {mine.txn_id.size(), mine.op_kind.size(), mine.list_value.size(), mine.session_name.size()};
  std::vector<uint64_t> cnt(4 * P);
  MPI_Allgather(here, 4, MPI_UINT64_T, cnt.data(), 4, MPI_UINT64_T, MPI_COMM_WORLD);
  bool ok = allgather_column(mine.txn_id, all.txn_id) && allgather_column(mine.txn_session, all.txn_session) &&
            allgather_column(mine.txn_status, all.txn_status) && allgather_column(mine.txn_begin, all.txn_begin) &&
            allgather_column(mine.txn_end, all.txn_end) && allgather_column(mine.txn_op_offset, all.txn_op_offset, 1) &&
            allgather_column(mine.op_kind, all.op_kind) && allgather_column(mine.op_key, all.op_key) &&
            allgather_column(mine.op_value, all.op_value) &&
            allgather_column(mine.op_list_offset, all.op_list_offset, 1) &&
            allgather_column(mine.list_value, all.list_value);
  std::vector<int64_t> names;
  ok = ok && allgather_column(mine.session_name, names);
  if (!ok) throw std::logic_error("allgather_ranges: counts checked above");
  // Offsets: each range's are relative to its own first operation / list value.
  uint64_t t0 = 0, op_base = 0, list_base = 0, name0 = 0;
  std::unordered_map<int64_t, uint32_t> dense;
  std::vector<uint32_t> local_to_all;
  for (int r = 0; r < P; ++r) {
    const uint64_t nt = cnt[4 * r], nop = cnt[4 * r + 1], nl = cnt[4 * r + 2], ns = cnt[4 * r + 3];
    for (uint64_t t = t0; t < t0 + nt; ++t) all.txn_op_offset[t + 1] += op_base;
    // op_list_offset has one entry per operation after the leading 0.
    for (uint64_t o = op_base; o < op_base + nop; ++o) all.op_list_offset[o + 1] += list_base;
    local_to_all.assign(ns, UINT32_MAX);
    for (uint64_t t = t0; t < t0 + nt; ++t) {
      uint32_t& g = local_to_all[all.txn_session[t]];
      if (g == UINT32_MAX) {
        auto [it, fresh] = dense.try_emplace(names[name0 + all.txn_session[t]], static_cast<uint32_t>(all.session_name.size()));
        if (fresh) all.session_name.push_back(it->first);
        g = it->second;
      }
      all.txn_session[t] = g;
    }
    t0 += nt, op_base += nop, list_base += nl, name0 += ns;
  }
  return all;
}

// One column scattered from the root: rank r receives elements
// [first[r], first[r + 1]) (MPI_Scatterv; counts are int, hence the check).
template <class T> std::vector<T> scatter_column(const std::vector<T>& all, const std::vector<uint64_t>& first, int root) {
  const int P = size(), me = rank();
  std::vector<int> counts(P), disp(P);
  for (int r = 0; r < P; ++r) {
    if (first[r + 1] - first[r] > INT32_MAX || first[r] > INT32_MAX)
      throw ResourceError("scattering the history: more than 2^31 elements; run on more ranks");
    counts[r] = static_cast<int>(first[r + 1] - first[r]), disp[r] = static_cast<int>(first[r]);
  }
  std::vector<T> mine(counts[me]);
  MPI_Scatterv(me == root ? all.data() : nullptr, counts.data(), disp.data(), mpi_type<T>(), mine.data(), counts[me],
               mpi_type<T>(), root, MPI_COMM_WORLD);
  return mine;
}

// The root's history (registers only) cut into P consecutive transaction
// ranges, rank r getting [n*r/P, n*(r+1)/P): what per-rank reads of an HDF5
// file give, for a JSONL or imported history read on one rank. Symbol tables
// stay on the root (the shards need only the symbols' ids).
History scatter_ranges(const History& h, int root) {
  const int P = size(), me = rank();
  uint64_t n = me == root ? h.txn_count() : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  std::vector<uint64_t> txn_first(P + 1), op_first(P + 1);
  for (int r = 0; r <= P; ++r) txn_first[r] = n * r / P;
  if (me == root)
    for (int r = 0; r <= P; ++r) op_first[r] = h.txn_op_offset[txn_first[r]];
  MPI_Bcast(op_first.data(), P + 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  History mine;
  mine.txn_id = scatter_column(h.txn_id, txn_first, root);
  mine.txn_session = scatter_column(h.txn_session, txn_first, root);
  mine.txn_status = scatter_column(h.txn_status, txn_first, root);
  mine.txn_begin = scatter_column(h.txn_begin, txn_first, root);
  mine.txn_end = scatter_column(h.txn_end, txn_first, root);
  // Offsets: each rank's part of the column, made relative to its first op.
  std::vector<uint64_t> ends = scatter_column(
      me == root ? std::vector<uint64_t>(h.txn_op_offset.begin() + 1, h.txn_op_offset.end()) : std::vector<uint64_t>{},
      txn_first, root);
  mine.txn_op_offset.assign(1, 0);
  for (uint64_t e : ends) mine.txn_op_offset.push_back(e - op_first[me]);
  mine.op_kind = scatter_column(h.op_kind, op_first, root);
  mine.op_key = scatter_column(h.op_key, op_first, root);
  mine.op_value = scatter_column(h.op_value, op_first, root);
  if (me == root) mine.session_name = h.session_name, mine.time_unit = h.time_unit;
  bcast_vec(mine.session_name, root);
  bcast_string(mine.time_unit, root);
  return mine;
}

// ---- key-sharded communication graph ----------------------------------------

struct KeyTriple {
  uint64_t key, session, ops;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return x;
}

// Keys are hashed to ranks; each rank sees every (key, session) of its keys,
// and contributes its keys' cycle edges and (key, ops, s1, s2) rows; the rows
// are gathered everywhere and the same Partition comes out on every rank.
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
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_UINT64_T, &triple);
  MPI_Type_commit(&triple);
  std::vector<int> scount(P, 0), rcount(P, 0), sdisp(P, 0), rdisp(P, 0);
  std::vector<std::vector<KeyTriple>> out(P);
  for (auto& k : local) out[mix(k.key) % P].push_back(k);
  std::vector<KeyTriple> send;
  for (int r = 0; r < P; ++r) {
    if (out[r].size() > INT32_MAX) throw ResourceError("key shard exchange: more than 2^31 (key, session) pairs for one rank; run on more ranks");
    scount[r] = static_cast<int>(out[r].size());
    sdisp[r] = static_cast<int>(send.size());
    send.insert(send.end(), out[r].begin(), out[r].end());
  }
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t total = 0;
  for (int r = 0; r < P; ++r) rdisp[r] = static_cast<int>(total), total += rcount[r];
  std::vector<KeyTriple> mine(total);
  MPI_Alltoallv(send.data(), scount.data(), sdisp.data(), triple, mine.data(), rcount.data(), rdisp.data(), triple,
                MPI_COMM_WORLD);
  MPI_Type_free(&triple);
  // My keys: sessions sorted, ops summed; cycle edges and per-key rows.
  std::sort(mine.begin(), mine.end(), [](const KeyTriple& a, const KeyTriple& b) {
    return a.key != b.key ? a.key < b.key : a.session < b.session;
  });
  std::vector<uint64_t> edges;  // pairs flattened
  std::vector<uint64_t> rows;   // key, ops, s1, s2 (s2 = ~0 when single-session)
  for (size_t i = 0; i < mine.size();) {
    size_t j = i;
    uint64_t ops = 0;
    std::vector<uint64_t> ss;
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
  // Gather every shard's rows and edges on every rank.
  std::vector<uint64_t> all_edges, all_rows;
  for (int r = 0; r < P; ++r) {
    std::vector<uint64_t> e = r == me ? edges : std::vector<uint64_t>{}, w = r == me ? rows : std::vector<uint64_t>{};
    bcast_vec(e, r);
    bcast_vec(w, r);
    all_edges.insert(all_edges.end(), e.begin(), e.end());
    all_rows.insert(all_rows.end(), w.begin(), w.end());
  }
  CommGraph g;
  g.sessions = static_cast<uint32_t>(h.session_count());
  for (size_t i = 0; i < all_edges.size(); i += 2)
    g.edges.push_back({static_cast<uint32_t>(all_edges[i]), static_cast<uint32_t>(all_edges[i + 1])});
  std::sort(g.edges.begin(), g.edges.end());
  g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
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
  Partition p = partition_from_graph(g, key_ops);
  // Transactions per block (informational; `info --components`).
  std::vector<uint64_t> txns(p.comp_sessions.size(), 0);
  std::vector<uint32_t> seen(p.comp_sessions.size(), ~0u);
  for (TxnIdx t = first; t < last; ++t)
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      uint32_t c = p.component_of_key(h.op_key[o]);
      if (seen[c] != t) seen[c] = t, txns[c]++;
    }
  MPI_Allreduce(txns.data(), p.comp_txns.data(), static_cast<int>(txns.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return p;
}

// ---- pieces ------------------------------------------------------------------

struct Job {
  const History& h;
  const Partition& p;
  const std::vector<uint8_t>& included;
  const SessionTxns& index;
  const CheckOptions& opt;
  bool whole_sser;                 // piece 0 is the whole history for SSER
  std::vector<Level> split_levels;  // SER / SI, decided per block
  bool whole_split;                // one block: check SER/SI on the whole history (same as one process)
  uint32_t pieces() const {
    uint32_t n = whole_sser ? 1 : 0;
    if (!split_levels.empty()) n += whole_split ? 1 : static_cast<uint32_t>(p.comp_sessions.size());
    return n;
  }
  // Levels piece i decides.
  std::vector<Level> levels_of(uint32_t i) const {
    if (whole_sser && i == 0) return {Level::sser};
    return split_levels;
  }
};

PieceResult to_result(const CheckResult& r, int32_t piece, const History& h, const Projection* pr) {
  PieceResult out;
  out.piece = piece;
  auto gtxn = [&](TxnIdx t) { return pr ? pr->txn[t] : t; };
  auto gpos = [&](TxnIdx local_t, uint32_t pos) -> uint32_t {
    if (!pr) return pos;
    OpIdx local_op = pr->h.op_begin(local_t) + pos;
    return static_cast<uint32_t>(pr->op[local_op] - h.op_begin(pr->txn[local_t]));
  };
  for (const Anomaly& a : r.anomalies)
    out.anomalies.push_back({static_cast<uint8_t>(a.kind), gtxn(a.txn), gtxn(a.other), gpos(a.txn, a.op), a.key, a.value});
  for (const LevelResult& lr : r.levels) {
    LevelOutcome o;
    o.level = static_cast<uint8_t>(lr.level);
    o.holds = lr.holds, o.decided = lr.decided, o.reason = lr.reason;
    if (lr.witness) {
      const Witness& w = *lr.witness;
      o.has_witness = true;
      EdgeList e;
      for (size_t i = 0; i < w.cycle.size(); ++i) {
        // `why` is an operation position, with the inferred-order marker bit
        // (graph/edges.h) on edges the general engine inferred: map the
        // position alone and keep the marker.
        uint32_t why = w.cycle.why[i];
        const uint32_t marker = why & kInferredBit;
        EdgeKind k = w.cycle.kind[i];
        if (k == EdgeKind::wr || k == EdgeKind::ww) why = gpos(w.cycle.dst[i], why_pos(why)) | marker;
        else if (k == EdgeKind::rw) why = gpos(w.cycle.src[i], why_pos(why)) | marker;
        e.add(gtxn(w.cycle.src[i]), gtxn(w.cycle.dst[i]), k, why);
      }
      o.anomaly = pr ? name_cycle(e, h) : w.anomaly;
      o.src = e.src, o.dst = e.dst, o.why = e.why;
      for (auto k : e.kind) o.kind.push_back(static_cast<uint8_t>(k));
      for (auto& c : w.core) o.core_key.push_back(c.key), o.core_first.push_back(gtxn(c.first_head)), o.core_second.push_back(gtxn(c.second_head));
      o.core_minimal = w.core_minimal;
    }
    out.levels.push_back(std::move(o));
  }
  out.edges = r.stats.edges, out.constraints = r.stats.constraints, out.ordered_by_time = r.stats.ordered_by_time;
  out.pruned = r.stats.pruned, out.to_solver = r.stats.to_solver, out.subproblems = r.stats.subproblems;
  out.unordered_write_pairs = r.stats.unordered_write_pairs;
  out.decided_at_build = r.stats.decided_at_build;
  return out;
}

PieceResult run_piece(const Job& job, uint32_t i) {
  CheckOptions o = job.opt;
  o.levels = job.levels_of(i);
  try {
    if ((job.whole_sser && i == 0) || job.whole_split) return to_result(check(job.h, o), static_cast<int32_t>(i), job.h, nullptr);
    uint32_t comp = i - (job.whole_sser ? 1 : 0);
    Projection pr = project(job.h, job.p, comp, job.included, &job.index);
    return to_result(check(pr.h, o), static_cast<int32_t>(i), job.h, &pr);
  } catch (const InputError& e) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 2, r.error = e.what();
    return r;
  } catch (const ResourceError& e) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 3, r.error = e.what();
    return r;
  } catch (const std::bad_alloc&) {
    PieceResult r;
    r.piece = static_cast<int32_t>(i), r.error_code = 3, r.error = "out of memory while checking a piece; raise --memory-limit";
    return r;
  }
}

// Which pieces still matter: without --all-violations, once every level has a
// violating piece, pieces above the highest of those lowest violators cannot
// change the report (each level reports its lowest violating piece).
struct Board {
  const Job& job;
  bool all_violations;
  std::map<int32_t, PieceResult> done;
  uint32_t next = 0;
  uint32_t cutoff() const {
    if (all_violations) return job.pieces();
    std::map<Level, uint32_t> lowest;
    std::vector<Level> all;
    if (job.whole_sser) all.push_back(Level::sser);
    for (Level l : job.split_levels) all.push_back(l);
    for (auto& [i, r] : done) {
      if (r.error_code) return std::min<uint32_t>(job.pieces(), static_cast<uint32_t>(i) + 0);  // an error ends the run
      for (Level l : job.levels_of(static_cast<uint32_t>(i))) {
        bool bad = !r.anomalies.empty();
        for (auto& o : r.levels) if (static_cast<Level>(o.level) == l && !o.holds && o.decided) bad = true;
        if (bad && !lowest.count(l)) lowest[l] = static_cast<uint32_t>(i);  // map iterates in piece order
      }
    }
    uint32_t c = 0;
    for (Level l : all) {
      if (!lowest.count(l)) return job.pieces();
      c = std::max(c, lowest[l]);
    }
    return c + 1;  // pieces [0, c] matter
  }
  // Next piece to run, or -1.
  int take() {
    uint32_t c = cutoff();
    while (next < job.pieces() && done.count(static_cast<int32_t>(next))) ++next;
    if (next >= c) return -1;
    return static_cast<int>(next++);
  }
};

// ---- checkpoints -------------------------------------------------------------

struct Fingerprint {
  uint64_t size = 0, hash = 0;
  std::string text() const {
    char b[80];
    std::snprintf(b, sizeof b, "%llu:%016llx", static_cast<unsigned long long>(size), static_cast<unsigned long long>(hash));
    return b;
  }
};

Fingerprint fingerprint_file(const std::string& path) {
  Fingerprint f;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // a folder of logs (cobra): hash every file in name order
    std::vector<std::string> files;
    for (auto& e : std::filesystem::directory_iterator(path)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (auto& p : files) {
      Fingerprint g = fingerprint_file(p);
      f.size += g.size, f.hash = mix(f.hash ^ g.hash) + g.size;
    }
    return f;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot open " + path);
  std::vector<char> buf(1 << 22);
  uint64_t h = 0x243f6a8885a308d3ULL;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    size_t got = static_cast<size_t>(in.gcount());
    f.size += got;
    size_t i = 0;
    for (; i + 8 <= got; i += 8) {
      uint64_t w;
      std::memcpy(&w, buf.data() + i, 8);
      h = (h ^ mix(w)) * 0x9e3779b97f4a7c15ULL;
    }
    for (; i < got; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ULL;
  }
  f.hash = mix(h ^ f.size);
  return f;
}

std::string checkpoint_path(const std::string& dir) { return dir + "/isocheck.ckpt"; }

std::string header_line(const Fingerprint& fp, const std::string& options) {
  return std::string(kCheckpointMagic) + "\t" + kVersion + "\t" + fp.text() + "\t" + options + "\n";
}

void write_checkpoint(const std::string& dir, const std::string& header, const Checkpoint& c) {
  std::filesystem::create_directories(dir);
  std::string tmp = checkpoint_path(dir) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError("--checkpoint-dir: cannot write " + tmp);
    std::string body = to_bytes(c);
    out << header;
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    if (!out) throw ResourceError("--checkpoint-dir: writing " + tmp + " failed (disk full?)");
  }
  std::filesystem::rename(tmp, checkpoint_path(dir));  // atomic: a reader sees the old or the new one
}

// Loads the checkpoint if there is one; refuses (UsageError, exit 2) one made
// for another input, another isocheck version or other options.
bool load_checkpoint(const std::string& dir, const Fingerprint& fp, const std::string& options, Checkpoint& c) {
  std::string path = checkpoint_path(dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string line;
  std::getline(in, line);
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
  if (f.size() >= 3 && f[0] != kCheckpointMagic && f[0].rfind("isocheck-checkpoint ", 0) == 0)
    throw UsageError("checkpoint " + path + " has format " + f[0] + ", this isocheck writes " + kCheckpointMagic +
                     "; remove it (or finish the job with the isocheck that wrote it)");
  if (f.size() < 3 || f[0] != kCheckpointMagic)
    throw UsageError("checkpoint " + path + " is not an isocheck checkpoint; remove it or use another --checkpoint-dir");
  if (f[1] != kVersion)
    throw UsageError("checkpoint " + path + " was written by " + f[1] + ", this is " + kVersion +
                     "; remove it (or finish the job with that version)");
  if (f[2] != fp.text())
    throw UsageError("checkpoint " + path + " was written for another input (size:hash " + f[2] + ", this input " +
                     fp.text() + "); remove it or use another --checkpoint-dir");
  std::string opts = f.size() > 3 ? f[3] : "";
  if (opts != options)
    throw UsageError("checkpoint " + path + " was written with other options (" + opts + "; now " + options +
                     "); rerun with the same options or remove it");
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    from_bytes(body, c);
  } catch (const std::exception& e) {
    throw UsageError("checkpoint " + path + " is damaged (" + e.what() + "); remove it");
  }
  return true;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// ---- merging -----------------------------------------------------------------

CheckResult merge(const Job& job, const std::map<int32_t, PieceResult>& done, uint32_t cutoff, const History& h,
                  const std::vector<uint8_t>& included) {
  CheckResult r;
  r.stats.txns = h.txn_count();
  r.stats.committed = static_cast<size_t>(std::count(included.begin(), included.end(), 1));
  for (Level l : job.opt.levels) r.levels.push_back({l});
  std::vector<Anomaly> anomalies;
  std::map<Level, const LevelOutcome*> violated, undecided;
  for (auto& [i, pr] : done) {
    if (static_cast<uint32_t>(i) >= cutoff) continue;
    // Anomalies: piece 0 is the whole history when SSER is asked, and then it
    // holds every anomaly (the blocks' pieces would repeat them).
    bool whole_piece = job.whole_sser && i == 0;
    if (whole_piece || !job.whole_sser)
      for (auto& a : pr.anomalies)
        anomalies.push_back({static_cast<AnomalyKind>(a.kind), a.txn, a.other, a.op, a.key, a.value});
    // Stats: edges summed over SER/SI pieces (each edge lies in one block);
    // the general engine's figures from the largest piece, as check() does.
    if (!(job.whole_sser && i == 0) || job.split_levels.empty()) r.stats.edges += pr.edges;
    r.stats.unordered_write_pairs += (job.whole_sser && i == 0 && !job.split_levels.empty()) ? 0 : pr.unordered_write_pairs;
    if (pr.constraints >= r.stats.constraints) {
      r.stats.constraints = pr.constraints, r.stats.ordered_by_time = pr.ordered_by_time, r.stats.pruned = pr.pruned;
      r.stats.decided_at_build = pr.decided_at_build;
      r.stats.to_solver = pr.to_solver, r.stats.subproblems = pr.subproblems;
    }
    for (auto& o : pr.levels) {
      Level l = static_cast<Level>(o.level);
      if (!o.holds && o.decided && o.has_witness && !violated.count(l)) violated[l] = &o;
      else if (!o.holds && o.decided && !violated.count(l)) violated[l] = &o;
      if (!o.decided && !undecided.count(l)) undecided[l] = &o;
    }
  }
  // One piece that is the whole history keeps check()'s order; anomalies
  // merged from several blocks are sorted by transaction, operation, kind.
  bool whole = job.whole_sser || job.whole_split;
  if (!whole) std::sort(anomalies.begin(), anomalies.end(), [](const Anomaly& a, const Anomaly& b) {
    return std::tie(a.txn, a.op, a.kind, a.other, a.key, a.value) < std::tie(b.txn, b.op, b.kind, b.other, b.key, b.value);
  });
  r.anomalies = anomalies;
  if (!anomalies.empty()) {
    for (auto& lr : r.levels) lr.holds = false, lr.reason = "the history contains anomalies that none of SER, SI, SSER allows";
    return r;
  }
  auto fill = [&](LevelResult& lr, const LevelOutcome& o) {
    lr.holds = o.holds, lr.decided = o.decided, lr.reason = o.reason;
    if (o.has_witness) {
      Witness w;
      w.anomaly = o.anomaly;
      for (size_t i = 0; i < o.src.size(); ++i) w.cycle.add(o.src[i], o.dst[i], static_cast<EdgeKind>(o.kind[i]), o.why[i]);
      for (size_t i = 0; i < o.core_key.size(); ++i) w.core.push_back({o.core_key[i], o.core_first[i], o.core_second[i]});
      w.core_minimal = o.core_minimal;
      lr.witness = std::move(w);
    }
  };
  for (auto& lr : r.levels) {
    if (violated.count(lr.level)) fill(lr, *violated[lr.level]);
    else if (undecided.count(lr.level)) fill(lr, *undecided[lr.level]);
  }
  // As check(): an undecided SSER with a violated SER takes SER's witness.
  auto find = [&](Level l) -> LevelResult* {
    for (auto& lr : r.levels) if (lr.level == l) return &lr;
    return nullptr;
  };
  LevelResult *sser = find(Level::sser), *ser = find(Level::ser);
  if (sser && !sser->decided && violated.count(Level::ser)) {
    Level keep = sser->level;
    fill(*sser, *violated[Level::ser]);
    sser->level = keep;
  }
  (void)ser;
  return r;
}

}  // namespace

DistRun run_distributed(const std::string& file, Format f, const CheckOptions& opt, const DistOptions& d) {
  init();
  install_term_handler();
  DistRun run;
  const int P = size(), me = rank();
  run.root = me == 0;
  std::vector<std::pair<std::string, double>> times;
  Timer stage_timer, total;
  auto end_stage = [&](const char* name) {
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back({name, stage_timer.seconds()});
    stage_timer.reset();
    // Like the one-process progress: a line per stage once the run has taken a second.
    if (!d.quiet && me == 0 && total.seconds() > 1.0)
      std::fprintf(stderr, "isocheck: [%d ranks] %s done (%.2f s)\n", P, name, times.back().second);
  };

  // Checkpoint: fingerprint of the input (rank 0 hashes the bytes).
  std::string header;
  Checkpoint ck;
  bool have_ck = false;
  collective([&] {
    if (d.checkpoint_dir.empty() || me != 0) return;
    Fingerprint fp = fingerprint_file(file);
    header = header_line(fp, d.options_text);
    have_ck = load_checkpoint(d.checkpoint_dir, fp, d.options_text, ck);
  });
  {
    int flag = have_ck;
    MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    have_ck = flag;
    std::string bytes = me == 0 && have_ck ? to_bytes(ck) : std::string();
    if (have_ck) {
      bcast_string(bytes, 0);
      if (me != 0) from_bytes(bytes, ck);
    }
  }
  run.resumed = have_ck;
  if (have_ck && !d.quiet && me == 0)
    std::fprintf(stderr, "isocheck: resuming from checkpoint %s (stage %d, %zu pieces done)\n",
                 checkpoint_path(d.checkpoint_dir).c_str(), ck.stage, ck.results.size());
  auto save = [&](int32_t stage) {
    if (d.checkpoint_dir.empty() || me != 0) return;
    ck.stage = std::max(ck.stage, stage);
    write_checkpoint(d.checkpoint_dir, header, ck);
  };

  // ---- read
  g_stage = ("read");
  History h;
  collective([&] {
    if (f == Format::unknown) f = sniff_format(file);
  });
  // With key shards on HDF5 every rank keeps only its own range (and rank 0
  // the whole history, for the report) until key shards refuse the history.
  History mine;
  bool ranges = false, scattered = false, use_key_shards = d.key_shards;
  if (f == Format::hdf5) {
    collective([&] {
      uint64_t n = hdf5_txn_count(file);
      mine = read_hdf5_range(file, n * me / P, n * (me + 1) / P);
    });
    ranges = use_key_shards && P > 1;  // one rank holds everything anyway
    if (ranges) {
      collective([&] {
        if (me == 0) h = load_history(file, f, &run.import);
      });
    } else {
      collective([&] {
        h = allgather_ranges(std::move(mine));
      });
    }
  } else {
    collective([&] {
      if (me == 0) h = load_history(file, f, &run.import);
    });
    // Key shards: the history read on rank 0 is scattered in transaction
    // ranges, as if each rank had read its own (lists are exchanged only
    // replicated: broadcast them).
    int lists = 0;
    if (me == 0)
      for (OpKind k : h.op_kind) lists |= k == OpKind::append || k == OpKind::read_list;
    MPI_Bcast(&lists, 1, MPI_INT, 0, MPI_COMM_WORLD);
    scattered = use_key_shards && P > 1 && !lists;
    if (scattered) {
      collective([&] { mine = scatter_ranges(h, 0); });
      ranges = true;
    } else {
      bcast_history(h, 0);
    }
  }
  // Every rank holds the whole history from here on (except with per-rank
  // key shards, until they refuse): within --history-budget or exit 3.
  auto check_history_budget = [&] {
    collective([&] {
      if (d.history_budget && h.resident_bytes() > d.history_budget)
        throw ResourceError("every rank holds the whole history (" + std::to_string(h.resident_bytes() >> 20) +
                            " MiB) and --history-budget is " + std::to_string(d.history_budget >> 20) +
                            " MiB; raise --history-budget or run fewer ranks per node");
    });
  };
  if (!ranges) check_history_budget();
  if (!have_ck) save(stage_read);
  end_stage("read");

  KeyShardOutcome ks;  // when key shards ran: their outcome
  auto write_times = [&](size_t components, uint32_t pieces) {
    if (d.stage_times.empty()) return;
    long rss = peak_rss_kib();
    std::vector<long> all(P);
    MPI_Gather(&rss, 1, MPI_LONG, all.data(), 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me != 0) return;
    std::ofstream out(d.stage_times);
    out << "{\"ranks\":" << P << ",\"txns\":" << h.txn_count() << ",\"ops\":" << h.op_count()
        << ",\"components\":" << components << ",\"pieces\":" << pieces
        << ",\"key_shards\":" << (run.key_sharded ? "true" : "false");
    if (run.key_sharded)  // the distributed acyclicity test (dist_acyclic.h)
      out << ",\"peel_supersteps\":" << ks.supersteps << ",\"cross_edges\":" << ks.cross_edges
          << ",\"gathered\":" << (ks.gathered ? "true" : "false");
    out << ",\"stages\":{";
    for (size_t i = 0; i < times.size(); ++i) out << (i ? "," : "") << "\"" << times[i].first << "\":" << times[i].second;
    out << "},\"total_s\":" << total.seconds() << ",\"peak_rss_kib\":[";
    for (int r = 0; r < P; ++r) out << (r ? "," : "") << all[r];
    out << "]}\n";
  };
  // Key shards (mpi/key_shards.h): the whole history decided on key shards,
  // from the replicated history or (`ranges`) from the per-rank reads. True
  // when they decided; refused: a note says why (`note`), the caller goes on.
  auto run_key_shards = [&](bool from_ranges, bool note) -> bool {
    g_stage = "key shards";
    KeyShardOptions ko;
    ko.history_budget = d.history_budget;
    ko.end_stage = [&](const char* name) { end_stage(name); };
    ko.stop = [&] {
      // Test hook (tests/dist/key_shards_preempt.sh): hold after the shard
      // stage until a signal arrives, so a test can stop the job there.
      static bool held = false;
      if (!held) held = true, test_hold("ISOCHECK_TEST_HOLD_AFTER_SHARD");
      int stop = g_terminate ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      return stop != 0;
    };
    collective([&] {
      ks = from_ranges ? check_key_sharded_ranges(mine, me == 0 ? &h : nullptr, opt, ko) : check_key_sharded(h, opt, ko);
    });
    if (ks.interrupted) {
      if (me == 0 && !d.quiet)
        std::fprintf(stderr, "isocheck: stopped by a signal during key shards; %s; run the same command again to rerun them\n",
                     d.checkpoint_dir.empty() ? "no --checkpoint-dir" : ("checkpoint " + checkpoint_path(d.checkpoint_dir) + " (read stage) kept").c_str());
      run.key_sharded = true;
      run.interrupted = true;
      run.exit_code = kExitInterrupted;
      return true;
    }
    if (ks.refused) {
      if (note && me == 0 && !d.quiet)
        std::fprintf(stderr, "isocheck: key shards not used: %s; checking the usual way\n", ks.why.c_str());
      return false;
    }
    run.key_sharded = true;
    int code = me == 0 ? exit_code(ks.r) : 0;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    run.exit_code = code;
    if (me == 0) run.r = std::move(ks.r);
    write_times(1, 1);
    if (me == 0) run.h = std::move(h);
    return true;
  };

  if (ranges) {
    // Key shards from the per-rank reads: operations exchanged by key. Lists
    // are refused there but can run on the replicated history (no note yet).
    if (run_key_shards(true, false)) return run;
    const bool lists = ks.why.rfind("list operations", 0) == 0;
    if (!lists && me == 0 && !d.quiet)
      std::fprintf(stderr, "isocheck: key shards not used: %s; checking the usual way\n", ks.why.c_str());
    if (!lists) use_key_shards = false;
    // Every rank takes the whole history, as without key shards.
    if (scattered) {
      mine = History();
      bcast_history(h, 0);
    } else {
      collective([&] { h = allgather_ranges(std::move(mine)); });
    }
    check_history_budget();
  }
  if (use_key_shards && run_key_shards(false, true)) return run;

  // ---- partition
  g_stage = ("partition");
  std::vector<Level> split;
  bool wants_sser = false;
  for (Level l : opt.levels) (l == Level::sser ? wants_sser = true : (split.push_back(l), false));
  Partition part;
  if (have_ck && ck.has_partition) {
    part = ck.partition.to();
  } else {
    collective([&] { part = sharded_partition(h); });
    ck.partition = PartitionMsg::from(part);
    ck.has_partition = true;
    save(stage_partition);
  }
  end_stage("partition");
  std::vector<uint8_t> included = included_transactions(h);
  SessionTxns index = session_txns(h);

  // Test hook (tests/cli/dist_checkpoint.sh): hold after the partition
  // checkpoint until a signal arrives, so that a test can kill the job at a
  // known point without sleeping.
  test_hold("ISOCHECK_TEST_HOLD_AFTER_PARTITION");

  // ---- solve
  g_stage = ("solve");
  Job job{h, part, included, index, opt, wants_sser, split, part.comp_sessions.size() <= 1};
  Board board{job, d.all_violations, {}, 0};
  for (auto& r : ck.results) board.done[r.piece] = r;
  int stop_all = 0;  // 1: a signal arrived somewhere
  if (me == 0) {
    std::mutex mu;
    Timer since_save;
    auto record = [&](PieceResult&& r) {  // under mu
      ck.results.push_back(r);
      board.done[r.piece] = std::move(r);
      if (!d.checkpoint_dir.empty() && since_save.seconds() > 2.0) save(stage_solve), since_save.reset();
    };
    std::atomic<bool> term_seen{false};
    // Local worker: computes pieces, never calls MPI.
    std::thread local([&] {
      while (true) {
        int i;
        {
          std::lock_guard<std::mutex> g(mu);
          if (g_terminate || term_seen) break;
          i = board.take();
        }
        if (i < 0) break;
        PieceResult r = run_piece(job, static_cast<uint32_t>(i));
        std::lock_guard<std::mutex> g(mu);
        record(std::move(r));
      }
    });
    int active = P - 1;
    while (active > 0) {
      MPI_Status st = wait_probe(MPI_ANY_SOURCE, kTagRequest);
      Request req;
      from_bytes(recv_string(st), req);
      int assign;
      {
        std::lock_guard<std::mutex> g(mu);
        if (req.terminating || g_terminate) term_seen = true;
        if (req.has_result) record(std::move(req.result));
        assign = term_seen ? -1 : board.take();
      }
      MPI_Send(&assign, 1, MPI_INT, st.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD);
      if (assign < 0) --active;
    }
    local.join();
    stop_all = (g_terminate || term_seen) ? 1 : 0;
  } else {
    Request req;
    while (true) {
      req.terminating = g_terminate;
      send_string(to_bytes(req), 0, kTagRequest);
      int assign;
      wait_probe(0, kTagAssign);
      MPI_Recv(&assign, 1, MPI_INT, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (assign < 0) break;
      req.result = run_piece(job, static_cast<uint32_t>(assign));
      req.has_result = true;
    }
  }
  MPI_Bcast(&stop_all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (stop_all) {
    collective([&] { save(stage_solve); });
    if (me == 0 && !d.quiet)
      std::fprintf(stderr, "isocheck: stopped by a signal; checkpoint %s written (%zu of %u pieces done); run the same command again to resume\n",
                   d.checkpoint_dir.empty() ? "(none: no --checkpoint-dir)" : checkpoint_path(d.checkpoint_dir).c_str(),
                   ck.results.size(), job.pieces());
    run.interrupted = true;
    run.exit_code = kExitInterrupted;
    return run;
  }
  end_stage("solve");

  // ---- merge and report
  g_stage = ("report");
  int code = 0;
  collective([&] {
    if (me != 0) return;
    uint32_t cutoff = board.cutoff();
    for (auto& [i, r] : board.done)
      if (r.error_code && static_cast<uint32_t>(i) < cutoff) {
        if (r.error_code == 2) throw InputError(file, r.error);
        throw ResourceError(r.error);
      }
    run.r = merge(job, board.done, cutoff, h, included);
    ck.stage = stage_done;
    save(stage_done);
    code = exit_code(run.r);
  });
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  run.exit_code = code;
  end_stage("merge");
  write_times(part.comp_sessions.size(), job.pieces());
  if (me == 0) run.h = std::move(h);
  return run;
}

}  // namespace isocheck::dist
