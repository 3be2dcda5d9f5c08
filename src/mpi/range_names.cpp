#include "mpi/range_names.h"

#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "core/flat_hash.h"
#include "mpi/collectives.h"
#include "mpi/exchange.h"

namespace isocheck::dist {
namespace {

// A position in the file: the rank (ranges are in file order), then the
// operation of its range. Ranges hold far fewer than 2^40 operations.
constexpr int kRankShift = 40;
constexpr uint64_t kOpMask = (uint64_t{1} << kRankShift) - 1;
constexpr uint64_t kMissing = UINT64_MAX;

// A name as the tables tell them apart: an integer's digits or a string's
// text, and which (SymbolTable keeps 5 and "5" apart the same way). Its
// hash is computed once, where the name is read, and travels with it.
struct Name {
  uint64_t hash;
  bool is_int;
  std::string_view text;
};
uint64_t name_hash(bool is_int, std::string_view text) {
  return mix64(std::hash<std::string_view>{}(text) + (is_int ? 1 : 0));
}
// (The high half picks the owner; the tables probe from a mix of the whole.)
int owner_of(uint64_t hash) { return static_cast<int>((hash >> 32) % static_cast<uint64_t>(size())); }

// The symbol operation o of `c` has in table t (0 keys, 1 values); false
// for a null read and for a list read (its values are not in op_value).
bool op_symbol(const History& c, int t, OpIdx o, Sym& s) {
  if (t == 0) return s = c.op_key[o], true;
  if (c.op_kind[o] == OpKind::read_list || c.op_value[o] == kNullValue) return false;
  return s = c.op_value[o], true;
}

// The distinct names of table t in slice c, in order of first appearance:
// the name, its first operation, the slice's symbol for it. The texts point
// into the slice's table, or into `digits` (integer mode), which must
// outlive them.
struct SliceName {
  Name name;
  uint64_t op;
  Sym sym;
};
std::vector<SliceName> slice_names(const History& c, int t, std::string& digits) {
  const SymbolTable& tab = t == 0 ? c.keys : c.values;
  std::vector<SliceName> out;
  Sym s;
  if (tab.named()) {
    std::vector<uint8_t> seen(tab.size(), 0);
    for (OpIdx o = 0; o < c.op_count(); ++o) {
      if (!op_symbol(c, t, o, s) || std::exchange(seen[s], uint8_t{1})) continue;
      const bool is_int = tab.is_int(s);
      out.push_back({{name_hash(is_int, tab.name(s)), is_int, tab.name(s)}, o, s});
    }
    return out;
  }
  // Integer mode: the integers' digits, written once every name is known
  // (views into `digits` stay valid once it stops growing).
  FlatMap64 seen;
  std::vector<std::pair<uint64_t, uint64_t>> at;  // per name: digits' offset, length
  for (OpIdx o = 0; o < c.op_count(); ++o) {
    bool fresh;
    if (!op_symbol(c, t, o, s)) continue;
    seen.get_or_insert(s, 0, fresh);
    if (!fresh) continue;
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, SymbolTable::as_int(s)).ptr;
    at.push_back({digits.size(), static_cast<uint64_t>(end - buf)});
    digits.append(buf, end);
    out.push_back({{0, true, {}}, o, s});
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].name.text = std::string_view(digits.data() + at[i].first, at[i].second);
    out[i].name.hash = name_hash(true, out[i].name.text);
  }
  return out;
}

// Records of (a number, a name) packed into bytes for exchange<char>.
void put(std::vector<char>& b, uint64_t a, const Name& n) {
  const uint32_t len = static_cast<uint32_t>(n.text.size());
  const uint8_t is_int = n.is_int ? 1 : 0;
  const size_t at = b.size();
  b.resize(at + 8 + 8 + 4 + 1 + len);
  char* w = b.data() + at;
  std::memcpy(w, &a, 8), std::memcpy(w + 8, &n.hash, 8), std::memcpy(w + 16, &len, 4), std::memcpy(w + 20, &is_int, 1);
  std::memcpy(w + 21, n.text.data(), len);
}
struct Cursor {
  const char* p;
  const char* end;
  bool done() const { return p >= end; }
  std::pair<uint64_t, Name> next() {
    uint64_t a;
    Name n;
    uint32_t len;
    uint8_t is_int;
    std::memcpy(&a, p, 8), std::memcpy(&n.hash, p + 8, 8), std::memcpy(&len, p + 16, 4), std::memcpy(&is_int, p + 20, 1);
    n.is_int = is_int != 0, n.text = std::string_view(p + 21, len);
    p += 21 + len;
    return {a, n};
  }
};
// Source s's records of what exchange() returned (`from`: where each begins).
Cursor records_of(const std::vector<char>& in, const std::vector<uint64_t>& from, int s) {
  return {in.data() + from[s], in.data() + from[s + 1]};
}
// The name as a report's table keeps it, behind a byte telling which.
std::string tagged(const Name& n) { return (n.is_int ? "i" : "s") + std::string(n.text); }

}  // namespace

uint64_t& RangeNames::NameTable::get(uint64_t h, bool is_int, std::string_view text, uint64_t init, bool& fresh) {
  if ((count_ + 1) * 3 > slots_.size() * 2) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t m = slots_.size() - 1;
    for (const Slot& x : old) {
      if (!x.used) continue;
      size_t i = mix64(x.hash) & m;
      while (slots_[i].used) i = (i + 1) & m;
      slots_[i] = x;
    }
  }
  const size_t m = slots_.size() - 1;
  size_t i = mix64(h) & m;
  for (; slots_[i].used; i = (i + 1) & m) {
    const Slot& x = slots_[i];
    if (x.hash == h && x.len == text.size() && (x.is_int != 0) == is_int &&
        std::memcmp(arena_.data() + x.off, text.data(), text.size()) == 0) {
      fresh = false;
      return slots_[i].value;
    }
  }
  Slot& x = slots_[i];
  x.hash = h, x.value = init, x.off = arena_.size(), x.len = static_cast<uint32_t>(text.size());
  x.used = 1, x.is_int = is_int ? 1 : 0;
  arena_.append(text);
  ++count_;
  fresh = true;
  return x.value;
}

const uint64_t* RangeNames::NameTable::find(uint64_t h, bool is_int, std::string_view text) const {
  const size_t m = slots_.size() - 1;
  for (size_t i = mix64(h) & m; slots_[i].used; i = (i + 1) & m) {
    const Slot& x = slots_[i];
    if (x.hash == h && x.len == text.size() && (x.is_int != 0) == is_int &&
        std::memcmp(arena_.data() + x.off, text.data(), text.size()) == 0)
      return &x.value;
  }
  return nullptr;
}

int RangeNames::number(uint64_t count, const std::function<History(uint64_t, uint64_t)>& read, int tables) {
  const int P = size(), me = rank();
  for (Table& t : table_) t = Table();
  tables_ = 0;
  // The slices of check_key_sharded_read's rounds: as large, read as often.
  constexpr uint64_t kSlices = 32;
  const uint64_t step = std::max<uint64_t>(1, (count + kSlices - 1) / kSlices);
  const uint64_t here = static_cast<uint64_t>(me) << kRankShift;
  std::exception_ptr error;
  int seen = 0, lists = 0;
  uint64_t base = 0;  // operations of the range before the slice
  for (uint64_t k = 0; k < kSlices; ++k) {
    const uint64_t lo = std::min(count, k * step), hi = std::min(count, lo + step);
    // Per table, per destination: (first position, name).
    std::vector<std::vector<char>> out[2] = {std::vector<std::vector<char>>(P), std::vector<std::vector<char>>(P)};
    if (lo < hi && !error) {
      try {
        History c = read(lo, hi);
        for (OpKind kind : c.op_kind) lists |= kind == OpKind::append || kind == OpKind::read_list;
        seen |= named_tables(c);
        for (int t = 0; t < 2; ++t) {
          if (!(tables & (1 << t))) continue;
          std::string digits;
          for (const SliceName& n : slice_names(c, t, digits)) {
            const uint64_t pos = here | (base + n.op);
            if (!n.name.is_int && table_[t].first_string == UINT64_MAX) table_[t].first_string = pos;
            put(out[t][owner_of(n.name.hash)], pos, n.name);
          }
        }
        base += c.op_count();
        if (base > kOpMask) throw ResourceError("more than 2^40 operations in one rank's range; run on more ranks");
      } catch (...) {
        // Out of the reading, not of the rounds (the others wait in them).
        error = std::current_exception();
        for (auto& per : out)
          for (auto& o : per) o.clear();
      }
    }
    for (int t = 0; t < 2; ++t) {
      if (!(tables & (1 << t))) continue;
      std::vector<uint64_t> from;
      const std::vector<char> in = exchange(out[t], &from);
      for (Cursor c{in.data(), in.data() + in.size()}; !c.done();) {
        const auto [pos, name] = c.next();
        bool fresh;
        uint64_t& first = table_[t].owned.get(name.hash, name.is_int, name.text, pos, fresh);
        first = std::min(first, pos);
      }
    }
  }
  collective([&] {
    if (error) std::rethrow_exception(error);
  });
  int flags[2] = {seen, lists};
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  uint64_t firsts[2] = {table_[0].first_string, table_[1].first_string};
  MPI_Allreduce(MPI_IN_PLACE, firsts, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (flags[1]) {
    for (Table& t : table_) t = Table();
    return kLists;
  }
  tables_ = tables & flags[0];
  for (int t = 0; t < 2; ++t) {
    table_[t].first_string = firsts[t];
    if (tables_ & (1 << t)) assign_symbols(table_[t]);
    else table_[t] = Table();
  }
  return flags[0];
}

// The owners tell each name's first rank; that rank numbers its first
// names in order and answers with their symbols.
void RangeNames::assign_symbols(Table& t) {
  const int P = size(), me = rank();
  std::vector<std::vector<char>> out(P);
  std::vector<std::vector<uint64_t*>> sent(P);  // the owner's values, per rank told, in the order told
  t.owned.for_each([&](bool is_int, std::string_view text, uint64_t& first) {
    const int r = static_cast<int>(first >> kRankShift);
    put(out[r], first & kOpMask, Name{0, is_int, text});
    sent[r].push_back(&first);
  });
  std::vector<uint64_t> from;
  const std::vector<char> in = exchange(out, &from);
  struct First {
    uint64_t op;
    Name name;
    int src;  // the owner that sent it
  };
  std::vector<First> firsts;
  for (int s = 0; s < P; ++s)
    for (Cursor c = records_of(in, from, s); !c.done();) {
      const auto [op, name] = c.next();
      firsts.push_back({op, name, s});
    }
  std::vector<uint32_t> order(firsts.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return firsts[a].op < firsts[b].op; });
  uint64_t n = firsts.size(), before = 0;
  MPI_Exscan(&n, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) before = 0;
  std::vector<uint64_t> sym(firsts.size());
  const uint64_t here = static_cast<uint64_t>(me) << kRankShift;
  t.held.clear();
  t.held.reserve(firsts.size());
  for (uint64_t i = 0; i < order.size(); ++i) {
    const uint64_t pos = here | firsts[order[i]].op;
    // (The first string is 0; the names before it move up one.)
    const uint64_t s = pos == t.first_string ? 0 : before + i + (pos < t.first_string ? 1 : 0);
    sym[order[i]] = s;
    t.held.emplace_back(s, tagged(firsts[order[i]].name));
  }
  std::sort(t.held.begin(), t.held.end());
  // The answers, per owner in the order it sent (firsts are in that order).
  std::vector<std::vector<uint64_t>> back(P);
  for (size_t j = 0; j < firsts.size(); ++j) back[firsts[j].src].push_back(sym[j]);
  std::vector<uint64_t> bfrom;
  const std::vector<uint64_t> got = exchange(back, &bfrom);
  for (int r = 0; r < P; ++r)
    for (size_t i = 0; i < sent[r].size(); ++i) *sent[r][i] = got[bfrom[r] + i];
}

void RangeNames::renumber(History* slice) {
  const int P = size();
  bool missing = false;
  for (int t = 0; t < 2; ++t) {
    if (!(tables_ & (1 << t))) continue;
    std::vector<SliceName> names;
    std::string digits;
    if (slice) names = slice_names(*slice, t, digits);
    std::vector<std::vector<char>> out(P);
    std::vector<std::vector<uint32_t>> sent(P);
    for (uint32_t j = 0; j < names.size(); ++j) {
      const int r = owner_of(names[j].name.hash);
      put(out[r], 0, names[j].name);
      sent[r].push_back(j);
    }
    std::vector<uint64_t> from;
    const std::vector<char> in = exchange(out, &from);
    std::vector<std::vector<uint64_t>> answer(P);
    for (int s = 0; s < P; ++s)
      for (Cursor c = records_of(in, from, s); !c.done();) {
        const Name name = c.next().second;
        const uint64_t* sym = table_[t].owned.find(name.hash, name.is_int, name.text);
        answer[s].push_back(sym ? *sym : kMissing);
      }
    std::vector<uint64_t> afrom;
    const std::vector<uint64_t> got = exchange(answer, &afrom);
    if (!slice) continue;
    SymbolTable& tab = t == 0 ? slice->keys : slice->values;
    std::vector<Sym> to(tab.named() ? tab.size() : 0, kMissing);
    FlatMap64 to_int;
    for (int r = 0; r < P; ++r)
      for (size_t i = 0; i < sent[r].size(); ++i) {
        const Sym g = got[afrom[r] + i], local = names[sent[r][i]].sym;
        missing |= g == kMissing;
        bool fresh;
        if (tab.named()) to[local] = g;
        else to_int.get_or_insert(local, g, fresh);
      }
    Sym s;
    for (OpIdx o = 0; o < slice->op_count(); ++o) {
      if (!op_symbol(*slice, t, o, s)) continue;
      (t == 0 ? slice->op_key[o] : slice->op_value[o]) = tab.named() ? to[s] : *to_int.find(s);
    }
    tab = SymbolTable();
  }
  if (missing)
    throw std::runtime_error("a name the ranks read was not numbered by their first read of the file (did the file "
                             "change while it was checked?)");
}

void RangeNames::renumber_keeping_error(std::optional<History>& slice, std::exception_ptr& error) {
  try {
    renumber(slice ? &*slice : nullptr);
  } catch (...) {
    if (!error) error = std::current_exception();
    slice.reset();
  }
}

void RangeNames::name_report(bool fill, History& h, CheckResult& r) {
  int any = rank() == 0 && fill ? 1 : 0;
  MPI_Bcast(&any, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!any) return;
  const bool root = rank() == 0;
  for (int t = 0; t < 2; ++t) {
    if (!(tables_ & (1 << t))) continue;
    std::vector<uint64_t> want;
    if (root) {
      Sym s;
      for (OpIdx o = 0; o < h.op_count(); ++o)
        if (op_symbol(h, t, o, s)) want.push_back(s);
      for (const Anomaly& a : r.anomalies) {
        const Sym x = t == 0 ? a.key : a.value;
        if (x != kNullValue) want.push_back(x);
      }
      // (The general engine's refutations name keys: the unknown orders.)
      if (t == 0)
        for (const LevelResult& lr : r.levels)
          if (lr.witness)
            for (const ConstraintRef& c : lr.witness->core) want.push_back(c.key);
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
    }
    bcast_vec(want, 0);
    std::vector<char> mine;
    const auto& held = table_[t].held;
    for (uint64_t i = 0; i < want.size(); ++i) {
      auto it = std::lower_bound(held.begin(), held.end(), want[i],
                                 [](const std::pair<Sym, std::string>& x, Sym y) { return x.first < y; });
      if (it != held.end() && it->first == want[i])
        put(mine, i, Name{0, it->second[0] == 'i', std::string_view(it->second).substr(1)});
    }
    const std::vector<char> all = gather_records(mine);
    if (!root) continue;
    std::vector<std::string> names(want.size());
    std::vector<uint8_t> is_int(want.size(), 0), found(want.size(), 0);
    for (Cursor c{all.data(), all.data() + all.size()}; !c.done();) {
      const auto [i, name] = c.next();
      is_int[i] = name.is_int ? 1 : 0, names[i] = std::string(name.text), found[i] = 1;
    }
    if (std::count(found.begin(), found.end(), 0) != 0)
      throw std::logic_error("key shards: a name the report needs is held by no rank");
    auto dense = [&](Sym s) { return static_cast<Sym>(std::lower_bound(want.begin(), want.end(), s) - want.begin()); };
    Sym s;
    for (OpIdx o = 0; o < h.op_count(); ++o)
      if (op_symbol(h, t, o, s)) (t == 0 ? h.op_key[o] : h.op_value[o]) = dense(s);
    for (Anomaly& a : r.anomalies) {
      Sym& x = t == 0 ? a.key : a.value;
      if (x != kNullValue) x = dense(x);
    }
    if (t == 0)
      for (LevelResult& lr : r.levels)
        if (lr.witness)
          for (ConstraintRef& c : lr.witness->core) c.key = dense(c.key);
    (t == 0 ? h.keys : h.values).set_named(std::move(names), std::move(is_int));
  }
}

}  // namespace isocheck::dist
