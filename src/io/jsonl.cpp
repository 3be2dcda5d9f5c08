#include "io/jsonl.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <ostream>
#include <unordered_map>
#include <unordered_set>

#include "core/canon_hash.h"
#include "core/errors.h"
#include "core/predicates.h"
#include "io/jsonl_fast.h"
#include "io/jsonl_stream.h"

namespace isocheck {
namespace {

// Doubles an open-addressing table (at least 1024 slots), reinserting the
// used slots by their hash; a slot is free when its len is ~0 (the tables'
// kEmpty below).
template <class Slot>
void grow_slots(std::vector<Slot>& slots, size_t& mask) {
  std::vector<Slot> old = std::move(slots);
  slots.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
  mask = slots.size() - 1;
  for (const Slot& x : old)
    if (x.len != ~0u)
      for (size_t i = x.hash & mask;; i = (i + 1) & mask)
        if (slots[i].len == ~0u) {
          slots[i] = x;
          break;
        }
}

// Off only in tests, which compare the two readers line by line.
std::atomic<bool> fast_lines{true};

using simdjson::dom::element;
using simdjson::dom::element_type;

// String keys already interned into one history's key table, found without
// the table's own map: an open-addressing table of (hash, bytes, symbol), the
// bytes in one arena. A piece names most of its keys many times over (a
// read-modify-write names each twice); only a key's first mention goes
// through SymbolTable::intern_string. Symbols minted after the table went
// to named mode, so a switch never changes them.
class KeyCache {
 public:
  // The symbol of s, or ~0 when it is not cached yet.
  Sym find(std::string_view s, uint64_t h) const {
    if (slots_.empty()) return ~0ULL;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& x = slots_[i];
      if (x.len == kEmpty) return ~0ULL;
      if (x.hash == h && x.len == s.size() && std::memcmp(arena_.data() + x.off, s.data(), s.size()) == 0) return x.sym;
    }
  }
  void add(std::string_view s, uint64_t h, Sym sym) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& x = slots_[i];
      if (x.len != kEmpty) continue;
      x = {h, arena_.size(), static_cast<uint32_t>(s.size()), sym};
      arena_.append(s);
      ++count_;
      return;
    }
  }
  // Eight bytes at a time (keys are short: one or two words).
  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (s.size() * 0xC2B2AE3D27D4EB4FULL);
    const char* p = s.data();
    size_t n = s.size();
    auto mix = [&](uint64_t w) {
      h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
      h ^= h >> 32;
    };
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      mix(w ^ (uint64_t{n} << 59));
    }
    h *= 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
  }

 private:
  static constexpr uint32_t kEmpty = ~0u;
  struct Slot {
    uint64_t hash = 0;
    uint64_t off = 0;
    uint32_t len = kEmpty;
    Sym sym = 0;
  };
  void grow() { grow_slots(slots_, mask_); }
  std::vector<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
  std::string arena_;
};

// A streamed reader's string keys across its pieces: each named once, by a
// number of the reader's (KeyIds). A piece gives its keys symbols of its own,
// minted in first-mention order as intern_string would, and builds its key
// table once at its end (the table's own map is built only if someone
// interns into it later). One cache line a key: its hash, number, the piece
// it last had a symbol in and that symbol, and its bytes when they fit, so
// a key met again costs one probe.
class ReaderKeys {
 public:
  // The key's symbol in the current piece.
  uint32_t sym(std::string_view s) { return sym(s, KeyCache::hash(s)); }
  // h: KeyCache::hash(s).
  uint32_t sym(std::string_view s, uint64_t h) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& x = slots_[i];
      if (x.len == kEmpty) {
        x.hash = h;
        x.len = static_cast<uint32_t>(s.size());
        x.id = static_cast<uint32_t>(count_++);
        x.piece = 0;
        if (s.size() <= kInline) std::memcpy(x.text, s.data(), s.size());
        spans_.push_back({arena_.size(), static_cast<uint32_t>(s.size())});
        arena_.append(s);
        return in_piece(x);
      }
      if (x.hash == h && x.len == s.size() &&
          std::memcmp(s.size() <= kInline ? x.text : arena_.data() + spans_[x.id].first, s.data(), s.size()) == 0)
        return in_piece(x);
    }
  }
  // Brings the slot a key of hash h is looked for first into the cache (a
  // piece looks up keys of many lines ahead, so the misses overlap).
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  void start_piece() {
    piece_ids_.clear();
    if (++piece_ == 0) {  // (wrapped: no slot may claim the new piece)
      for (Slot& x : slots_) x.piece = 0;
      piece_ = 1;
    }
  }
  // The piece's symbol -> the reader's number.
  const std::vector<uint32_t>& piece_ids() const { return piece_ids_; }
  std::string_view text_of(uint32_t id) const { return {arena_.data() + spans_[id].first, spans_[id].second}; }

 private:
  static constexpr uint32_t kEmpty = ~0u;
  static constexpr size_t kInline = 40;
  struct alignas(64) Slot {
    uint64_t hash = 0;
    uint32_t len = kEmpty;
    uint32_t id = 0;
    uint32_t piece = 0;  // the piece it last had a symbol in (0: none)
    uint32_t sym = 0;    // that symbol
    char text[kInline];
  };
  uint32_t in_piece(Slot& x) {
    if (x.piece != piece_) {
      x.piece = piece_;
      x.sym = static_cast<uint32_t>(piece_ids_.size());
      piece_ids_.push_back(x.id);
    }
    return x.sym;
  }
  void grow() { grow_slots(slots_, mask_); }
  std::vector<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
  uint32_t piece_ = 0;
  std::vector<uint32_t> piece_ids_;
  std::string arena_;                                  // every key's bytes
  std::vector<std::pair<uint64_t, uint32_t>> spans_;  // per number: its bytes in arena_
};

struct LineReader {
  const std::string& file;
  History& h;
  size_t line = 0;
  // A piece of a file (the audit's rounds): its first line is the file's
  // header when has_header, and the lines after it are file lines
  // first_line, first_line + 1, ...
  bool has_header = false;
  uint64_t first_line = 1;
  bool header_allowed = true;
  std::unordered_set<int64_t> ids;
  std::unordered_map<int64_t, uint32_t> session_index;
  std::vector<Sym> scratch;
  KeyCache key_cache;  // string keys of h
  // A streamed piece: string keys numbered by the reader (ReaderKeys) while
  // the piece has named no integer key; h.keys is then built by finish_keys().
  ReaderKeys* reader_keys = nullptr;
  bool lazy_keys = false;
  // Pass 1 of the audit: keys are not interned; every key is symbol 0 but
  // scan_fence_key, which is 1 (the history's key table names both).
  bool scan_keys = false;
  std::string_view scan_fence_key;
  // The audit's passes over a log's (key, value) pairs: every key and value
  // is its canonical hash | 1 (core/canon_hash.h), nothing interned; both
  // tables stay in integer mode, whose symbols these are.
  bool hash_symbols = false;
  // Scans, inserts and deletes, expanded once the whole file is read
  // (core/predicates.h); a piece of a file (the audit) refuses them.
  // Flat: every scan's rows go straight into preds.rows.
  PredicateList preds;
  bool allow_preds = true;
  uint64_t key_switches = 0;  // times the key table switched to named mode (at most once)
  uint64_t value_switches = 0;  // and the value table
  jsonl_fast::Line fast_line;  // the last line parse_line read with the fast reader

  // Key or value symbols renumbered (the table switched to named mode): the
  // predicate operations read so far follow, with the rows of the scan
  // being read.
  void keys_remapped() {
    h.remap_keys();
    ++key_switches;
    for (PredicateRec& p : preds.ops) p.key = h.keys.remap(p.key), p.hi = h.keys.remap(p.hi);
    for (Sym& k : preds.set_keys) k = h.keys.remap(k);
    preds.rows.for_each([&](std::pair<Sym, Sym>& r) { r.first = h.keys.remap(r.first); });
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file + ":" + std::to_string(line), what);
  }

  int64_t need_int(element e, const char* what) const {
    int64_t v;
    if (e.type() == element_type::UINT64) fail(std::string(what) + " is too large for a 64-bit integer");
    if (e.get_int64().get(v)) fail(std::string(what) + " must be an integer");
    return v;
  }

  // A begin or end time. The smallest 64-bit integer is how a history says
  // "no time" inside isocheck (and in the HDF5 columns): as a JSONL time it
  // would silently drop the transaction's times, so it is refused.
  int64_t need_time(element e, const char* what) const {
    const int64_t v = need_int(e, what);
    if (v == kNoTime)
      fail(std::string(what) + " is -9223372036854775808, the smallest 64-bit integer, which isocheck reserves "
           "for \"no time\": give times above it, or leave \"begin\" and \"end\" out");
    return v;
  }

  // The prefix of an operation's messages, made only when one is given.
  static std::string op_at(size_t index) { return "operation " + std::to_string(index) + ": "; }

  // The piece's key table from the reader's numbers (lazy_keys): the same
  // names, in the same order, as interning each key at its first mention.
  void finish_keys() {
    if (!lazy_keys) return;
    lazy_keys = false;
    const std::vector<uint32_t>& ids = reader_keys->piece_ids();
    if (ids.empty()) return;  // no key: the table stays in integer mode, as it would
    std::vector<std::string> names;
    names.reserve(ids.size());
    for (uint32_t g : ids) names.emplace_back(reader_keys->text_of(g));
    h.keys.set_named(std::move(names), {});
  }

  // A string key's symbol (pass 1: 1 for the fence key, 0 for every other).
  Sym key_string(std::string_view name) {
    if (scan_keys) return name == scan_fence_key ? 1 : 0;
    if (hash_symbols) return canon_text_hash(name) | 1;
    return key_string(name, KeyCache::hash(name));
  }
  // hash: KeyCache::hash(name).
  Sym key_string(std::string_view name, uint64_t hash) {
    if (scan_keys) return name == scan_fence_key ? 1 : 0;
    if (hash_symbols) return canon_text_hash(name) | 1;
    if (lazy_keys) return reader_keys->sym(name, hash);
    Sym s;
    if ((s = key_cache.find(name, hash)) != ~0ULL) return s;
    s = h.keys.intern_string(name);
    if (h.keys.take_switch()) keys_remapped();
    key_cache.add(name, hash, s);
    return s;
  }

  Sym key_int(int64_t v) {
    if (scan_keys) return 0;
    if (hash_symbols) return canon_int_hash(v) | 1;
    if (lazy_keys) {
      // An integer key: the table as it stands, then the general path; the
      // piece's keys get no reader numbers.
      finish_keys();
      reader_keys->start_piece();
    }
    const Sym s = h.keys.intern_int(v);
    if (h.keys.take_switch()) keys_remapped();
    return s;
  }

  Sym key_sym(element e, size_t index) {
    switch (e.type()) {
      case element_type::STRING: return key_string(e.get_string().value_unsafe());
      case element_type::INT64: return key_int(e.get_int64().value_unsafe());
      default: fail(op_at(index) + "a key must be a string or an integer");
    }
  }

  Sym value_int(int64_t v, size_t index) {
    if (static_cast<Sym>(v) == kNullValue) fail(op_at(index) + "the value -9223372036854775808 is reserved");
    if (hash_symbols) return canon_int_hash(v) | 1;  // (odd: never kNullValue)
    return value_switched(h.values.intern_int(v));
  }
  Sym value_string(std::string_view v) {
    if (hash_symbols) return canon_text_hash(v) | 1;
    return value_switched(h.values.intern_string(v));
  }

  // `index`: the operation's, for messages; `what` the value's role.
  Sym value_sym(element e, size_t index, const char* what) {
    switch (e.type()) {
      case element_type::INT64: return value_int(e.get_int64().value_unsafe(), index);
      case element_type::STRING: return value_string(e.get_string().value_unsafe());
      case element_type::UINT64: fail(op_at(index) + what + " is too large for a 64-bit integer");
      default: fail(op_at(index) + what + " must be an integer or a string");
    }
  }

  // The value table switched to named mode while minting s: what was stored
  // follows.
  Sym value_switched(Sym s) {
    if (h.values.take_switch()) {
      h.remap_values();
      // Earlier elements of the list being read are not in list_value yet.
      for (Sym& x : scratch) x = h.values.remap(x);
      for (PredicateRec& p : preds.ops)
        if (p.kind != PredicateOp::scan) p.value = h.values.remap(p.value);
      preds.rows.for_each([&](std::pair<Sym, Sym>& r) { r.second = h.values.remap(r.second); });
      for (ValuePredicate& w : preds.wheres) {
        w.a = h.values.remap(w.a);
        if (w.cmp == ValuePredicate::between) w.b = h.values.remap(w.b);
      }
      ++value_switches;
    }
    return s;
  }

  // A field given twice would let the later one silently replace the first.
  void once(bool& seen, std::string_view field) const {
    if (seen) fail("field \"" + std::string(field) + "\" is given more than once");
    seen = true;
  }

  void header(simdjson::dom::object obj) {
    bool has_version = false, has_unit = false;
    for (auto [k, v] : obj) {
      if (k == "isocheck") {
        once(has_version, k);
        int64_t ver = need_int(v, "\"isocheck\"");
        if (ver != 1) fail("unsupported format version " + std::to_string(ver) + " (this isocheck reads version 1)");
      } else if (k == "time_unit") {
        once(has_unit, k);
        std::string_view u;
        if (v.get_string().get(u)) fail("\"time_unit\" must be a string");
        h.time_unit = std::string(u);
      } else {
        fail("unknown field \"" + std::string(k) + "\" in the header line");
      }
    }
  }

  // ["scan", lo, hi, [[k, v], ...]], ["insert", k, v], ["delete", k, v].
  void predicate_op(std::string_view kind, simdjson::dom::array a, size_t index) {
    if (!allow_preds) {
      const std::string why = op_at(index) + "\"" + std::string(kind) + "\" (range scans, inserts and deletes) is read only where the whole file is read at once (verify on one rank, info, convert) or by the audit, which expands each round with what the whole file does to its keys";
      if (scan_keys) throw JsonlStatesPredicates(file + ":" + std::to_string(line), why);
      fail(why);
    }
    PredicateRec p{PredicateOp::scan, static_cast<TxnIdx>(h.txn_count() - 1), static_cast<uint32_t>(index)};
    if (lazy_keys) {
      // A streamed piece's keys so far into its table: a scan's range is
      // checked by the keys' names, and the predicate operations name keys
      // by the table's symbols (as key_int does for an integer key).
      finish_keys();
      reader_keys->start_piece();
    }
    if (kind == "scan") {
      scan_op(a, index, p);
    } else {
      if (a.size() != 3) fail(op_at(index) + "an operation is [kind, key, value] (3 elements), this one has " + std::to_string(a.size()));
      p.kind = kind == "insert" ? PredicateOp::insert : PredicateOp::del;
      p.key = key_sym(a.at(1).value_unsafe(), index);
      element v = a.at(2).value_unsafe();
      const char* role = kind == "insert" ? "an inserted value" : "a delete's tombstone (the deleted version's name)";
      if (v.is_null() || v.type() == element_type::ARRAY) fail(op_at(index) + role + " must be an integer or a string");
      p.value = value_sym(v, index, role);
      p.key = key_sym(a.at(1).value_unsafe(), index);
    }
    preds.ops.push_back(p);
  }

  // A scan's value predicate: ["=", c], ["!=", c], ["<", c], ["<=", c],
  // [">", c], [">=", c] or ["between", lo, hi] (inclusive); constants are
  // integers or strings.
  uint32_t where_clause(element e, size_t index) {
    static const std::pair<std::string_view, ValuePredicate::Cmp> names[] = {
        {"=", ValuePredicate::eq}, {"!=", ValuePredicate::ne}, {"<", ValuePredicate::lt},
        {"<=", ValuePredicate::le}, {">", ValuePredicate::gt}, {">=", ValuePredicate::ge},
        {"between", ValuePredicate::between}};
    const std::string spelling = "a scan's value predicate is [op, value] with op one of = != < <= > >=, or [\"between\", lo, hi]";
    simdjson::dom::array w;
    std::string_view op;
    if (e.get_array().get(w) || w.size() < 2 || w.at(0).get_string().get(op)) fail(op_at(index) + spelling);
    ValuePredicate pred;
    bool known = false;
    for (const auto& [name, cmp] : names)
      if (op == name) pred.cmp = cmp, known = true;
    if (!known) fail(op_at(index) + "unknown predicate operator \"" + std::string(op) + "\": " + spelling);
    const size_t want = pred.cmp == ValuePredicate::between ? 3 : 2;
    if (w.size() != want) fail(op_at(index) + spelling);
    for (size_t i = 1; i < want; ++i) {
      const element c = w.at(i).value_unsafe();
      if (c.is_null() || c.type() == element_type::ARRAY || c.type() == element_type::OBJECT)
        fail(op_at(index) + "a predicate's constant must be an integer or a string");
      const uint64_t switches = value_switches;
      const Sym v = value_sym(c, index, "a predicate's constant");
      // The table switched to names while interning b: a follows.
      if (i == 2 && value_switches != switches) pred.a = h.values.remap(pred.a);
      (i == 1 ? pred.a : pred.b) = v;
    }
    preds.wheres.push_back(pred);
    return static_cast<uint32_t>(preds.wheres.size());
  }

  // A scan's rows go straight to the end of preds.rows; messages are made
  // only for a row that is wrong.
  // ["scan", [k1, k2, ...], rows] and with a value predicate [..., pred]:
  // the rows present among the declared keys (`WHERE k IN (...)`).
  void key_set_scan_op(simdjson::dom::array a, size_t index, PredicateRec& p) {
    if (a.size() != 3 && a.size() != 4)
      fail(op_at(index) + "a scan of a key set is [\"scan\", [key, ...], [[key, value], ...]] or, with a value predicate, [\"scan\", [key, ...], [[key, value], ...], [\"<\", value]] (3 or 4 elements), this one has " + std::to_string(a.size()));
    auto it = a.begin();
    const element set_e = *++it, rows_e = *++it;
    if (a.size() == 4) p.where = where_clause(*++it, index);
    p.key_set = true;
    p.set_begin = preds.set_keys.size();
    const simdjson::dom::array set = set_e.get_array().value_unsafe();
    for (element k : set) preds.set_keys.push_back(key_sym(k, index));
    p.set_end = preds.set_keys.size();
    const size_t nrows = scan_rows(rows_e, index, p);
    const SymbolTable& keys = h.keys;
    auto less = [&](Sym x, Sym y) {
      return keys.named() ? key_less(keys, x, y) : SymbolTable::as_int(x) < SymbolTable::as_int(y);
    };
    const auto set_b = preds.set_keys.begin() + static_cast<std::ptrdiff_t>(p.set_begin), set_e_it = preds.set_keys.end();
    std::sort(set_b, set_e_it, less);
    for (auto x = set_b; x != set_e_it; ++x)
      if (x != set_b && *x == *(x - 1)) fail(op_at(index) + "key " + keys.text(*x) + " is listed twice in the scan's key set");
    const ScanRows& out = preds.rows;
    for (size_t j = 0; j < nrows; ++j) {
      const Sym k = out[p.row_begin + j].first;
      if (!std::binary_search(set_b, set_e_it, k, less))
        fail(op_at(index) + "row " + std::to_string(j) + ": key " + keys.text(k) + " is not in the scan's key set");
      if (j > 0 && !less(out[p.row_begin + j - 1].first, k))
        fail(op_at(index) + "row " + std::to_string(j) + ": key " + keys.text(k) +
             (out[p.row_begin + j - 1].first == k ? " is returned twice" : " comes after a larger key (rows are ordered by key)"));
    }
    // A range covering the set (what readers that ask only ranges see).
    if (set_b != set_e_it) p.key = *set_b, p.hi = *(set_e_it - 1);
  }

  // A scan's rows [[k, v], ...] appended to preds.rows (row_begin/row_end);
  // returns how many.
  size_t scan_rows(element rows_e, size_t index, PredicateRec& p) {
    simdjson::dom::array rows;
    if (rows_e.get_array().get(rows)) fail(op_at(index) + "a scan's rows must be an array of [key, value] pairs");
    ScanRows& out = preds.rows;
    p.row_begin = out.size();
    size_t i = 0;
    auto row_at = [&](size_t j) { return op_at(index) + "row " + std::to_string(j) + ": "; };
    for (element r : rows) {
      simdjson::dom::array kv;
      if (r.get_array().get(kv) || kv.size() != 2) fail(row_at(i) + "a row must be [key, value]");
      auto kv_it = kv.begin();
      const element k_e = *kv_it, v = *++kv_it;
      Sym k = key_sym(k_e, index);
      if (v.is_null()) fail(row_at(i) + "a returned row has a value, not null (absent rows are not returned)");
      if (v.type() == element_type::ARRAY) fail(row_at(i) + "a row's value must be an integer or a string");
      Sym vs = value_sym(v, index, "a row's value");
      out.push_back({k, vs});
      ++i;
    }
    p.row_end = out.size();
    return i;
  }

  void scan_op(simdjson::dom::array a, size_t index, PredicateRec& p) {
    if (a.size() >= 2 && a.at(1).value_unsafe().type() == element_type::ARRAY) return key_set_scan_op(a, index, p);
    if (a.size() != 4 && a.size() != 5)
      fail(op_at(index) + "a scan is [\"scan\", lo, hi, [[key, value], ...]] or, with a value predicate, [\"scan\", lo, hi, [[key, value], ...], [\"<\", value]] (4 or 5 elements), this one has " + std::to_string(a.size()));
    auto it = a.begin();
    const element lo_e = *++it, hi_e = *++it, rows_e = *++it;
    // The predicate first: its constants are values (a switch of the value
    // table to names while reading them remaps the rows read before).
    if (a.size() == 5) p.where = where_clause(*++it, index);
    const uint64_t switches = key_switches;
    Sym lo = key_sym(lo_e, index);
    Sym hi = key_sym(hi_e, index);
    const size_t i = scan_rows(rows_e, index, p);
    ScanRows& out = preds.rows;
    // Key symbols renumbered while reading the rows: lo and hi too.
    if (key_switches != switches) lo = key_sym(lo_e, index), hi = key_sym(hi_e, index);
    const SymbolTable& keys = h.keys;
    auto less = [&](Sym x, Sym y) {
      return keys.named() ? key_less(keys, x, y) : SymbolTable::as_int(x) < SymbolTable::as_int(y);
    };
    if (less(hi, lo)) fail(op_at(index) + "the scan's lo " + keys.text(lo) + " is above its hi " + keys.text(hi));
    auto row = [&](size_t j) -> const std::pair<Sym, Sym>& { return out[p.row_begin + j]; };
    for (size_t j = 0; j < i; ++j) {
      Sym k = row(j).first;
      if (less(k, lo) || less(hi, k))
        fail(op_at(index) + "row " + std::to_string(j) + ": key " + keys.text(k) + " is outside the scanned range [" +
             keys.text(lo) + ", " + keys.text(hi) + "]");
      if (j > 0 && !less(row(j - 1).first, k))
        fail(op_at(index) + "row " + std::to_string(j) + ": key " + keys.text(k) +
             (row(j - 1).first == k ? " is returned twice" : " comes after a larger key (rows are ordered by key)"));
    }
    p.key = lo, p.hi = hi;
  }

  void op(simdjson::dom::array a, size_t index) {
    if (a.size() > 0) {
      std::string_view k0;
      if (!a.at(0).get_string().get(k0) && (k0 == "scan" || k0 == "insert" || k0 == "delete")) {
        predicate_op(k0, a, index);
        return;
      }
    }
    if (a.size() != 3) fail(op_at(index) + "an operation is [kind, key, value] (3 elements), this one has " + std::to_string(a.size()));
    std::string_view kind;
    if (a.at(0).get_string().get(kind)) fail(op_at(index) + "the operation kind must be a string");
    element key = a.at(1).value_unsafe(), val = a.at(2).value_unsafe();
    if (kind == "r") {
      Sym k = key_sym(key, index);
      if (val.is_null()) {
        h.add_op(OpKind::read, k, kNullValue);
      } else if (val.type() == element_type::ARRAY) {
        scratch.clear();
        simdjson::dom::array arr = val.get_array().value_unsafe();
        for (element x : arr) {
          if (x.is_null()) fail(op_at(index) + "a list read cannot contain null");
          scratch.push_back(value_sym(x, index, "an element of a list read"));
        }
        h.add_list_read(k, scratch);
        scratch.clear();
      } else {
        h.add_op(OpKind::read, k, value_sym(val, index, "a read value"));
      }
    } else if (kind == "w" || kind == "append") {
      Sym k = key_sym(key, index);
      if (val.is_null()) fail(op_at(index) + "cannot write null");
      if (val.type() == element_type::ARRAY) fail(op_at(index) + "a written value must be an integer or a string, not a list");
      h.add_op(kind == "w" ? OpKind::write : OpKind::append, k, value_sym(val, index, "a written value"));
    } else {
      fail(op_at(index) + "unknown operation kind \"" + std::string(kind) + "\" (expected r, w, append, scan, insert or delete)");
    }
  }

  void txn(simdjson::dom::object obj) {
    bool has_id = false, has_session = false, has_status = false, has_ops = false, has_begin = false, has_end = false;
    int64_t id = 0, session = 0, begin = kNoTime, end = kNoTime;
    TxnStatus status = TxnStatus::committed;
    simdjson::dom::array ops;
    for (auto [k, v] : obj) {
      if (k == "id") {
        once(has_id, k);
        id = need_int(v, "\"id\"");
      } else if (k == "session") {
        once(has_session, k);
        session = need_int(v, "\"session\"");
      } else if (k == "status") {
        once(has_status, k);
        std::string_view s;
        if (v.get_string().get(s)) fail("\"status\" must be a string");
        if (s == "committed") status = TxnStatus::committed;
        else if (s == "aborted") status = TxnStatus::aborted;
        else if (s == "unknown") status = TxnStatus::unknown;
        else fail("unknown status \"" + std::string(s) + "\" (expected committed, aborted or unknown)");
      } else if (k == "begin") {
        once(has_begin, k);
        if (!v.is_null()) begin = need_time(v, "\"begin\"");
      } else if (k == "end") {
        once(has_end, k);
        if (!v.is_null()) end = need_time(v, "\"end\"");
      } else if (k == "ops") {
        once(has_ops, k);
        if (v.get_array().get(ops)) fail("\"ops\" must be an array");
      } else {
        fail("unknown field \"" + std::string(k) + "\"");
      }
    }
    if (!has_id) fail("missing field \"id\"");
    if (!has_session) fail("missing field \"session\"");
    if (!has_status) fail("missing field \"status\"");
    if (!has_ops) fail("missing field \"ops\"");
    if ((begin == kNoTime) != (end == kNoTime)) fail("\"begin\" and \"end\" must be given together");
    if (begin != kNoTime && begin > end) fail("\"begin\" (" + std::to_string(begin) + ") is after \"end\" (" + std::to_string(end) + ")");
    if (!ids.insert(id).second) fail("duplicate transaction id " + std::to_string(id));
    if (session < 0 || session > UINT32_MAX) fail("\"session\" must be between 0 and 4294967295");
    auto [it, fresh] = session_index.try_emplace(session, static_cast<uint32_t>(h.session_name.size()));
    if (fresh) h.session_name.push_back(session);
    h.begin_txn(id, it->second, status, begin, end);
    size_t i = 0;
    for (element o : ops) {
      simdjson::dom::array a;
      if (o.get_array().get(a)) fail("operation " + std::to_string(i) + " must be an array [kind, key, value]");
      op(a, i++);
    }
    h.end_txn();
  }

  // A line without its newline, less the blanks parse_line ignores around
  // it; false when nothing is left (a blank line).
  static bool trim(const char*& s, size_t& n) {
    while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) --n;
    while (n > 0 && (*s == ' ' || *s == '\t')) ++s, --n;
    return n > 0;
  }

  // Whether the trimmed line [s, s + n) can be read by the fast reader (a
  // transaction line of the shape io/jsonl_fast.h reads, not where a header
  // may stand) into `out`; for a streamed piece the key slots it names are
  // prefetched, and their hashes kept in `out`.
  bool fast_scan(const char* s, size_t n, jsonl_fast::Line& out) const {
    if (header_allowed || !fast_lines.load(std::memory_order_relaxed)) return false;
    if (!jsonl_fast::scan_fast_line(s, s + n, out)) return false;
    if (lazy_keys && !scan_keys)
      for (size_t i = 0; i < out.n_ops; ++i)
        if (jsonl_fast::Op& o = out.ops[i]; o.key.type == jsonl_fast::Value::string) {
          o.key_hash = KeyCache::hash(o.key.s);
          reader_keys->prefetch(o.key_hash);
        }
    return true;
  }

  // A line fast_scan read, taken as txn() takes it: the same symbols minted
  // in the same order. False, with nothing changed, for a line txn() would
  // refuse (the general parser then reads it and names the problem).
  bool fast_txn(const jsonl_fast::Line& f, uint64_t lineno) {
    if (f.has_scans) {
      // Scans the general reader would refuse, or read another way (a
      // streamed piece's keys, pass 1 of the audit): left to it.
      if (!allow_preds || lazy_keys || scan_keys) return false;
      for (size_t i = 0; i < f.n_ops; ++i)
        if (f.ops[i].scan && !jsonl_fast::scan_in_order(f, f.ops[i])) return false;
    }
    if (f.begin > f.end) return false;  // (both kNoTime when absent)
    if (f.session < 0 || f.session > UINT32_MAX) return false;
    if (!ids.insert(f.id).second) return false;
    line = lineno;
    auto [it, fresh] = session_index.try_emplace(f.session, static_cast<uint32_t>(h.session_name.size()));
    if (fresh) h.session_name.push_back(f.session);
    h.begin_txn(f.id, it->second, f.status, f.begin, f.end);
    using V = jsonl_fast::Value;
    for (size_t i = 0; i < f.n_ops; ++i) {
      const jsonl_fast::Op& o = f.ops[i];
      auto value = [&](const V& v) { return v.type == V::string ? value_string(v.s) : value_int(v.i, i); };
      if (o.scan) {
        // As scan_op reads it: lo, hi, the rows in order (keys then values),
        // lo and hi again after a switch of the key table to names.
        PredicateRec p{PredicateOp::scan, static_cast<TxnIdx>(h.txn_count() - 1), static_cast<uint32_t>(i)};
        auto key_of = [&](const V& x) { return x.type == V::string ? key_string(x.s) : key_int(x.i); };
        const uint64_t switches = key_switches;
        Sym lo = key_of(o.key);
        Sym hi = key_of(o.value);
        p.row_begin = preds.rows.size();
        // Integer rows while both tables are in integer mode are their own
        // symbols (SymbolTable::intern_int): stored without the calls. (Asked
        // per row: a string row switches a table to names mid-scan.)
        for (uint32_t r = o.rows_begin; r < o.rows_end; ++r) {
          const V& rk = f.rows[r].key;
          const V& rv = f.rows[r].value;
          const bool int_tables = !h.keys.named() && !h.values.named();
          if (int_tables && rk.type == V::integer && rv.type == V::integer && static_cast<Sym>(rv.i) != kNullValue) {
            preds.rows.push_back({static_cast<Sym>(rk.i), static_cast<Sym>(rv.i)});
            continue;
          }
          const Sym k = key_of(rk);
          preds.rows.push_back({k, value(rv)});
        }
        p.row_end = preds.rows.size();
        if (key_switches != switches) lo = key_of(o.key), hi = key_of(o.value);
        p.key = lo, p.hi = hi;
        preds.ops.push_back(p);
        continue;
      }
      const Sym k = o.key.type != V::string ? key_int(o.key.i)
                    : o.key_hash != 0           ? key_string(o.key.s, o.key_hash)
                                                : key_string(o.key.s);
      if (o.value.type == V::null) {
        h.add_op(OpKind::read, k, kNullValue);
      } else if (o.value.type == V::list) {
        scratch.clear();
        for (uint32_t j = o.value.list_begin; j < o.value.list_end; ++j) scratch.push_back(value(f.list[j]));
        h.add_list_read(k, scratch);
        scratch.clear();
      } else {
        const Sym v = value(o.value);
        h.add_op(o.kind, k, v);
      }
    }
    h.end_txn();
    return true;
  }

  // Lines of the file, in order (a streamed piece's next lines): each read
  // as parse_line reads it, the fast reader's lines scanned first, all of
  // them, so that their keys' cache misses overlap.
  struct Pending {
    const char* s;
    size_t n;
    uint64_t lineno;
    bool fast;
  };
  void parse_lines(std::vector<Pending>& lines, std::vector<jsonl_fast::Line>& scanned, simdjson::dom::parser& parser) {
    if (scanned.size() < lines.size()) scanned.resize(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      Pending& l = lines[i];
      const char* s = l.s;
      size_t n = l.n;
      l.fast = trim(s, n) && fast_scan(s, n, scanned[i]);
    }
    for (size_t i = 0; i < lines.size(); ++i)
      if (!lines[i].fast || !fast_txn(scanned[i], lines[i].lineno)) parse_line(lines[i].s, lines[i].n, lines[i].lineno, parser, false);
  }

  // One line of the file (line number `lineno`), without its newline.
  // fast: try the fast reader first.
  void parse_line(const char* s, size_t n, uint64_t lineno, simdjson::dom::parser& parser, bool fast = true) {
    line = lineno;
    if (!trim(s, n)) return;  // blank line
    if (fast && fast_scan(s, n, fast_line) && fast_txn(fast_line, lineno)) return;
    element doc;
    // The buffer is padded past its end, so parsing in place is safe.
    auto err = parser.parse(s, n, false).get(doc);
    if (err) fail(std::string("invalid JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (doc.get_object().get(obj)) fail("a line must be a JSON object (one transaction)");
    element marker;
    if (header_allowed && !obj.at_key("isocheck").get(marker)) {
      header(obj);
    } else {
      if (!obj.at_key("isocheck").get(marker)) fail("the header line {\"isocheck\":...} must be the first line");
      txn(obj);
    }
    header_allowed = false;
  }

  void parse_all(const char* data, size_t len) {
    simdjson::dom::parser parser;
    size_t pos = 0;
    uint64_t physical = 0;
    while (pos < len) {
      ++physical;
      const uint64_t lineno = has_header ? (physical == 1 ? 1 : first_line + physical - 2) : first_line + physical - 1;
      const char* nl = static_cast<const char*>(std::memchr(data + pos, '\n', len - pos));
      size_t stop = nl ? static_cast<size_t>(nl - data) : len;
      const char* s = data + pos;
      pos = stop + 1;
      parse_line(s, stop - static_cast<size_t>(s - data), lineno, parser);
    }
  }
};

}  // namespace

void set_jsonl_fast_lines(bool on) { fast_lines = on; }

namespace {
// A file read whole keeps a scan's open absences open (History::
// absent_choice_ops): the one-process checks place them; the paths that
// cannot (the ranks, the audit's rounds) refuse such histories themselves.
ExpandOptions whole_file_expansion(bool release_unused_lists = false) {
  ExpandOptions o;
  o.absent_choices = true;
  o.list_offsets = !release_unused_lists;
  return o;
}
}  // namespace

History parse_jsonl(const std::string& text, const std::string& name) {
  History h;
  simdjson::padded_string buf(text);
  LineReader r{name, h};
  r.parse_all(buf.data(), buf.size());
  if (!r.preds.ops.empty()) return expand_predicates(std::move(h), r.preds, name, whole_file_expansion());
  return h;
}

History parse_jsonl(const std::string& text, const std::string& name, bool has_header, uint64_t first_line) {
  History h;
  simdjson::padded_string buf(text);
  LineReader r{name, h};
  r.has_header = has_header;
  r.first_line = first_line;
  r.allow_preds = false;
  r.parse_all(buf.data(), buf.size());
  return h;
}

// ---------------------------------------------------------------- streaming

struct JsonlReader::Impl {
  simdjson::dom::parser parser;
  ReaderKeys keys;
  std::vector<LineReader::Pending> batch;     // a piece's next lines
  std::vector<jsonl_fast::Line> scanned;      // what the fast reader made of them
};

namespace {
// Lines a piece reads ahead: enough to overlap the key look-ups' cache misses.
constexpr uint64_t kBatchLines = 32;
}  // namespace

namespace {
std::atomic<uint64_t> key_spaces{0};
}

JsonlReader::JsonlReader(const std::string& path, size_t block) : path_(path), block_(std::max<size_t>(block, 64)) {
  fd_ = std::fopen(path.c_str(), "rb");
  if (!fd_) throw InputError(path, "cannot read the file");
  std::setvbuf(fd_, nullptr, _IONBF, 0);  // blocks go straight into buf_
  impl_ = std::make_unique<Impl>();
  key_space_ = ++key_spaces;
  // The header, when there is one, is read now: its time unit belongs to
  // every piece, and a reader that seeks past it still knows it. The first
  // line that is not blank is parsed as the whole-file reader would; a
  // transaction is read again by the first piece.
  History h;
  LineReader r{path_, h};
  const char* s;
  size_t n;
  while (next_line(s, n)) {
    r.parse_line(s, n, line_, impl_->parser);
    if (r.header_allowed) continue;  // blank
    if (h.txn_count() == 0) {
      time_unit_ = h.time_unit;
      start_ = {byte_, line_};
    } else {
      start_ = {line_start_byte_, line_ - 1};
    }
    break;
  }
  seek(start_.byte, start_.line);
}

JsonlReader::~JsonlReader() {
  if (fd_) std::fclose(fd_);
}

void JsonlReader::seek(uint64_t byte, uint64_t line) {
  if (fseeko(fd_, static_cast<off_t>(byte), SEEK_SET) != 0) throw InputError(path_, "cannot seek in the file");
  beg_ = end_ = 0;
  eof_ = false;
  byte_ = byte;
  line_ = line;
}

bool JsonlReader::next_line(const char*& s, size_t& n, bool refill) {
  for (;;) {
    const char* nl = beg_ < end_ ? static_cast<const char*>(std::memchr(buf_.data() + beg_, '\n', end_ - beg_)) : nullptr;
    if (nl || (eof_ && beg_ < end_)) {
      const size_t stop = nl ? static_cast<size_t>(nl - buf_.data()) : end_;
      s = buf_.data() + beg_;
      n = stop - beg_;
      line_start_byte_ = byte_;
      const size_t used = nl ? n + 1 : n;
      beg_ += used;
      byte_ += used;
      ++line_;
      return true;
    }
    if (eof_ || !refill) return false;
    // Slide what is left of the buffer to its front, grow it when one line
    // fills it, and read the next block behind it.
    const size_t left = end_ - beg_;
    if (beg_ > 0 && left > 0) std::memmove(buf_.data(), buf_.data() + beg_, left);
    beg_ = 0;
    end_ = left;
    size_t want = std::max(block_, 2 * left);
    if (buf_.size() < want + simdjson::SIMDJSON_PADDING) buf_.resize(want + simdjson::SIMDJSON_PADDING);
    const size_t room = buf_.size() - simdjson::SIMDJSON_PADDING - end_;
    const size_t got = std::fread(buf_.data() + end_, 1, room, fd_);
    if (got < room) {
      if (std::ferror(fd_)) throw InputError(path_ + ":" + std::to_string(line_ + 1), "cannot read the file");
      eof_ = true;
    }
    end_ += got;
  }
}

History JsonlReader::next(uint64_t n) { return piece(n, nullptr); }

History JsonlReader::next(uint64_t n, PredicateList& preds) { return piece(n, nullptr, &preds); }

History JsonlReader::next_scan(uint64_t n, const std::string& fence_key) { return piece(n, &fence_key); }

History JsonlReader::next_hashed(uint64_t n) { return piece(n, nullptr, nullptr, true); }

History JsonlReader::piece(uint64_t n, const std::string* fence_key, PredicateList* preds, bool hashed) {
  History h;
  h.time_unit = time_unit_;
  // Room for as many transactions and operations a transaction as the last
  // piece had (pieces are mostly alike: the columns do not regrow and copy).
  if (last_txns_ > 0) {
    const uint64_t t = std::min(n, last_txns_);
    h.reserve_more(t, t * last_ops_ / last_txns_ + 1);
  }
  LineReader r{path_, h};
  r.header_allowed = false;
  r.allow_preds = preds != nullptr;
  if (fence_key) {
    r.scan_keys = true;
    r.scan_fence_key = *fence_key;
    h.keys.set_named({"\x01(any other key)", *fence_key}, {0, 0});
  }
  key_ids_.clear();
  key_ids_valid_ = false;
  r.hash_symbols = hashed;
  if (!fence_key && !hashed) {
    impl_->keys.start_piece();
    r.reader_keys = &impl_->keys;
    r.lazy_keys = true;
  }
  // Lines in batches (at most one transaction a line, so never past n),
  // each batch from the buffer as it stands: sliding the buffer moves the
  // lines a batch points into.
  uint64_t got = 0;
  const char* s;
  size_t len;
  std::vector<LineReader::Pending>& batch = impl_->batch;
  while (got < n) {
    const size_t before = h.txn_count();
    batch.clear();
    while (batch.size() < std::min<uint64_t>(kBatchLines, n - got) && next_line(s, len, false))
      batch.push_back({s, len, line_, false});
    if (!batch.empty()) {
      r.parse_lines(batch, impl_->scanned, impl_->parser);
    } else {
      if (!next_line(s, len)) break;
      r.parse_line(s, len, line_, impl_->parser);
    }
    got += h.txn_count() - before;
  }
  if (r.lazy_keys) {
    r.finish_keys();
    key_ids_ = impl_->keys.piece_ids();
    key_ids_valid_ = true;
  }
  held_ids_ = r.ids.size();
  last_txns_ = h.txn_count(), last_ops_ = h.op_count();
  if (preds) *preds = std::move(r.preds);
  return h;
}

KeyIds JsonlReader::take_key_ids() {
  KeyIds out;
  if (!key_ids_valid_) return out;
  out.space = key_space_;
  out.ids = std::move(key_ids_);
  key_ids_.clear();
  key_ids_valid_ = false;
  return out;
}

History JsonlReader::read_all(bool release_unused_lists) {
  History h;
  h.time_unit = time_unit_;
  LineReader r{path_, h};
  r.header_allowed = false;
  const char* s;
  size_t len;
  // Room for the whole file once its first lines show how many bytes a
  // transaction and an operation take: the columns then grow once instead of
  // doubling a dozen times, each time copying and leaving the old block
  // behind (which the allocator keeps for reuse: 205 -> 248 MiB for `verify`
  // of a 10^6-transaction log before this). An estimate only: a file whose
  // later lines are denser grows as before from there.
  std::error_code size_error;
  const uint64_t file_bytes = std::filesystem::file_size(path_, size_error);
  constexpr size_t kSampleTxns = 4096;
  uint64_t read_bytes = 0;
  bool sized = size_error || file_bytes < (uint64_t{16} << 20);  // small files: not worth it
  while (next_line(s, len)) {
    r.parse_line(s, len, line_, impl_->parser);
    read_bytes += len + 1;
    if (!sized && h.txn_count() >= kSampleTxns) {
      sized = true;
      // The rest of the file in samples' worth of bytes, with 5 % to spare.
      const double rest = 1.05 * static_cast<double>(file_bytes - std::min(file_bytes, read_bytes)) /
                          static_cast<double>(read_bytes);
      h.reserve_more(static_cast<size_t>(rest * static_cast<double>(h.txn_count())),
                     static_cast<size_t>(rest * static_cast<double>(h.op_count())));
    }
  }
  held_ids_ = r.ids.size();
  if (!r.preds.ops.empty())
    return expand_predicates(std::move(h), r.preds, path_, whole_file_expansion(release_unused_lists));
  return h;
}

History read_jsonl(const std::string& path, bool release_unused_lists) {
  return JsonlReader(path).read_all(release_unused_lists);
}

bool jsonl_may_hold_predicates(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;  // the reader that follows reports it
  static const std::string_view words[] = {"\"scan\"", "\"insert\"", "\"delete\""};
  constexpr size_t kBlock = 1 << 20, kKeep = 8;  // a word cut by a block edge is in the kept tail
  std::string buf(kBlock + kKeep, '\0');
  size_t kept = 0;
  bool found = false;
  while (!found) {
    const size_t got = std::fread(buf.data() + kept, 1, kBlock, f);
    if (got == 0) break;
    const std::string_view text(buf.data(), kept + got);
    // (memmem: string_view::find stops at every '"', which JSON is full of)
    for (std::string_view w : words) found |= memmem(text.data(), text.size(), w.data(), w.size()) != nullptr;
    kept = std::min(kKeep, text.size());
    std::memmove(buf.data(), buf.data() + text.size() - kept, kept);
  }
  std::fclose(f);
  return found;
}

// One writer of the line format for both whole histories and streamed chunks.
void write_jsonl(const History& h, std::ostream& os) { write_jsonl_txns(h, os, true); }

void write_jsonl(const History& h, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path, "cannot open for writing");
  write_jsonl(h, f);
  if (!f) throw InputError(path, "write failed");
}

}  // namespace isocheck
