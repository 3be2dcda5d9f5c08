#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/text_escape.h"

namespace isocheck {
namespace {

// Integer keys read better with a word in front: "key 61=5", not "61=5".
// Names are escaped (util/text_escape.h): a key holding a newline cannot forge report lines.
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

void json_string(std::ostream& out, const std::string& s) { out << json_quoted(s); }

}  // namespace

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

std::string time_text(const History& h, int64_t t) {
  return std::to_string(t) + (h.time_unit.empty() ? "" : " " + printable(h.time_unit));
}

}  // namespace

static std::string explain_edge_shown(const History& h, const EdgeList& e, size_t i);

std::string explain_edge(const History& h, const EdgeList& e, size_t i) {
  std::string text = explain_edge_shown(h, e, i);
  if (why_inferred(e.why[i]))
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
      return D + " read " + read_text(h, o) + " from " + S + " (" + S + " wrote it)";
    }
    case EdgeKind::ww: {
      OpIdx o = h.op_begin(d) + why_pos(e.why[i]);
      if (o >= h.op_end(d)) break;
      Sym k = h.op_key[o];
      std::string K = key_text(h, k);
      OpIdx so = final_write_op(h, s, k);
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
      return S + " wrote " + K + "=" + sv + ", " + D + " later overwrote it with " + K + "=" + dv + how;
    }
    case EdgeKind::rw: {
      OpIdx o = h.op_begin(s) + why_pos(e.why[i]);
      if (o >= h.op_end(s)) break;
      Sym k = h.op_key[o];
      std::string K = key_text(h, k);
      OpIdx w = final_write_op(h, d, k);
      std::string later;
      if (w == h.op_end(d)) later = D + "'s write of " + K;
      else if (h.op_kind[w] == OpKind::append) later = D + "'s append of " + value_text(h, h.op_value[w]) + " to " + K;
      else later = D + "'s write " + K + "=" + value_text(h, h.op_value[w]);
      return S + " read " + read_text(h, o) + ", but " + later + " is a later version of " + K + ": " + S +
             " did not see it (anti-dependency)";
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

std::string explain_constraint(const History& h, const ConstraintRef& c) {
  return "the order of writes to " + key_text(h, c.key) + " between the chain starting at " +
         txn_name(h, c.first_head) + " and the chain starting at " + txn_name(h, c.second_head);
}

static Model model_of(Level l) {
  switch (l) {
    case Level::ser: return Model::serializable;
    case Level::si: return Model::snapshot_isolation;
    case Level::sser: return Model::strict_serializable;
  }
  return Model::strict_serializable;
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

Model weakest_ruled_out(const History& h, const LevelResult& lr, const CheckResult& r) {
  Model lvl = model_of(lr.level);
  if (!lr.witness || !lr.witness->core.empty()) return lvl;
  if (lr.level == Level::sser && r.stats.unordered_write_pairs > 0) return lvl;
  Model m = weakest_ruled_out(lr.witness->cycle);
  if (m < Model::snapshot_isolation && !orders_from_reads(h, lr.witness->cycle)) m = Model::snapshot_isolation;
  return m < lvl ? m : lvl;
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
    case AnomalyKind::lost_update:
      return T + " and " + O + " both read " + k + "=" + v + (a.value == kNullValue ? " (the initial state)" : "") +
             " and both wrote " + k + ": one update is lost";
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

namespace {

// An edge's explanation; in a general-engine refutation, ww/rw edges on a key
// of the core rest on one of the orders being refuted, and say so.
std::string witness_edge_text(const History& h, const Witness& w, size_t i) {
  std::string s = explain_edge(h, w.cycle, i);
  const EdgeList& c = w.cycle;
  if (w.core.empty() || (c.kind[i] != EdgeKind::ww && c.kind[i] != EdgeKind::rw)) return s;
  TxnIdx t = c.kind[i] == EdgeKind::ww ? c.dst[i] : c.src[i];
  OpIdx o = h.op_begin(t) + why_pos(c.why[i]);
  if (o >= h.op_end(t)) return s;
  for (const ConstraintRef& k : w.core)
    if (k.key == h.op_key[o]) return s + " [one of the unknown orders below]";
  return s;
}

}  // namespace

namespace {

// "RC (read-committed) and stronger: RA, CC, ..." for people.
std::string rules_out_line(Model weakest) {
  std::string s = rules_out_text(weakest);
  if (weakest != Model::read_committed) {
    s += " (not ";
    for (int m = 0; m < static_cast<int>(weakest); ++m) s += std::string(m ? ", " : "") + model_short(static_cast<Model>(m));
    s += "; this evidence alone does not rule them out)";
  }
  return s;
}

void json_rules_out(std::ostream& out, Model weakest) {
  out << "[";
  for (int m = static_cast<int>(weakest); m < kModelCount; ++m)
    out << (m == static_cast<int>(weakest) ? "" : ",") << '"' << model_name(static_cast<Model>(m)) << '"';
  out << "]";
}

bool same_cycle(const Witness* a, const Witness* b) {
  return a && b && a->cycle.src == b->cycle.src && a->cycle.kind == b->cycle.kind;
}

Model weakest_of_anomalies(const CheckResult& r) {
  Model w = Model::strict_serializable;
  for (auto& a : r.anomalies) w = std::min(w, weakest_ruled_out(a.kind));
  return w;
}

constexpr size_t kCoreShown = 20;

}  // namespace

void write_text(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  out << printable(ctx.file) << ": " << r.stats.txns << " transactions (" << r.stats.committed
      << " committed or observed)\n";
  // The note has one line per reason (ImportStats::describe).
  for (size_t a = 0, b; a < ctx.import_note.size(); a = b + 1) {
    b = std::min(ctx.import_note.find('\n', a), ctx.import_note.size());
    if (b > a) out << "import: " << one_line(std::string_view(ctx.import_note).substr(a, b - a)) << "\n";
  }
  if (r.stats.witness != WitnessOrder::none)
    out << "serial witness: replaying the committed transactions in " << to_string(r.stats.witness)
        << ", every read returns the latest write to its key (no dependency graph needed)\n";
  if (r.stats.constraints > 0 || r.stats.ordered_by_time > 0 || r.stats.decided_at_build > 0)
    out << "general engine: " << r.stats.unordered_write_pairs << " unordered write pairs; chain pairs: "
        << r.stats.ordered_by_time << " ordered by real time, " << r.stats.decided_at_build
        << " forced while building, " << r.stats.constraints << " constraints, " << r.stats.pruned
        << " decided by pruning, " << r.stats.to_solver << " to the SAT solver in " << r.stats.subproblems
        << " sub-problems\n";
  if (!r.anomalies.empty()) {
    out << "anomalies (none of SER, SI, SSER allows these): " << r.anomalies.size() << "\n";
    size_t shown = 0;
    for (auto& a : r.anomalies) {
      if (shown++ == 20) { out << "  ... and " << r.anomalies.size() - 20 << " more (--json lists all)\n"; break; }
      out << "  " << to_string(a.kind) << ": " << explain_anomaly(h, a) << " [rules out "
          << rules_out_text(weakest_ruled_out(a.kind)) << "]\n";
    }
    out << "  rules out: " << rules_out_line(weakest_of_anomalies(r)) << "\n";
  }
  const Witness* prev = nullptr;
  for (auto& lr : r.levels) {
    out << to_string(lr.level) << ": ";
    if (!lr.decided) { out << "UNDECIDED: " << one_line(lr.reason) << "\n"; continue; }
    if (lr.holds) { out << "holds\n"; continue; }
    if (!lr.witness) { out << "VIOLATED (" << one_line(lr.reason) << ")\n"; continue; }
    out << "VIOLATED: " << lr.witness->anomaly << "\n";
    out << "  rules out: " << rules_out_line(weakest_ruled_out(h, lr, r)) << "\n";
    if (same_cycle(prev, &*lr.witness)) {
      out << "  (the same cycle as above)\n";
      continue;
    }
    const EdgeList& c = lr.witness->cycle;
    for (size_t i = 0; i < c.size(); ++i)
      out << "  " << txn_name(h, c.src[i]) << " -" << to_string(c.kind[i]) << "-> " << txn_name(h, c.dst[i]) << ": "
          << witness_edge_text(h, *lr.witness, i) << "\n";
    const auto& core = lr.witness->core;
    if (!core.empty()) {
      out << "  unsatisfiable core: " << core.size() << " unknown write order" << (core.size() == 1 ? "" : "s")
          << (lr.witness->core_minimal ? " (minimal: dropping any one leaves an order that works)"
                                       : " (not shown to be minimal)")
          << "; every way to settle " << (core.size() == 1 ? "it" : "them")
          << " closes a cycle with the certain edges; the cycle above is one of them:\n";
      for (size_t i = 0; i < core.size() && i < kCoreShown; ++i) out << "    - " << explain_constraint(h, core[i]) << "\n";
      if (core.size() > kCoreShown) out << "    ... and " << core.size() - kCoreShown << " more (--json lists all)\n";
    }
    prev = &*lr.witness;
  }
}

void write_json(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  out << "{\"file\":";
  json_string(out, ctx.file);
  out << ",\"transactions\":" << r.stats.txns << ",\"committed\":" << r.stats.committed
      << ",\"holds\":" << (exit_code(r) == 0 ? "true" : "false") << ",\"exit_code\":" << exit_code(r);
  out << ",\"import\":";
  json_string(out, ctx.import_note);
  out << ",\"levels\":[";
  for (size_t li = 0; li < r.levels.size(); ++li) {
    auto& lr = r.levels[li];
    out << (li ? "," : "") << "{\"level\":";
    json_string(out, to_string(lr.level));
    out << ",\"decided\":" << (lr.decided ? "true" : "false") << ",\"holds\":" << (lr.decided && lr.holds ? "true" : "false");
    out << ",\"reason\":";
    json_string(out, lr.reason);
    if (lr.witness) {
      out << ",\"anomaly\":";
      json_string(out, lr.witness->anomaly);
      out << ",\"rules_out\":";
      json_rules_out(out, weakest_ruled_out(h, lr, r));
      out << ",\"cycle\":[";
      const EdgeList& c = lr.witness->cycle;
      for (size_t i = 0; i < c.size(); ++i) {
        out << (i ? "," : "") << "{\"from\":" << h.txn_id[c.src[i]] << ",\"to\":" << h.txn_id[c.dst[i]]
            << ",\"kind\":\"" << to_string(c.kind[i]) << "\",\"explanation\":";
        json_string(out, witness_edge_text(h, *lr.witness, i));
        out << "}";
      }
      out << "]";
      if (!lr.witness->core.empty()) {
        out << ",\"core_minimal\":" << (lr.witness->core_minimal ? "true" : "false") << ",\"core\":[";
        for (size_t i = 0; i < lr.witness->core.size(); ++i) {
          const ConstraintRef& k = lr.witness->core[i];
          out << (i ? "," : "") << "{\"key\":";
          json_string(out, h.keys.text(k.key));
          out << ",\"first_head\":" << h.txn_id[k.first_head] << ",\"second_head\":" << h.txn_id[k.second_head]
              << ",\"explanation\":";
          json_string(out, explain_constraint(h, k));
          out << "}";
        }
        out << "]";
      }
    }
    out << "}";
  }
  out << "],\"anomalies\":[";
  for (size_t i = 0; i < r.anomalies.size(); ++i) {
    auto& a = r.anomalies[i];
    out << (i ? "," : "") << "{\"kind\":";
    json_string(out, to_string(a.kind));
    out << ",\"txn\":" << h.txn_id[a.txn] << ",\"other\":" << h.txn_id[a.other] << ",\"key\":";
    json_string(out, h.keys.text(a.key));
    out << ",\"rules_out\":";
    json_rules_out(out, weakest_ruled_out(a.kind));
    out << ",\"explanation\":";
    json_string(out, explain_anomaly(h, a));
    out << "}";
  }
  out << "],\"stats\":{\"edges\":" << r.stats.edges << ",\"constraints\":" << r.stats.constraints
      << ",\"ordered_by_time\":" << r.stats.ordered_by_time << ",\"decided_at_build\":" << r.stats.decided_at_build << ",\"subproblems\":" << r.stats.subproblems
      << ",\"pruned\":" << r.stats.pruned << ",\"to_solver\":" << r.stats.to_solver
      << ",\"unordered_write_pairs\":" << r.stats.unordered_write_pairs << ",\"serial_witness\":";
  if (r.stats.witness == WitnessOrder::none) out << "null";
  else json_string(out, to_string(r.stats.witness));
  out << ",\"seconds\":" << ctx.seconds << "}}\n";
}

namespace {

// One colour per edge kind, shared by DOT and HTML.
const char* kind_colour(EdgeKind k) {
  switch (k) {
    case EdgeKind::ww: return "#c0392b";
    case EdgeKind::wr: return "#2471a3";
    case EdgeKind::rw: return "#d68910";
    case EdgeKind::so: return "#229954";
    case EdgeKind::rt: return "#7d3c98";
    case EdgeKind::aux: break;
  }
  return "#555555";
}

// The key an edge is about ("" for so/rt).
std::string edge_key(const History& h, const EdgeList& c, size_t i) {
  TxnIdx t;
  switch (c.kind[i]) {
    case EdgeKind::wr: case EdgeKind::ww: t = c.dst[i]; break;
    case EdgeKind::rw: t = c.src[i]; break;
    default: return "";
  }
  OpIdx o = h.op_begin(t) + why_pos(c.why[i]);
  return o < h.op_end(t) ? key_text(h, h.op_key[o]) : "";
}

}  // namespace

void write_dot(std::ostream& out, const History& h, const CheckResult& r) {
  out << "digraph witness {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"monospace\"];\n"
      << "  edge [fontname=\"sans-serif\", fontsize=10];\n";
  const LevelResult* lr = nullptr;
  for (auto& x : r.levels) if (x.witness) { lr = &x; break; }
  if (lr) {
    const Witness* w = &*lr->witness;
    out << "  labelloc=t;\n  label=";
    json_string(out, std::string(to_string(lr->level)) + " violated: " + w->anomaly + "; rules out " +
                         rules_out_text(weakest_ruled_out(h, *lr, r)));
    out << ";\n";
    const EdgeList& c = w->cycle;
    std::vector<TxnIdx> seen;
    for (size_t i = 0; i < c.size(); ++i) {
      if (std::find(seen.begin(), seen.end(), c.src[i]) != seen.end()) continue;
      seen.push_back(c.src[i]);
      std::string t = txn_name(h, c.src[i]);
      std::string lab = t + "\\nsession " + std::to_string(h.session_name[h.txn_session[c.src[i]]]);
      out << "  " << t << " [label=\"" << lab << "\"];\n";
    }
    for (size_t i = 0; i < c.size(); ++i) {
      std::string k = edge_key(h, c, i);
      std::ostringstream lab, tip;
      json_string(lab, std::string(to_string(c.kind[i])) + (k.empty() ? "" : " " + k));
      json_string(tip, explain_edge(h, c, i));
      out << "  " << txn_name(h, c.src[i]) << " -> " << txn_name(h, c.dst[i]) << " [label=" << lab.str()
          << ", tooltip=" << tip.str() << ", color=\"" << kind_colour(c.kind[i]) << "\", fontcolor=\""
          << kind_colour(c.kind[i]) << "\"" << (c.kind[i] == EdgeKind::rw ? ", style=dashed" : "") << "];\n";
    }
    for (size_t i = 0; i < c.size(); ++i) {
      out << "  // " << txn_name(h, c.src[i]) << " -" << to_string(c.kind[i]) << "-> " << txn_name(h, c.dst[i])
          << ": " << one_line(explain_edge(h, c, i)) << "\n";
    }
  } else {
    for (auto& a : r.anomalies) {
      std::ostringstream lab;
      json_string(lab, std::string(to_string(a.kind)) + ": " + explain_anomaly(h, a));
      out << "  " << txn_name(h, a.other) << " -> " << txn_name(h, a.txn) << " [label=" << lab.str() << ", color=red];\n";
    }
  }
  out << "}\n";
}

namespace {

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string op_text(const History& h, OpIdx o) {
  std::string k = key_text(h, h.op_key[o]);
  switch (h.op_kind[o]) {
    case OpKind::read: return "r " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::write: return "w " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::append: return "append " + k + " " + value_text(h, h.op_value[o]);
    case OpKind::read_list: return "r " + k + " " + list_text(h, o);
  }
  return "?";
}

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", x);
  return b;
}

// The cycle's transactions on a circle, edges as curved labelled arrows.
void svg_cycle(std::ostream& out, const History& h, const EdgeList& c) {
  std::vector<TxnIdx> nodes;
  for (size_t i = 0; i < c.size(); ++i)
    if (std::find(nodes.begin(), nodes.end(), c.src[i]) == nodes.end()) nodes.push_back(c.src[i]);
  const size_t n = nodes.size();
  const double node_r = 24, R = std::max(90.0, 34.0 * static_cast<double>(n) / 3.14159);
  const double pad = 70, W = 2 * (R + pad), cx = W / 2, cy = W / 2;
  auto pos = [&](TxnIdx t, double& x, double& y) {
    size_t i = static_cast<size_t>(std::find(nodes.begin(), nodes.end(), t) - nodes.begin());
    double a = -3.14159265358979 / 2 + 2 * 3.14159265358979 * static_cast<double>(i) / static_cast<double>(n);
    x = cx + R * std::cos(a), y = cy + R * std::sin(a);
  };
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(W)
      << "\" viewBox=\"0 0 " << num(W) << " " << num(W) << "\" role=\"img\">\n<defs>";
  for (EdgeKind k : {EdgeKind::so, EdgeKind::wr, EdgeKind::ww, EdgeKind::rt, EdgeKind::rw})
    out << "<marker id=\"ah-" << to_string(k) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
        << "markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" << kind_colour(k)
        << "\"/></marker>";
  out << "</defs>\n";
  for (size_t i = 0; i < c.size(); ++i) {
    double x1, y1, x2, y2;
    pos(c.src[i], x1, y1), pos(c.dst[i], x2, y2);
    double dx = x2 - x1, dy = y2 - y1, len = std::sqrt(dx * dx + dy * dy);
    if (len < 1) len = 1;
    // Control point: the chord's midpoint pushed sideways (to the left of the
    // direction of travel), so opposite edges between two nodes stay apart.
    double bend = std::min(60.0, 0.25 * len + 18);
    double qx = (x1 + x2) / 2 + bend * dy / len, qy = (y1 + y2) / 2 - bend * dx / len;
    auto trim = [&](double px, double py, double tx, double ty, double& ox, double& oy) {
      double ex = tx - px, ey = ty - py, l = std::sqrt(ex * ex + ey * ey);
      if (l < 1) l = 1;
      ox = px + ex / l * (node_r + 2), oy = py + ey / l * (node_r + 2);
    };
    double sx, sy, ex, ey;
    trim(x1, y1, qx, qy, sx, sy), trim(x2, y2, qx, qy, ex, ey);
    double lx = 0.25 * sx + 0.5 * qx + 0.25 * ex, ly = 0.25 * sy + 0.5 * qy + 0.25 * ey;
    const char* col = kind_colour(c.kind[i]);
    std::string key = edge_key(h, c, i);
    out << "<g><title>" << html_escape(explain_edge(h, c, i)) << "</title><path d=\"M" << num(sx) << "," << num(sy)
        << " Q" << num(qx) << "," << num(qy) << " " << num(ex) << "," << num(ey) << "\" fill=\"none\" stroke=\"" << col
        << "\" stroke-width=\"2\"" << (c.kind[i] == EdgeKind::rw ? " stroke-dasharray=\"6,4\"" : "")
        << " marker-end=\"url(#ah-" << to_string(c.kind[i]) << ")\"/>"
        << "<text x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" fill=\"" << col
        << "\" font-size=\"12\" text-anchor=\"middle\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\">"
        << (i + 1) << ". " << to_string(c.kind[i]) << (key.empty() ? "" : " " + html_escape(key)) << "</text></g>\n";
  }
  for (TxnIdx t : nodes) {
    double x, y;
    pos(t, x, y);
    out << "<g><title>" << html_escape(txn_name(h, t)) << ", session " << h.session_name[h.txn_session[t]]
        << "</title><circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << node_r
        << "\" fill=\"#fdfefe\" stroke=\"#34495e\" stroke-width=\"2\"/><text x=\"" << num(x) << "\" y=\"" << num(y + 4)
        << "\" font-size=\"12\" font-family=\"monospace\" text-anchor=\"middle\">" << html_escape(txn_name(h, t))
        << "</text></g>\n";
  }
  out << "</svg>\n";
}

void html_txn_table(std::ostream& out, const History& h, const std::vector<TxnIdx>& txns) {
  out << "<table><tr><th>txn</th><th>session</th><th>status</th><th>begin</th><th>end</th><th>operations</th></tr>\n";
  constexpr uint64_t kOpsShown = 64;
  for (TxnIdx t : txns) {
    out << "<tr><td id=\"t" << h.txn_id[t] << "\">" << html_escape(txn_name(h, t)) << "</td><td>"
        << h.session_name[h.txn_session[t]] << "</td><td>" << to_string(h.txn_status[t]) << "</td><td>"
        << (h.has_times(t) ? std::to_string(h.txn_begin[t]) : "") << "</td><td>"
        << (h.has_times(t) ? std::to_string(h.txn_end[t]) : "") << "</td><td class=\"ops\">";
    uint64_t shown = 0;
    for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
      if (shown++ == kOpsShown) { out << " … " << (h.op_end(t) - o) << " more"; break; }
      out << (o == h.op_begin(t) ? "" : "; ") << html_escape(op_text(h, o));
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

void write_html(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  const int code = exit_code(r);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>isocheck: "
      << html_escape(ctx.file) << "</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:2em;max-width:80em;color:#222}"
      << "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:.25em .5em;"
      << "text-align:left;vertical-align:top}th{background:#eee}.ops{font-family:monospace}"
      << ".holds{color:#1e8449;font-weight:bold}.violated{color:#c0392b;font-weight:bold}"
      << ".undecided{color:#b9770e;font-weight:bold}code{background:#f4f4f4;padding:0 .2em}"
      << ".legend span{margin-right:1.2em}svg{border:1px solid #ddd;background:#fff}\n"
      << "</style></head><body>\n<h1>isocheck report</h1>\n<p>File <code>" << html_escape(ctx.file) << "</code>: "
      << r.stats.txns << " transactions (" << r.stats.committed << " committed or observed). Result: <span class=\""
      << (code == 0 ? "holds\">every requested level holds" : code == 1 ? "violated\">violation" : "undecided\">undecided")
      << "</span> (exit code " << code << ").</p>\n";
  if (!ctx.import_note.empty()) out << "<p>Import: " << html_escape(ctx.import_note) << "</p>\n";
  if (r.stats.constraints > 0)
    out << "<p>General engine: " << r.stats.constraints << " constraints, " << r.stats.pruned
        << " decided by pruning, " << r.stats.to_solver << " to the SAT solver in " << r.stats.subproblems
        << " sub-problems.</p>\n";
  out << "<h2>Verdicts</h2>\n<table><tr><th>level</th><th>verdict</th><th>anomaly</th><th>rules out</th></tr>\n";
  for (auto& lr : r.levels) {
    out << "<tr><td>" << to_string(lr.level) << "</td><td>";
    if (!lr.decided) out << "<span class=\"undecided\">undecided</span>: " << html_escape(lr.reason);
    else if (lr.holds) out << "<span class=\"holds\">holds</span>";
    else out << "<span class=\"violated\">violated</span>" << (lr.witness ? "" : ": " + html_escape(lr.reason));
    out << "</td><td>" << (lr.witness ? html_escape(lr.witness->anomaly) : "") << "</td><td>"
        << (lr.witness ? html_escape(rules_out_line(weakest_ruled_out(h, lr, r))) : "") << "</td></tr>\n";
  }
  out << "</table>\n";
  std::vector<TxnIdx> involved;
  auto involve = [&](TxnIdx t) {
    if (std::find(involved.begin(), involved.end(), t) == involved.end()) involved.push_back(t);
  };
  constexpr size_t kAnomaliesShown = 200;
  if (!r.anomalies.empty()) {
    out << "<h2>Anomalies (" << r.anomalies.size() << ")</h2>\n<p>None of SER, SI, SSER allows these; together they "
        << "rule out " << html_escape(rules_out_line(weakest_of_anomalies(r))) << ".</p>\n"
        << "<table><tr><th>kind</th><th>explanation</th><th>rules out</th></tr>\n";
    for (size_t i = 0; i < r.anomalies.size() && i < kAnomaliesShown; ++i) {
      auto& a = r.anomalies[i];
      involve(a.other), involve(a.txn);
      out << "<tr><td>" << html_escape(to_string(a.kind)) << "</td><td>" << html_escape(explain_anomaly(h, a))
          << "</td><td>" << rules_out_text(weakest_ruled_out(a.kind)) << "</td></tr>\n";
    }
    out << "</table>\n";
    if (r.anomalies.size() > kAnomaliesShown)
      out << "<p>… and " << r.anomalies.size() - kAnomaliesShown << " more (<code>--json</code> lists all).</p>\n";
  }
  const Witness* prev = nullptr;
  for (auto& lr : r.levels) {
    if (!lr.witness) continue;
    const Witness& w = *lr.witness;
    out << "<h2>" << to_string(lr.level) << ": " << html_escape(w.anomaly) << "</h2>\n";
    out << "<p>Rules out " << html_escape(rules_out_line(weakest_ruled_out(h, lr, r))) << ".</p>\n";
    if (same_cycle(prev, &w)) { out << "<p>The same cycle as above.</p>\n"; continue; }
    prev = &w;
    const EdgeList& c = w.cycle;
    out << "<p class=\"legend\">";
    for (EdgeKind k : {EdgeKind::ww, EdgeKind::wr, EdgeKind::rw, EdgeKind::so, EdgeKind::rt}) {
      const char* what = k == EdgeKind::ww ? "write-write (version order)" : k == EdgeKind::wr ? "write-read (read from)"
                         : k == EdgeKind::rw ? "read-write (anti-dependency)" : k == EdgeKind::so ? "session order"
                                                                                                  : "real time";
      out << "<span style=\"color:" << kind_colour(k) << "\">&#9632; " << to_string(k) << ": " << what << "</span>";
    }
    out << "</p>\n";
    svg_cycle(out, h, c);
    out << "<ol>\n";
    for (size_t i = 0; i < c.size(); ++i) {
      involve(c.src[i]);
      out << "<li><code>" << html_escape(txn_name(h, c.src[i])) << " -" << to_string(c.kind[i]) << "-&gt; "
          << html_escape(txn_name(h, c.dst[i])) << "</code>: " << html_escape(witness_edge_text(h, w, i)) << "</li>\n";
    }
    out << "</ol>\n";
    if (!w.core.empty()) {
      out << "<p>Unsatisfiable core: " << w.core.size() << " unknown write order" << (w.core.size() == 1 ? "" : "s")
          << (w.core_minimal ? " (minimal)" : " (not shown to be minimal)")
          << ". Every way to settle them closes a cycle with the certain edges; the cycle above is one.</p>\n<ul>\n";
      for (size_t i = 0; i < w.core.size() && i < 200; ++i) {
        out << "<li>" << html_escape(explain_constraint(h, w.core[i])) << "</li>\n";
        involve(w.core[i].first_head), involve(w.core[i].second_head);
      }
      out << "</ul>\n";
    }
  }
  if (!involved.empty()) {
    out << "<h2>Transactions involved</h2>\n";
    html_txn_table(out, h, involved);
  }
  out << "</body></html>\n";
}

}  // namespace isocheck
