// Explanations in words: every edge of a witness, every anomaly, the levels a
// witness rules out, and the exit code of a result.
#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "core/predicates.h"
#include "core/text_escape.h"
#include "report/shared.h"

namespace isocheck {
namespace report_detail {

// Integer keys read better with a word in front: "key 61=5", not "61=5".
// Names are escaped (core/text_escape.h): a key holding a newline cannot forge report lines.
std::string key_text(const History& h, Sym k) { return h.keys.is_int(k) ? "key " + h.keys.text(k) : printable(h.keys.text(k)); }

std::string list_text(const History& h, OpIdx o) {
  std::string s = "[";
  auto l = h.list(o);
  for (size_t i = 0; i < l.size(); ++i) s += (i ? " " : "") + value_text(h, l[i]);
  return s + "]";
}

std::string read_text(const History& h, OpIdx o) {
  if (h.op_kind[o] == OpKind::read_list) return key_text(h, h.op_key[o]) + "=" + list_text(h, o);
  std::string v = value_text(h, h.op_value[o]);
  return key_text(h, h.op_key[o]) + "=" + v + (h.op_value[o] == kNullValue ? " (the initial state)" : "");
}

// t's last write of k before operation o, or o.
static OpIdx final_write_before(const History& h, TxnIdx t, Sym k, OpIdx o) {
  for (OpIdx x = o; x-- > h.op_begin(t);)
    if (h.op_kind[x] == OpKind::write && h.op_key[x] == k) return x;
  return o;
}

// " read k=v", or for a read that stands for a range scan's observation
// (core/predicates.h) what the scan showed.
std::string observed_text(const History& h, OpIdx o) {
  if (h.is_insert_choice(o))
    return "'s insert of " + key_text(h, h.op_key[o]) + " required it absent (the initial state or a deleted version)";
  if (!h.scan_ops.contains(o)) return " read " + read_text(h, o);
  if (const ValuePredicate* p = h.value_predicate_of(o)) {
    const std::string scan = "'s range scan (" + predicate_text(h, *p) + ") did not return " + key_text(h, h.op_key[o]);
    if (h.is_absent_choice(o)) return scan + " (it saw a version that does not match: absent, deleted, or another value)";
    if (h.op_value[o] == kNullValue) return scan + " (the initial state)";
    const TxnIdx t = h.txn_of_op(o);
    const OpIdx w = final_write_before(h, t, h.op_key[o], o);
    if (w != o && h.is_delete(w)) return scan + " (it deleted it: tombstone " + value_text(h, h.op_value[o]) + ")";
    return scan + " (its own version " + read_text(h, o) + ", which does not match)";
  }
  if (h.is_absent_choice(o))
    return "'s range scan saw " + key_text(h, h.op_key[o]) + " absent (the initial state or a deleted version)";
  if (std::binary_search(h.scan_absent_ops.begin(), h.scan_absent_ops.end(), o))
    return "'s range scan saw " + key_text(h, h.op_key[o]) + " absent (" +
           (h.op_value[o] == kNullValue ? std::string("the initial state") : "deleted: " + value_text(h, h.op_value[o])) + ")";
  return "'s range scan returned the row " + read_text(h, o);
}

}  // namespace report_detail
using namespace report_detail;

std::string txn_name(const History& h, TxnIdx t) { return "T" + std::to_string(h.txn_id[t]); }

namespace {

// Did t read k = v (v the value it then overwrote)? Read-modify-write evidence.
bool read_value_before(const History& h, TxnIdx t, Sym k, Sym v, OpIdx before) {
  for (OpIdx o = h.op_begin(t); o < before; ++o)
    if (h.op_kind[o] == OpKind::read && h.op_key[o] == k && h.op_value[o] == v) return true;
  return false;
}

// The op of t that last wrote (or appended to) k, or op_end(t).
OpIdx final_write_op(const History& h, TxnIdx t, Sym k) {
  for (OpIdx o = h.op_end(t); o-- > h.op_begin(t);)
    if ((h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) && h.op_key[o] == k) return o;
  return h.op_end(t);
}

// What a ww or rw edge's position names: the op of t there (for ww the
// destination's write, for rw the source's read), its key and the key's
// text, and the final write of that key by `other` (op_end(other): none);
// nullopt when the position is past t's ops.
struct KeyedOp {
  OpIdx op;
  Sym key;
  std::string key_text;
  OpIdx other_write;
};
std::optional<KeyedOp> keyed_op(const History& h, TxnIdx t, uint32_t why, TxnIdx other) {
  const OpIdx o = h.op_begin(t) + why_pos(why);
  if (o >= h.op_end(t)) return std::nullopt;
  const Sym k = h.op_key[o];
  return KeyedOp{o, k, key_text(h, k), final_write_op(h, other, k)};
}

std::string time_text(const History& h, int64_t t) {
  return std::to_string(t) + (h.time_unit.empty() ? "" : " " + printable(h.time_unit));
}

}  // namespace

static std::string explain_edge_shown(const History& h, const EdgeList& e, size_t i);

// The open read (History::absent_choice_ops) an rw or wr edge stands for,
// or none.
static std::optional<OpIdx> absence_of_edge(const History& h, const EdgeList& e, size_t i) {
  if (h.absent_choice_ops.empty() || (e.kind[i] != EdgeKind::rw && e.kind[i] != EdgeKind::wr)) return std::nullopt;
  const TxnIdx reader = e.kind[i] == EdgeKind::rw ? e.src[i] : e.dst[i];
  const OpIdx o = h.op_begin(reader) + why_pos(e.why[i]);
  if (o < h.op_end(reader) && h.is_absent_choice(o)) return o;
  return std::nullopt;
}

bool is_absence_edge(const History& h, const EdgeList& e, size_t i) { return absence_of_edge(h, e, i).has_value(); }

const char* absence_reader_word(const History& h, const EdgeList& e, size_t i) {
  const std::optional<OpIdx> o = absence_of_edge(h, e, i);
  return o && h.is_insert_choice(*o) ? "insert" : "scan";
}

std::string explain_edge(const History& h, const EdgeList& e, size_t i) {
  std::string text = explain_edge_shown(h, e, i);
  if (why_inferred(e.why[i]) && is_absence_edge(h, e, i))
    text += std::string(" [a place the checker chose for the ") + absence_reader_word(h, e, i) +
            ", not one the history shows: its other place would "
            "close a cycle]";
  else if (why_inferred(e.why[i]))
    text += " [an order the checker inferred, not one the history shows: the other order of these writes would "
            "close a cycle]";
  return text;
}

static std::string explain_edge_shown(const History& h, const EdgeList& e, size_t i) {
  TxnIdx s = e.src[i], d = e.dst[i];
  std::string S = txn_name(h, s), D = txn_name(h, d);
  switch (e.kind[i]) {
    case EdgeKind::wr: {
      OpIdx o = h.op_begin(d) + why_pos(e.why[i]);
      if (o >= h.op_end(d)) break;
      if (h.op_kind[o] == OpKind::read_list) {
        auto l = h.list(o);
        std::string last = l.empty() ? "?" : value_text(h, l.back());
        return D + " read " + read_text(h, o) + ": its last element, " + last + ", was appended by " + S;
      }
      const OpIdx w = final_write_op(h, s, h.op_key[o]);
      const bool deleted = w != h.op_end(s) && h.is_delete(w);
      if (deleted && h.is_insert_choice(o))
        return D + " inserted " + key_text(h, h.op_key[o]) + " after " + S + "'s delete of it (tombstone " +
               value_text(h, h.op_value[w]) + ")";
      if (deleted && h.is_absent_choice(o))
        return D + "'s range scan saw " + key_text(h, h.op_key[o]) + " absent after " + S + "'s delete of it (tombstone " +
               value_text(h, h.op_value[w]) + ")";
      if (w != h.op_end(s) && h.is_absent_choice(o))
        if (const ValuePredicate* p = h.value_predicate_of(o))
          return D + "'s range scan (" + predicate_text(h, *p) + ") did not return " + key_text(h, h.op_key[o]) +
                 ": it saw " + S + "'s version " + key_text(h, h.op_key[o]) + "=" + value_text(h, h.op_value[w]) +
                 ", which does not match";
      return D + observed_text(h, o) + " from " + S + " (" + S + (deleted ? " deleted it)" : " wrote it)");
    }
    case EdgeKind::ww: {
      const auto at = keyed_op(h, d, e.why[i], s);
      if (!at) break;
      const auto& [o, k, K, so] = *at;
      if (so == h.op_end(s)) return S + " wrote " + K + " before " + D + " wrote " + K + " (version order of " + K + ")";
      if (h.op_kind[o] == OpKind::append)
        return S + " appended " + value_text(h, h.op_value[so]) + " to " + K + ", and " + D + " later appended " +
               value_text(h, h.op_value[o]) + " after it (the order of " + K + "'s list)";
      std::string sv = value_text(h, h.op_value[so]), dv = value_text(h, h.op_value[o]);
      std::string how = read_value_before(h, d, k, h.op_value[so], o)
                            ? " (" + D + " read " + K + "=" + sv + " first: read-modify-write)"
                            : h.has_times(s) && h.has_times(d) && h.txn_end[s] < h.txn_begin[d]
                                ? " (version order of " + K + "; " + S + " ended before " + D + " began)"
                                : " (version order of " + K + ")";
      // (A delete is the write of its tombstone: say it as the user stated it.)
      const std::string first = h.is_delete(so) ? S + " deleted " + K + " (tombstone " + sv + ")" : S + " wrote " + K + "=" + sv;
      const std::string then = h.is_delete(o) ? D + " later deleted it (tombstone " + dv + ")"
                                              : D + " later overwrote it with " + K + "=" + dv;
      return first + ", " + then + how;
    }
    case EdgeKind::rw: {
      const auto at = keyed_op(h, s, e.why[i], d);
      if (!at) break;
      const auto& [o, k, K, w] = *at;
      std::string later;
      if (w == h.op_end(d)) later = D + "'s write of " + K;
      else if (h.op_kind[w] == OpKind::append) later = D + "'s append of " + value_text(h, h.op_value[w]) + " to " + K;
      else if (h.is_delete(w)) later = D + "'s delete of " + K + " (tombstone " + value_text(h, h.op_value[w]) + ")";
      else later = D + "'s write " + K + "=" + value_text(h, h.op_value[w]);
      const bool phantom = !h.scan_absent_ops.empty() &&
                           std::binary_search(h.scan_absent_ops.begin(), h.scan_absent_ops.end(), o);
      const bool predicate = phantom && h.value_predicate_of(o);
      return S + observed_text(h, o) + ", but " + later + " is a later version of " + K + ": " + S +
             (predicate ? " did not see the version that made the row match (anti-dependency: a phantom)"
              : phantom ? " did not see the row it made present (anti-dependency: a phantom)"
                        : " did not see it (anti-dependency)");
    }
    case EdgeKind::so:
      return S + " precedes " + D + " in session " + std::to_string(h.session_name[h.txn_session[s]]) +
             " (process order)";
    case EdgeKind::rt:
      if (!h.has_times(s) || !h.has_times(d)) return S + " ended before " + D + " began (real-time order)";
      if (h.time_unit.empty())  // only the order of times is known (e.g. positions in an Elle history)
        return S + " ended before " + D + " began (end " + std::to_string(h.txn_end[s]) + " < begin " +
               std::to_string(h.txn_begin[d]) + " in the history's time order): real-time order";
      return S + " ended (at " + time_text(h, h.txn_end[s]) + ") before " + D + " began (at " +
             time_text(h, h.txn_begin[d]) + "): real-time order";
    case EdgeKind::aux: break;
  }
  return S + " -> " + D;
}

// t's open read of k (an open absence, or a key a scan with a value
// predicate did not return), if any.
static std::optional<OpIdx> open_read(const History& h, TxnIdx t, Sym k) {
  for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
    if (h.op_key[o] == k && h.is_absent_choice(o)) return o;
  return std::nullopt;
}

std::string explain_constraint(const History& h, const ConstraintRef& c) {
  // (This scan's predicate, not any in the history: a report made on many
  // ranks holds only the transactions it names, and words it the same.)
  const std::optional<OpIdx> read = c.absence ? open_read(h, c.first_head, c.key) : std::nullopt;
  if (read && h.value_predicate_of(*read))
    return "whether " + txn_name(h, c.first_head) + "'s range scan, which did not return " + key_text(h, c.key) +
           ", ran before " + txn_name(h, c.second_head) + " made it present (or matching its predicate) or after it was "
           "deleted (or changed not to match) again";
  if (read && h.is_insert_choice(*read))
    return "whether " + txn_name(h, c.first_head) + "'s insert of " + key_text(h, c.key) +
           ", which required it absent, ran before " + txn_name(h, c.second_head) +
           " made it present or after it was deleted again";
  if (c.absence)
    return "whether " + txn_name(h, c.first_head) + "'s range scan, which saw " + key_text(h, c.key) + " absent, ran before " +
           txn_name(h, c.second_head) + " made it present or after it was deleted again";
  return "the order of writes to " + key_text(h, c.key) + " between the chain starting at " +
         txn_name(h, c.first_head) + " and the chain starting at " + txn_name(h, c.second_head);
}

namespace {

// The first read of k in t before op `before`, or op_end(t).
OpIdx first_read(const History& h, TxnIdx t, Sym k, OpIdx before) {
  for (OpIdx o = h.op_begin(t); o < before; ++o)
    if ((h.op_kind[o] == OpKind::read || h.op_kind[o] == OpKind::read_list) && h.op_key[o] == k) return o;
  return h.op_end(t);
}

// Do the cycle's ww/rw edges rest on reads alone (see weakest_ruled_out)?
bool orders_from_reads(const History& h, const EdgeList& c) {
  std::vector<std::pair<Sym, Sym>> appends;  // (key, value) that must be seen in a list read
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.kind[i] != EdgeKind::ww && c.kind[i] != EdgeKind::rw) continue;
    TxnIdx writer = c.dst[i];
    Sym k;
    if (c.kind[i] == EdgeKind::rw) {
      OpIdx r = h.op_begin(c.src[i]) + c.why[i];
      if (r >= h.op_end(c.src[i])) return false;
      k = h.op_key[r];
      if (h.op_kind[r] == OpKind::read && h.op_value[r] == kNullValue) continue;  // the initial state is first
      if (h.op_kind[r] == OpKind::read_list && h.list(r).empty()) continue;
      OpIdx w = final_write_op(h, writer, k);
      if (w == h.op_end(writer)) return false;
      if (h.op_kind[w] == OpKind::append) { appends.push_back({k, h.op_value[w]}); continue; }
      OpIdx wr = first_read(h, writer, k, w);  // the writer read the same version first
      if (wr == h.op_end(writer) || h.op_kind[wr] != OpKind::read || h.op_value[wr] != h.op_value[r]) return false;
    } else {
      OpIdx w = h.op_begin(writer) + c.why[i];
      if (w >= h.op_end(writer)) return false;
      k = h.op_key[w];
      if (h.op_kind[w] == OpKind::append) { appends.push_back({k, h.op_value[w]}); continue; }
      OpIdx sw = final_write_op(h, c.src[i], k);
      OpIdx wr = first_read(h, writer, k, w);
      if (sw == h.op_end(c.src[i]) || wr == h.op_end(writer) || h.op_kind[wr] != OpKind::read ||
          h.op_value[wr] != h.op_value[sw])
        return false;
    }
  }
  if (appends.empty()) return true;
  std::vector<uint8_t> seen(appends.size(), 0);
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    if (h.op_kind[o] != OpKind::read_list) continue;
    for (size_t a = 0; a < appends.size(); ++a)
      if (!seen[a] && h.op_key[o] == appends[a].first)
        for (Sym v : h.list(o)) if (v == appends[a].second) { seen[a] = 1; break; }
  }
  return std::all_of(seen.begin(), seen.end(), [](uint8_t x) { return x != 0; });
}

}  // namespace

namespace {

// What one level's own witness shows. An SSER witness with unknown version
// orders may hold write orders the engine took from real time (chain pairs
// ordered by time are ww edges, not rt edges): alone it rules out SSER only.
// A weak level's witness holds commit-order edges its axiom forced, so it
// shows that level violated and no more; PC's is a dependency cycle (the split
// history's SER witness mapped back), read as SER's when no order in it is
// inferred.
bool dependency_cycle(const LevelResult& lr) {
  if (!is_weak(lr.level)) return true;
  if (lr.level != Level::pc || !lr.witness) return false;
  return !lr.witness->cycle.kind.empty() && !leans_on_inferred_order(lr.witness->cycle);
}

Model witness_evidence(const History& h, const LevelResult& lr, const CheckResult& r) {
  Model lvl = model_of(lr.level);
  if (!lr.decided || lr.holds || lr.by_cases || !dependency_cycle(lr) || !lr.witness || !lr.witness->core.empty())
    return lvl;
  if (lr.level == Level::sser && r.stats.unordered_write_pairs > 0) return lvl;
  Model m = weakest_ruled_out(lr.witness->cycle);
  if (m >= lvl) return lvl;
  if (orders_from_reads(h, lr.witness->cycle)) return m;
  return std::max(m, Model::snapshot_isolation);
}

}  // namespace

// One cycle, one claim: a cycle reported by several levels ("the same cycle as
// above") rules out whatever any of those levels' checks showed it rules out,
// so every line (and JSON's rules_out) that shows it says the same. A weak
// level's witness violates that level's own axiom (and so every stronger
// level); it is never read as ruling out a weaker one.
Model weakest_ruled_out(const History& h, const LevelResult& lr, const CheckResult& r) {
  Model m = witness_evidence(h, lr, r);
  if (!lr.witness) return m;
  for (const LevelResult& other : r.levels)
    if (&other != &lr && other.decided && !other.holds && report_detail::same_cycle(&*lr.witness, other.witness ? &*other.witness : nullptr))
      m = std::min(m, witness_evidence(h, other, r));
  // Never below a level this report shows to hold.
  for (const LevelResult& o : r.levels)
    if (is_weak(o.level) && o.decided && o.holds && model_of(o.level) >= m)
      m = static_cast<Model>(static_cast<int>(model_of(o.level)) + 1);
  return std::min(m, model_of(lr.level));
}

std::string rules_out_text(Model weakest) {
  std::string s;
  for (int m = static_cast<int>(weakest); m < kModelCount; ++m)
    s += std::string(m == static_cast<int>(weakest) ? "" : ", ") + model_short(static_cast<Model>(m));
  return s;
}

namespace {

// The values t appended to k, in order.
std::vector<Sym> appends_of(const History& h, TxnIdx t, Sym k) {
  std::vector<Sym> v;
  for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o)
    if (h.op_kind[o] == OpKind::append && h.op_key[o] == k) v.push_back(h.op_value[o]);
  return v;
}

// "1 then 2", "1, 2, 3", ... (at most 8 values named).
std::string run_text(const History& h, const std::vector<Sym>& run) {
  if (run.size() == 2) return value_text(h, run[0]) + " then " + value_text(h, run[1]);
  std::string s;
  for (size_t i = 0; i < run.size() && i < 8; ++i) s += (i ? ", " : "") + value_text(h, run[i]);
  if (run.size() > 8) s += ", ... (" + std::to_string(run.size()) + " values)";
  return s;
}

// How the list read at o breaks `run` (a writer's appends to its key, which
// every state shows whole, adjacent and in order, or not at all); "" if not.
std::string run_break_text(const History& h, OpIdx o, const std::vector<Sym>& run) {
  if (h.op_kind[o] != OpKind::read_list || run.size() < 2) return "";
  auto l = h.list(o);
  constexpr size_t npos = ~size_t{0};
  std::vector<size_t> pos(run.size(), npos);
  for (size_t j = 0; j < run.size(); ++j)
    for (size_t i = 0; i < l.size(); ++i)
      if (l[i] == run[j]) { pos[j] = i; break; }
  for (size_t j = 1; j < run.size(); ++j) {
    if (pos[j] == npos) continue;
    std::string x = value_text(h, run[j]), w = value_text(h, run[j - 1]);
    if (pos[j - 1] == npos) return x + " without " + w + " right before it";
    if (pos[j - 1] > pos[j]) return x + " before " + w;
    if (pos[j] != pos[j - 1] + 1) return value_text(h, l[pos[j - 1] + 1]) + " between " + w + " and " + x;
  }
  return "";
}

}  // namespace

std::string explain_anomaly(const History& h, const Anomaly& a) {
  std::string T = txn_name(h, a.txn), O = txn_name(h, a.other);
  OpIdx o = h.op_begin(a.txn) + a.op;
  std::string k = key_text(h, a.key), v = value_text(h, a.value);
  switch (a.kind) {
    case AnomalyKind::aborted_read:
      return T + " read " + k + "=" + v + " written by " + O + ", which " +
             (h.txn_status[a.other] == TxnStatus::aborted ? "aborted" : "did not commit");
    case AnomalyKind::intermediate_read:
      if (h.op_kind[o] == OpKind::read_list) {
        // A writer's appends cut short: the read shows a state in the middle of it.
        std::vector<Sym> run = appends_of(h, a.other, a.key);
        auto it = std::find(run.begin(), run.end(), a.value);
        if (it != run.end() && it + 1 != run.end())
          return T + " read " + read_text(h, o) + ": it holds " + O + "'s append of " + v + " but not " + O +
                 "'s next append, " + value_text(h, *(it + 1)) + ", right after it: a state in the middle of " + O +
                 ", whose appends to " + k + " (" + run_text(h, run) + ") are one atomic step";
      }
      return T + " read " + k + "=" + v + ", an intermediate value: " + O + " overwrote it later in the same transaction";
    case AnomalyKind::thin_air_read:
      return T + " read " + k + "=" + v + ", a value no transaction wrote";
    case AnomalyKind::internal_read:
      return T + " read " + (h.op_kind[o] == OpKind::read_list ? read_text(h, o) : k + "=" + value_text(h, h.op_value[o])) +
             ", which disagrees with its own writes to " + k;
    case AnomalyKind::nonrepeatable_read:
      return T + " read " + k + " twice and saw different values (the second time " +
             (h.op_kind[o] == OpKind::read_list ? list_text(h, o) : value_text(h, h.op_value[o])) + ")";
    case AnomalyKind::duplicate_write:
      return T + " wrote " + k + "=" + v + ", a value " + O + " also wrote: written values must be unique per key";
    case AnomalyKind::lost_update: {
      // Both saw the row absent in a range scan before writing it: say so
      // (the read the anomaly names is an insert's required absence).
      auto scanned_absent = [&](TxnIdx t) {
        if (h.scan_absent_ops.empty() || a.value != kNullValue) return false;
        for (OpIdx x = h.op_begin(t); x < h.op_end(t); ++x)
          if (h.op_key[x] == a.key && std::binary_search(h.scan_absent_ops.begin(), h.scan_absent_ops.end(), x)) return true;
        return false;
      };
      if (scanned_absent(a.txn) && scanned_absent(a.other))
        return T + " and " + O + " both saw " + k + " absent in a range scan (the initial state) and both wrote " + k +
               ": one update is lost (a predicate lost update)";
      return T + " and " + O + " both read " + k + "=" + v + (a.value == kNullValue ? " (the initial state)" : "") +
             " and both wrote " + k + ": one update is lost";
    }
    case AnomalyKind::duplicate_elements:
      return T + " read " + read_text(h, o) + ": it holds " + v + " more than once, but " + O + " appended " + v +
             " to " + k + " once (a list holds each appended element once)";
    case AnomalyKind::incompatible_order: {
      // Against the writer's own order: its appends are one atomic step.
      std::vector<Sym> run = appends_of(h, a.other, a.key);
      std::string how = run_break_text(h, o, run);
      if (!how.empty())
        return T + " read " + read_text(h, o) + ", but " + O + " appended " + run_text(h, run) + " to " + k +
               " in one transaction: every state of " + k + " holds all of these or none, adjacent and in that " +
               "order; this read has " + how;
    }
      return T + " read " + read_text(h, o) + ", which is not a prefix of what " + O +
             " read: the two reads disagree on the order of " + k;
  }
  return T;
}

int exit_code(const CheckResult& r) {
  bool violated = !r.anomalies.empty(), undecided = false;
  for (auto& lr : r.levels) {
    if (!lr.decided) undecided = true;
    else if (!lr.holds) violated = true;
  }
  if (violated) return 1;
  return undecided ? 3 : 0;
}

}  // namespace isocheck
