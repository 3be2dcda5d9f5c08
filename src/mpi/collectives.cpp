#include "mpi/collectives.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unordered_map>

namespace isocheck::dist {

const char* g_stage = "start";


void bcast_string(std::string& s, int root) {
  std::vector<char> v(s.begin(), s.end());
  bcast_vec(v, root);
  s.assign(v.begin(), v.end());
}

void send_string(const std::string& s, int dest, int tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

MPI_Status wait_probe(int source, int tag) {
  // Spin briefly, then sleep with a doubling pause (to 500 µs): a rank that
  // waits long costs no core, and one whose message comes soon (the work
  // queue's request and reply for each small piece) waits tens of µs, not
  // half a millisecond: a fixed 500 µs pause made a thousand small pieces
  // cost a second on two ranks.
  int flag = 0;
  MPI_Status st;
  int pause_us = 1;
  for (int spins = 0;; ++spins) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
    if (spins > 100) {
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      pause_us = std::min(pause_us * 2, 500);
    }
  }
}

std::string recv_string(MPI_Status st) {
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string s(static_cast<size_t>(count), '\0');
  MPI_Recv(s.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}

void test_hold(const char* env) {
  const char* hold = std::getenv(env);
  if (!hold || *hold != '1') return;
  if (const char* fifo = std::getenv("ISOCHECK_TEST_READY_FIFO"); fifo && rank() == 0)
    if (std::FILE* f = std::fopen(fifo, "w")) std::fputs("held\n", f), std::fclose(f);
  while (!g_terminate) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

namespace {

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

// Scans' value predicates as columns, one entry per operation that has one
// (History::op_value_predicate, sorted by operation): the operation, then
// the predicate's comparison and constants.
struct PredicateColumns {
  std::vector<uint64_t> op, cmp, a, b;
  explicit PredicateColumns(const History& h) {
    for (const auto& [o, i] : h.op_value_predicate) {
      const ValuePredicate& p = h.value_predicates[i];
      op.push_back(o), cmp.push_back(p.cmp), a.push_back(p.a), b.push_back(p.b);
    }
  }
  // Appended to h, operation op - op_base each (after h's own, which must
  // precede them): each operation its own entry.
  void into(History& h, uint64_t op_base) const {
    for (size_t i = 0; i < op.size(); ++i) {
      h.op_value_predicate.push_back({op[i] - op_base, static_cast<uint32_t>(h.value_predicates.size())});
      h.value_predicates.push_back({static_cast<ValuePredicate::Cmp>(cmp[i]), a[i], b[i]});
    }
  }
};

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
      part.scan_ops = mine.scan_ops, part.scan_absent_ops = mine.scan_absent_ops, part.delete_ops = mine.delete_ops;
      part.absent_choice_ops = mine.absent_choice_ops;
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
    bcast_runs(part.scan_ops, r);
    bcast_vec(part.scan_absent_ops, r);
    bcast_vec(part.delete_ops, r);
    bcast_vec(part.absent_choice_ops, r);
    PredicateColumns preds(r == rank() ? mine : part);  // (part: none yet)
    bcast_vec(preds.op, r), bcast_vec(preds.cmp, r), bcast_vec(preds.a, r), bcast_vec(preds.b, r);
    uint64_t op_base = all.op_kind.size(), list_base = all.list_value.size();
    for (uint64_t& o : preds.op) o += op_base;
    preds.into(all, 0);
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
    all.scan_ops.append_shifted(part.scan_ops, op_base);
    for (OpIdx o : part.scan_absent_ops) all.scan_absent_ops.push_back(op_base + o);
    for (OpIdx o : part.delete_ops) all.delete_ops.push_back(op_base + o);
    for (OpIdx o : part.absent_choice_ops) all.absent_choice_ops.push_back(op_base + o);
  }
  note_ops_held(mine.op_count() + all.op_count());
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

// An offsets column (a leading 0, then each element's end) scattered as
// scatter_column scatters its elements (`first`), each rank's part made
// relative to its own first element's start (`base`), with a leading 0.
std::vector<uint64_t> scatter_offsets(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& first,
                                      uint64_t base, int root) {
  std::vector<uint64_t> ends = scatter_column(
      rank() == root ? std::vector<uint64_t>(offsets.begin() + 1, offsets.end()) : std::vector<uint64_t>{}, first, root);
  std::vector<uint64_t> mine(1, 0);
  for (uint64_t e : ends) mine.push_back(e - base);
  return mine;
}

// Sorted operation indices (scan marks) scattered with their operations:
// rank r gets those in [op_first[r], op_first[r + 1]), relative to its first.
std::vector<OpIdx> scatter_marks(const std::vector<OpIdx>& all, const std::vector<uint64_t>& op_first, int root) {
  const int P = size();
  std::vector<uint64_t> first(P + 1);
  if (rank() == root)
    for (int r = 0; r <= P; ++r) first[r] = static_cast<uint64_t>(std::lower_bound(all.begin(), all.end(), op_first[r]) - all.begin());
  MPI_Bcast(first.data(), P + 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  std::vector<OpIdx> mine = scatter_column(all, first, root);
  for (OpIdx& o : mine) o -= op_first[rank()];
  return mine;
}

// The root's value predicates scattered with their operations (`op_first`:
// rank r's operations), rebased to each rank's first operation.
void scatter_value_predicates(const History& h, const std::vector<uint64_t>& op_first, int root, History& mine) {
  const int P = size(), me = rank();
  int any = me == root && !h.op_value_predicate.empty() ? 1 : 0;
  MPI_Bcast(&any, 1, MPI_INT, root, MPI_COMM_WORLD);
  if (!any) return;
  const PredicateColumns all(me == root ? h : History());
  std::vector<uint64_t> first(P + 1);
  if (me == root)
    for (int r = 0; r <= P; ++r)
      first[r] = static_cast<uint64_t>(std::lower_bound(all.op.begin(), all.op.end(), op_first[r]) - all.op.begin());
  MPI_Bcast(first.data(), P + 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  History none;
  PredicateColumns part(none);
  part.op = scatter_column(all.op, first, root), part.cmp = scatter_column(all.cmp, first, root);
  part.a = scatter_column(all.a, first, root), part.b = scatter_column(all.b, first, root);
  part.into(mine, op_first[me]);
}

}  // namespace

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
  bcast_runs(h.scan_ops, root);
  bcast_vec(h.scan_absent_ops, root);
  bcast_vec(h.delete_ops, root);
  bcast_vec(h.absent_choice_ops, root);
  {  // scans' value predicates
    PredicateColumns c(h);
    bcast_vec(c.op, root), bcast_vec(c.cmp, root), bcast_vec(c.a, root), bcast_vec(c.b, root);
    if (rank() != root) h.value_predicates.clear(), h.op_value_predicate.clear(), c.into(h, 0);
  }
  bcast_string(h.time_unit, root);
  bcast_symbols(h.keys, root);
  bcast_symbols(h.values, root);
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
  // Scan and delete marks: each range's are relative to its own first operation.
  uint64_t my_op_base = 0;
  for (int r = 0; r < rank(); ++r) my_op_base += cnt[4 * r + 1];
  // (scan_ops travels as its runs' bounds; rank after rank they stay sorted,
  // and from_bounds joins runs that touch across ranks.)
  std::vector<OpIdx> my_scan_runs = mine.scan_ops.bounds(), all_scan_runs;
  for (OpIdx& o : my_scan_runs) o += my_op_base;
  for (OpIdx& o : mine.scan_absent_ops) o += my_op_base;
  for (OpIdx& o : mine.delete_ops) o += my_op_base;
  for (OpIdx& o : mine.absent_choice_ops) o += my_op_base;
  ok = ok && allgather_column(my_scan_runs, all_scan_runs) &&
       allgather_column(mine.scan_absent_ops, all.scan_absent_ops) && allgather_column(mine.delete_ops, all.delete_ops) &&
       allgather_column(mine.absent_choice_ops, all.absent_choice_ops);
  all.scan_ops = OpRuns::from_bounds(all_scan_runs);
  {  // scans' value predicates, each range's rebased as its marks
    PredicateColumns my_preds(mine), all_preds(all);  // (all: none yet)
    for (uint64_t& o : my_preds.op) o += my_op_base;
    ok = ok && allgather_column(my_preds.op, all_preds.op) && allgather_column(my_preds.cmp, all_preds.cmp) &&
         allgather_column(my_preds.a, all_preds.a) && allgather_column(my_preds.b, all_preds.b);
    all_preds.into(all, 0);
  }
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
  note_ops_held(mine.op_count() + all.op_count());
  return all;
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
  mine.txn_op_offset = scatter_offsets(h.txn_op_offset, txn_first, op_first[me], root);
  mine.op_kind = scatter_column(h.op_kind, op_first, root);
  mine.op_key = scatter_column(h.op_key, op_first, root);
  mine.op_value = scatter_column(h.op_value, op_first, root);
  // Scan reads as runs, not every read listed: each run cut at the ranges'
  // bounds and sent as its first and last operation, a pair inside one range
  // (so scatter_marks splits the pairs whole), then rebuilt as runs.
  {
    std::vector<OpIdx> ends;
    if (me == root) {
      const std::vector<OpIdx>& b = h.scan_ops.bounds();
      ends.reserve(b.size());
      int r = 0;
      for (size_t i = 0; i + 1 < b.size(); i += 2)
        for (OpIdx a = b[i]; a < b[i + 1];) {
          while (op_first[r + 1] <= a) ++r;  // (a < op_first[P]: r stays below P)
          const OpIdx e = std::min<OpIdx>(b[i + 1], op_first[r + 1]);
          ends.push_back(a), ends.push_back(e - 1);
          a = e;
        }
    }
    const std::vector<OpIdx> my_ends = scatter_marks(ends, op_first, root);
    for (size_t i = 0; i + 1 < my_ends.size(); i += 2) mine.scan_ops.push_run(my_ends[i], my_ends[i + 1] + 1);
  }
  mine.scan_absent_ops = scatter_marks(h.scan_absent_ops, op_first, root);
  mine.delete_ops = scatter_marks(h.delete_ops, op_first, root);
  mine.absent_choice_ops = scatter_marks(h.absent_choice_ops, op_first, root);
  scatter_value_predicates(h, op_first, root, mine);
  if (me == root) mine.session_name = h.session_name, mine.time_unit = h.time_unit;
  bcast_vec(mine.session_name, root);
  bcast_string(mine.time_unit, root);
  note_ops_held(h.op_count() + mine.op_count());
  return mine;
}

History scatter_ranges_with_lists(const History& h, int root) {
  const int P = size(), me = rank();
  History mine = scatter_ranges(h, root);
  // List reads: each range's operations' list offsets (rebased to its first
  // list value) and its list values.
  int lists = me == root && h.op_list_offset.size() == h.op_kind.size() + 1 && !h.list_value.empty();
  MPI_Bcast(&lists, 1, MPI_INT, root, MPI_COMM_WORLD);
  if (!lists) return mine;
  uint64_t n = me == root ? h.txn_count() : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  std::vector<uint64_t> op_first(P + 1), list_first(P + 1);
  if (me == root)
    for (int r = 0; r <= P; ++r) op_first[r] = h.txn_op_offset[n * r / P], list_first[r] = h.op_list_offset[op_first[r]];
  MPI_Bcast(op_first.data(), P + 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  MPI_Bcast(list_first.data(), P + 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  mine.op_list_offset = scatter_offsets(h.op_list_offset, op_first, list_first[me], root);
  mine.list_value = scatter_column(h.list_value, list_first, root);
  return mine;
}

}  // namespace isocheck::dist
