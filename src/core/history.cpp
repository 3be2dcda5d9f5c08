#include "core/history.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/enum_names.h"
#include "core/text_escape.h"

namespace isocheck {

namespace {

constexpr EnumName<TxnStatus> kTxnStatuses[] = {
    {TxnStatus::committed, "committed"}, {TxnStatus::aborted, "aborted"}, {TxnStatus::unknown, "unknown"}};
static_assert(indexed_by_value(kTxnStatuses));

// A list read is named as a read: "r".
constexpr EnumName<OpKind> kOpKinds[] = {
    {OpKind::read, "r"}, {OpKind::write, "w"}, {OpKind::append, "append"}, {OpKind::read_list, "r"}};
static_assert(indexed_by_value(kOpKinds));

}  // namespace

const char* to_string(TxnStatus s) { return name_in(kTxnStatuses, s); }

const char* to_string(OpKind k) { return name_in(kOpKinds, k); }

Sym SymbolTable::intern_int_named(int64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return intern_name(std::string_view(buf, p - buf), true);
}

Sym SymbolTable::intern_string(std::string_view s) {
  if (!named_) {
    named_ = true;
    switched_ = true;
  }
  return intern_name(s, false);
}

Sym SymbolTable::intern_name(std::string_view s, bool is_int) {
  // Integers and strings live in one table; a prefix byte keeps 5 and "5" apart.
  std::string k;
  k.reserve(s.size() + 1);
  k.push_back(is_int ? 'i' : 's');
  k.append(s);
  if (!index_complete_) build_index();
  auto [it, inserted] = index_.try_emplace(std::move(k), names_.size());
  if (inserted) {
    names_.emplace_back(s);
    is_int_.push_back(is_int ? 1 : 0);
  }
  return it->second;
}

Sym SymbolTable::remap(Sym old_int_symbol) const {
  // Only called right after a switch; interning through the table is stable.
  return const_cast<SymbolTable*>(this)->intern_int(as_int(old_int_symbol));
}

std::string SymbolTable::text(Sym s) const {
  if (!named_) return std::to_string(as_int(s));
  return names_[s];
}

void SymbolTable::set_named(std::vector<std::string> names, std::vector<uint8_t> is_int) {
  named_ = true;
  names_ = std::move(names);
  is_int_ = std::move(is_int);
  if (is_int_.size() < names_.size()) is_int_.resize(names_.size(), 0);
  index_.clear();
  index_complete_ = names_.empty();
}

void SymbolTable::build_index() {
  index_.clear();
  index_.reserve(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    std::string k;
    k.push_back(is_int_[i] ? 'i' : 's');
    k.append(names_[i]);
    index_.emplace(std::move(k), i);  // (a repeated name keeps its first symbol, as before)
  }
  index_complete_ = true;
}

void History::begin_txn(int64_t id, uint32_t session, TxnStatus st, int64_t b, int64_t e) {
  txn_id.push_back(id);
  txn_session.push_back(session);
  txn_status.push_back(st);
  txn_begin.push_back(b);
  txn_end.push_back(e);
}

void History::reserve_more(size_t txns, size_t ops) {
  // Geometric beyond the present capacity: a history appended to round after
  // round (the audit's carry) still regrows O(log) times, not every round.
  auto room = [](auto& v, size_t need) {
    if (v.capacity() < need) v.reserve(std::max(need, v.capacity() + v.capacity() / 2));
  };
  const size_t n = txn_count() + txns, m = op_count() + ops;
  room(txn_id, n);
  room(txn_session, n);
  room(txn_status, n);
  room(txn_begin, n);
  room(txn_end, n);
  room(txn_op_offset, n + 1);
  room(op_kind, m);
  room(op_key, m);
  room(op_value, m);
  room(op_list_offset, m + 1);
}

void History::add_op(OpKind k, Sym key, Sym value) {
  op_kind.push_back(k);
  op_key.push_back(key);
  op_value.push_back(value);
  op_list_offset.push_back(list_value.size());
}

void History::add_list_read(Sym key, std::span<const Sym> vals) {
  op_kind.push_back(OpKind::read_list);
  op_key.push_back(key);
  op_value.push_back(0);
  list_value.insert(list_value.end(), vals.begin(), vals.end());
  op_list_offset.push_back(list_value.size());
}

void History::release_unused_list_offsets() {
  for (OpKind k : op_kind)
    if (k == OpKind::read_list) return;
  std::vector<uint64_t>().swap(op_list_offset);
}

void History::remap_keys() {
  for (auto& k : op_key) k = keys.remap(k);
}

void History::remap_values() {
  for (size_t i = 0; i < op_value.size(); ++i)
    if (op_kind[i] != OpKind::read_list && op_value[i] != kNullValue) op_value[i] = values.remap(op_value[i]);
  for (auto& v : list_value) v = values.remap(v);
}

size_t History::resident_bytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  size_t b = bytes(txn_id) + bytes(txn_session) + bytes(txn_status) + bytes(txn_begin) +
             bytes(txn_end) + bytes(txn_op_offset) + bytes(op_kind) + bytes(op_key) +
             bytes(op_value) + bytes(op_list_offset) + bytes(list_value) + bytes(session_name);
  for (const auto& n : keys.names()) b += n.capacity() + sizeof(n);
  for (const auto& n : values.names()) b += n.capacity() + sizeof(n);
  return b;
}

std::string value_text(const History& h, Sym v) {
  if (v == kNullValue) return "null";
  if (h.values.named() && !h.values.is_int(v)) return json_quoted(h.values.text(v));  // escaped: one line
  return h.values.text(v);
}

std::vector<uint8_t> included_transactions(const History& h) {
  std::vector<uint8_t> inc(h.txn_count(), 0);
  std::vector<TxnIdx> stack;
  bool any_unknown = false;
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (h.txn_status[t] == TxnStatus::committed) inc[t] = 1, stack.push_back(t);
    any_unknown |= h.txn_status[t] == TxnStatus::unknown;
  }
  if (!any_unknown) return inc;
  // Writes (and appends) of unknown transactions, by (key, value).
  struct PairHash {
    size_t operator()(const std::pair<Sym, Sym>& p) const { return std::hash<Sym>()(p.first * 0x9e3779b97f4a7c15ULL ^ p.second); }
  };
  std::unordered_map<std::pair<Sym, Sym>, TxnIdx, PairHash> writer;
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.txn_status[t] == TxnStatus::unknown)
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
        if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) writer.emplace(std::make_pair(h.op_key[o], h.op_value[o]), t);
  auto visit = [&](Sym k, Sym v) {
    auto it = writer.find({k, v});
    if (it == writer.end()) return;
    TxnIdx w = it->second;
    if (!inc[w]) inc[w] = 1, stack.push_back(w);
  };
  while (!stack.empty()) {
    TxnIdx t = stack.back();
    stack.pop_back();
    h.for_each_read_value(t, visit);
  }
  return inc;
}

}  // namespace isocheck
