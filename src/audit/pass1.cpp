#include "audit/pass1.h"

#include <algorithm>
#include <charconv>

#include "audit/state.h"

namespace isocheck {

bool sym_int(const SymbolTable& t, Sym s, int64_t& out) {
  if (!t.named()) {
    out = SymbolTable::as_int(s);
    return true;
  }
  if (s >= t.names().size() || !t.is_int(s)) return false;
  const std::string& n = t.name(s);
  auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), out);
  return ec == std::errc() && p == n.data() + n.size();
}

bool fence_ops(const OpKind* kind, const Sym* key, const Sym* val, size_t n, TxnStatus status, Sym fk,
               const SymbolTable& values, int64_t& value, bool& well_formed) {
  well_formed = true;
  bool touches = false;
  for (size_t i = 0; i < n; ++i) touches |= key[i] == fk;
  if (!touches) return false;
  int64_t r = 0, w = 0;
  if (n != 2 || kind[0] != OpKind::read || kind[1] != OpKind::write || key[1] != fk || key[0] != fk ||
      (val[0] != kNullValue && !sym_int(values, val[0], r)) || !sym_int(values, val[1], w) || w != r + 1 ||
      status == TxnStatus::unknown) {
    well_formed = false;
    return true;
  }
  value = w;
  return status == TxnStatus::committed;
}

Pass1Scanner::Pass1Scanner(Pass1Piece& out, uint64_t round_txns, Sym fk, bool need_times, bool need_write_ends)
    : p_(out),
      R_(round_txns),
      fk_(fk),
      need_times_(need_times),
      need_write_ends_(need_write_ends),
      min_pf_(kPosInf),
      min_begin_(kPosInf),
      min_write_end_(kPosInf) {}

void Pass1Scanner::close_round() {
  p_.min_pf.push_back(min_pf_);
  p_.min_begin.push_back(min_begin_);
  if (need_write_ends_) p_.min_write_end.push_back(min_write_end_);
  p_.open_offset.push_back(p_.open_sessions.size());
  min_pf_ = min_begin_ = min_write_end_ = kPosInf;
  row_in_round_ = 0;
}

void Pass1Scanner::scan(const Hdf5Columns& cols, const SymbolTable& values, uint64_t first_row, const int64_t* ids) {
  const size_t cnt = cols.session.size();
  for (OpKind k : cols.op_kind) p_.writes += k == OpKind::write || k == OpKind::append;
  for (size_t t = 0; t < cnt; ++t) {
    const int64_t session = cols.session[t];
    if (need_times_) {
      if (cols.begin[t] == kNoTime || cols.end[t] == kNoTime) {
        if (p_.bad_time_row == kNoRow) {
          p_.bad_time_row = first_row + t;
          if (ids) p_.bad_time_id = ids[t], p_.bad_time_id_known = true;
        }
      } else {
        min_begin_ = std::min(min_begin_, cols.begin[t]);
      }
    }
    if (need_write_ends_ && cols.begin[t] != kNoTime && cols.end[t] != kNoTime && cols.status[t] != TxnStatus::aborted &&
        cols.end[t] < min_write_end_) {
      bool writes = false;
      for (uint64_t o = cols.op_offset[t]; o < cols.op_offset[t + 1] && !writes; ++o)
        writes = cols.op_kind[o] == OpKind::write || cols.op_kind[o] == OpKind::append;
      if (writes) min_write_end_ = cols.end[t];
    }
    int64_t value = 0;
    bool ok = true, fence = false;
    if (fk_ != ~0ULL) {
      uint64_t o = cols.op_offset[t];
      fence = fence_ops(cols.op_kind.data() + o, cols.op_key.data() + o, cols.op_value.data() + o,
                        cols.op_offset[t + 1] - o, cols.status[t], fk_, values, value, ok);
    }
    if (!ok && p_.bad_fence_row == kNoRow) {
      p_.bad_fence_row = first_row + t;
      if (ids) p_.bad_fence_id = ids[t], p_.bad_fence_id_known = true;
    }
    bool ins;
    uint64_t& d = index_.get_or_insert(static_cast<uint64_t>(session), name_.size(), ins);
    if (ins) {
      name_.push_back(session);
      fence_.push_back(0);
      has_fence_.push_back(0);
      opened_.push_back(0);
    }
    const size_t i = d;
    if (fence) {
      p_.any_fence = true;
      has_fence_[i] = 1;
      fence_[i] = value;
      min_pf_ = std::min(min_pf_, value);
    } else if (has_fence_[i]) {
      min_pf_ = std::min(min_pf_, fence_[i]);
    } else {
      // Its previous fence lies in an earlier piece (or nowhere): the merge decides.
      const uint64_t stamp = p_.min_pf.size() + 1;
      if (opened_[i] != stamp) {
        opened_[i] = stamp;
        p_.open_sessions.push_back(session);
      }
    }
    ++p_.txns;
    if (++row_in_round_ == R_) close_round();
  }
}

void Pass1Scanner::finish() {
  if (row_in_round_ > 0) close_round();
  for (size_t i = 0; i < name_.size(); ++i)
    if (has_fence_[i]) p_.last_fence.push_back({name_[i], fence_[i]});
}

Pass1Result merge_pass1(const std::vector<Pass1Piece>& pieces, uint64_t round_txns) {
  Pass1Result r;
  FlatMap64 last(256);  // session -> value of its last fence so far
  for (const Pass1Piece& p : pieces) {
    for (size_t i = 0; i < p.min_pf.size(); ++i) {
      int64_t v = p.min_pf[i];
      for (uint64_t j = p.open_offset[i]; j < p.open_offset[i + 1]; ++j) {
        const uint64_t* f = last.find(static_cast<uint64_t>(p.open_sessions[j]));
        v = std::min(v, f ? static_cast<int64_t>(*f) : kNegInf);
      }
      r.round_min_pf.push_back(v);
      r.round_min_begin.push_back(p.min_begin[i]);
      if (i < p.min_write_end.size()) r.round_min_write_end.push_back(p.min_write_end[i]);
    }
    for (auto& [s, v] : p.last_fence) {
      bool ins;
      last.get_or_insert(static_cast<uint64_t>(s), 0, ins) = static_cast<uint64_t>(v);
    }
    r.any_fence |= p.any_fence;
    if (r.bad_fence_row == kNoRow && p.bad_fence_row != kNoRow) {
      r.bad_fence_row = p.bad_fence_row;
      r.bad_fence_id = p.bad_fence_id;
      r.bad_fence_id_known = p.bad_fence_id_known;
    }
    if (r.bad_time_row == kNoRow && p.bad_time_row != kNoRow) {
      r.bad_time_row = p.bad_time_row;
      r.bad_time_id = p.bad_time_id;
      r.bad_time_id_known = p.bad_time_id_known;
    }
    r.txns += p.txns;
    r.writes += p.writes;
  }
  // A single scan gives up the least begin from the round of the first
  // transaction without times on (the time rule cannot apply then anyway).
  if (r.bad_time_row != kNoRow)
    for (size_t i = r.bad_time_row / round_txns; i < r.round_min_begin.size(); ++i) r.round_min_begin[i] = kNegInf;
  return r;
}

}  // namespace isocheck
