#include "report/report.h"

#include <cstdio>
#include <sstream>

namespace isocheck {
namespace {

std::string key_text(const History& h, Sym k) { return h.keys.text(k); }

std::string list_text(const History& h, OpIdx o) {
  std::string s = "[";
  auto l = h.list(o);
  for (size_t i = 0; i < l.size(); ++i) s += (i ? " " : "") + value_text(h, l[i]);
  return s + "]";
}

// The value a transaction last wrote (or appended) to key k, as text.
std::string final_write_text(const History& h, TxnIdx t, Sym k) {
  for (OpIdx o = h.op_end(t); o-- > h.op_begin(t);)
    if ((h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) && h.op_key[o] == k)
      return (h.op_kind[o] == OpKind::append ? "appended " : "") + value_text(h, h.op_value[o]);
  return "?";
}

std::string read_text(const History& h, OpIdx o) {
  if (h.op_kind[o] == OpKind::read_list) return key_text(h, h.op_key[o]) + "=" + list_text(h, o);
  std::string v = value_text(h, h.op_value[o]);
  return key_text(h, h.op_key[o]) + "=" + v + (h.op_value[o] == kNullValue ? " (the initial state)" : "");
}

void json_string(std::ostream& out, const std::string& s) {
  out << '"';
  for (unsigned char c : s) {
    if (c == '"') out << "\\\"";
    else if (c == '\\') out << "\\\\";
    else if (c == '\n') out << "\\n";
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); out << b; }
    else out << c;
  }
  out << '"';
}

const Witness* first_witness(const CheckResult& r) {
  for (auto& lr : r.levels) if (lr.witness) return &*lr.witness;
  return nullptr;
}

}  // namespace

std::string txn_name(const History& h, TxnIdx t) { return "T" + std::to_string(h.txn_id[t]); }

std::string explain_edge(const History& h, const EdgeList& e, size_t i) {
  TxnIdx s = e.src[i], d = e.dst[i];
  std::string S = txn_name(h, s), D = txn_name(h, d);
  switch (e.kind[i]) {
    case EdgeKind::wr: {
      OpIdx o = h.op_begin(d) + e.why[i];
      if (h.op_kind[o] == OpKind::read_list)
        return D + " read " + read_text(h, o) + ", whose last element " + S + " appended";
      return D + " read " + read_text(h, o) + " written by " + S;
    }
    case EdgeKind::ww: {
      OpIdx o = h.op_begin(d) + e.why[i];
      Sym k = h.op_key[o];
      if (h.op_kind[o] == OpKind::append)
        return D + " appended " + value_text(h, h.op_value[o]) + " to " + key_text(h, k) + " after " + S + " " +
               final_write_text(h, s, k) + " (version order of " + key_text(h, k) + ")";
      return D + " overwrote " + key_text(h, k) + "=" + final_write_text(h, s, k) + " written by " + S + " with " +
             key_text(h, k) + "=" + value_text(h, h.op_value[o]);
    }
    case EdgeKind::rw: {
      OpIdx o = h.op_begin(s) + e.why[i];
      Sym k = h.op_key[o];
      return S + " read " + read_text(h, o) + ", which " + D + " overwrote (" + D + " " +
             (final_write_text(h, d, k).rfind("appended", 0) == 0 ? "" : "wrote " + key_text(h, k) + "=") +
             final_write_text(h, d, k) + ")";
    }
    case EdgeKind::so:
      return S + " precedes " + D + " in session " + std::to_string(h.session_name[h.txn_session[s]]);
    case EdgeKind::rt: {
      std::string unit = h.time_unit.empty() ? "" : " " + h.time_unit;
      return S + " ended (at " + std::to_string(h.txn_end[s]) + unit + ") before " + D + " began (at " +
             std::to_string(h.txn_begin[d]) + unit + ")";
    }
    case EdgeKind::aux: break;
  }
  return S + " -> " + D;
}

std::string explain_anomaly(const History& h, const Anomaly& a) {
  std::string T = txn_name(h, a.txn), O = txn_name(h, a.other);
  OpIdx o = h.op_begin(a.txn) + a.op;
  std::string k = key_text(h, a.key), v = value_text(h, a.value);
  switch (a.kind) {
    case AnomalyKind::aborted_read:
      return T + " read " + k + "=" + v + " written by " + O + ", which " +
             (h.txn_status[a.other] == TxnStatus::aborted ? "aborted" : "did not commit");
    case AnomalyKind::intermediate_read:
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
    case AnomalyKind::incompatible_order:
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

void write_text(std::ostream& out, const History& h, const CheckResult& r, const ReportContext& ctx) {
  out << ctx.file << ": " << r.stats.txns << " transactions (" << r.stats.committed << " committed or observed)\n";
  if (!ctx.import_note.empty()) out << "import: " << ctx.import_note << "\n";
  if (r.stats.constraints > 0 || r.stats.ordered_by_time > 0)
    out << "general engine: " << r.stats.constraints << " constraints (" << r.stats.ordered_by_time
        << " chain pairs ordered by real time without one), " << r.stats.pruned << " decided by pruning, "
        << r.stats.to_solver << " to the SAT solver in " << r.stats.subproblems << " sub-problems\n";
  if (!r.anomalies.empty()) {
    out << "anomalies (none of SER, SI, SSER allows these): " << r.anomalies.size() << "\n";
    size_t shown = 0;
    for (auto& a : r.anomalies) {
      if (shown++ == 20) { out << "  ... and " << r.anomalies.size() - 20 << " more (--json lists all)\n"; break; }
      out << "  " << to_string(a.kind) << ": " << explain_anomaly(h, a) << "\n";
    }
  }
  const Witness* prev = nullptr;
  for (auto& lr : r.levels) {
    out << to_string(lr.level) << ": ";
    if (!lr.decided) { out << "UNDECIDED: " << lr.reason << "\n"; continue; }
    if (lr.holds) { out << "holds\n"; continue; }
    if (!lr.witness) { out << "VIOLATED (" << lr.reason << ")\n"; continue; }
    out << "VIOLATED: " << lr.witness->anomaly << "\n";
    if (prev && prev->cycle.src == lr.witness->cycle.src && prev->cycle.kind == lr.witness->cycle.kind) {
      out << "  (the same cycle as above)\n";
      continue;
    }
    const EdgeList& c = lr.witness->cycle;
    for (size_t i = 0; i < c.size(); ++i)
      out << "  " << txn_name(h, c.src[i]) << " -" << to_string(c.kind[i]) << "-> " << txn_name(h, c.dst[i]) << ": "
          << explain_edge(h, c, i) << "\n";
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
      out << ",\"cycle\":[";
      const EdgeList& c = lr.witness->cycle;
      for (size_t i = 0; i < c.size(); ++i) {
        out << (i ? "," : "") << "{\"from\":" << h.txn_id[c.src[i]] << ",\"to\":" << h.txn_id[c.dst[i]]
            << ",\"kind\":\"" << to_string(c.kind[i]) << "\",\"explanation\":";
        json_string(out, explain_edge(h, c, i));
        out << "}";
      }
      out << "]";
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
    out << ",\"explanation\":";
    json_string(out, explain_anomaly(h, a));
    out << "}";
  }
  out << "],\"stats\":{\"edges\":" << r.stats.edges << ",\"constraints\":" << r.stats.constraints
      << ",\"ordered_by_time\":" << r.stats.ordered_by_time << ",\"subproblems\":" << r.stats.subproblems
      << ",\"pruned\":" << r.stats.pruned << ",\"to_solver\":" << r.stats.to_solver
      << ",\"unordered_write_pairs\":" << r.stats.unordered_write_pairs << ",\"seconds\":" << ctx.seconds << "}}\n";
}

void write_dot(std::ostream& out, const History& h, const CheckResult& r) {
  out << "digraph witness {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  if (const Witness* w = first_witness(r)) {
    out << "  label=";
    std::ostringstream l;
    json_string(l, w->anomaly);
    out << l.str() << ";\n";
    const EdgeList& c = w->cycle;
    for (size_t i = 0; i < c.size(); ++i) {
      std::ostringstream lab;
      json_string(lab, std::string(to_string(c.kind[i])) + ": " + explain_edge(h, c, i));
      out << "  " << txn_name(h, c.src[i]) << " -> " << txn_name(h, c.dst[i]) << " [label=" << lab.str()
          << (c.kind[i] == EdgeKind::rw ? ", style=dashed" : "") << "];\n";
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

}  // namespace isocheck
